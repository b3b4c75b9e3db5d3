import 'reflect-metadata';
import http from 'node:http';
import {
  Global,
  Inject,
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, type Health, type Subject } from '@verity/contracts';
import type pg from 'pg';
import { z } from 'zod';
import { baseEnv, configSection, deadlineEnv, defaultDatabaseUrl, healthEnv, loadConfig, natsEnv, postgresEnv } from './config.js';
import { createServicePool, describeDbError, type DatabaseTimeouts, type MigrationClass } from './database.js';
import { createLogger, type Logger } from './logger.js';
import { initMetrics, metricsText } from './metrics.js';
import { connectNats, natsCredentialsOf, RpcClient, RpcServer } from './nats.js';
import { principalVerifyEnv, PrincipalVerifier } from './principal-seal.js';
import { answersWithin, natsAnswers } from './readiness.js';
import { Sql } from './sql.js';
import { initTracing, shutdownTracing, tracingEnv } from './tracing.js';

/**
 * The injection tokens of the platform, the same in every app: `CONFIG` holds the whole configuration of the
 * process (the platform's variables and the app's own, as loaded), typed in each app by its `config.ts`.
 */
export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
export const NATS = Symbol('NATS');
/** The process's Redis client, in the apps that have one (the gateway). */
export const REDIS = Symbol('REDIS');

export const serviceEnv = { ...baseEnv, ...natsEnv, ...principalVerifyEnv, ...deadlineEnv, ...postgresEnv, ...healthEnv, ...tracingEnv };
export type ServiceConfig = z.infer<z.ZodObject<typeof serviceEnv>>;
/** The configuration of a service whose own variables are `E`: what `CONFIG` holds in it. */
export type ServiceConfigOf<E extends z.ZodRawShape> = ServiceConfig & z.infer<z.ZodObject<E>>;

/** A NATS service, as its `config.ts` declares it. */
export interface ServiceDefinition<E extends z.ZodRawShape = z.ZodRawShape> {
  /** Service name: the NATS queue group, the log `service` field and the Postgres schema. */
  name: string;
  migrations: MigrationClass[];
  healthSubject: Subject;
  /** The service's own variables (`{}` when it has none), validated at start with the platform's (`serviceEnv`). */
  env: E;
}

export function databaseUrlOf(cfg: Pick<ServiceConfig, 'DATABASE_URL' | 'REGION'>): string {
  return cfg.DATABASE_URL ?? defaultDatabaseUrl(cfg.REGION);
}

@Injectable()
class ServiceLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(Sql) private readonly sql: Sql,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    // stop taking requests and let those in flight finish
    await this.server.close();
  }

  async onApplicationShutdown(signal?: string): Promise<void> {
    await this.nc.drain().catch(() => undefined);
    await this.sql.end().catch(() => undefined);
    await shutdownTracing();
    this.log.info({ signal }, 'stopped');
  }
}

/**
 * The platform of a NATS service: validated config, logger, NATS connection, RPC server (queue group named
 * after the service) and client, the service's own Postgres pool (`Sql`), and a health handler.
 */
@Global()
@Module({})
export class ServicePlatformModule {
  static forService(def: ServiceDefinition, cfg: ServiceConfig, log: Logger): DynamicModule {
    const root = subjectRoot(cfg.REGION, cfg.NATS_SUBJECT_PREFIX);
    return {
      module: ServicePlatformModule,
      providers: [
        { provide: CONFIG, useValue: cfg },
        { provide: LOGGER, useValue: log },
        { provide: NATS, useFactory: () => connectNats(cfg.NATS_URL, `${def.name}-${cfg.REGION}`, natsCredentialsOf(cfg, def.name)) },
        {
          provide: Sql,
          useFactory: async () => {
            const pool = createServicePool({
              url: databaseUrlOf(cfg),
              poolMax: cfg.PG_POOL_MAX,
              applicationName: `${def.name}-${cfg.REGION}`,
              timeouts: databaseTimeoutsOf(cfg),
            });
            // a database that cannot be reached fails the start, not the first request
            await pool.query('SELECT 1').catch(async (e: unknown) => {
              await pool.end();
              throw e;
            });
            return new Sql(pool);
          },
        },
        {
          provide: RpcServer,
          inject: [NATS],
          // the health subject is served last (createServiceApp): a service that answers it serves every subject
          useFactory: (nc: NatsConnection) =>
            new RpcServer(nc, root, def.name, log, { principals: new PrincipalVerifier(cfg.PRINCIPAL_VERIFY_KEYS), deadlineMarginMs: cfg.DEADLINE_MARGIN_MS }),
        },
        { provide: RpcClient, inject: [NATS], useFactory: (nc: NatsConnection) => new RpcClient(nc, root, cfg.RPC_TIMEOUT_MS) },
        ServiceLifecycle,
      ],
      exports: [CONFIG, LOGGER, NATS, Sql, RpcServer, RpcClient],
    };
  }
}

/** The configured database timeouts of a service. */
export function databaseTimeoutsOf(cfg: Pick<ServiceConfig, 'PG_CONNECT_TIMEOUT_MS' | 'PG_STATEMENT_TIMEOUT_MS' | 'PG_IDLE_IN_TRANSACTION_TIMEOUT_MS'>): DatabaseTimeouts {
  return { connectMs: cfg.PG_CONNECT_TIMEOUT_MS, statementMs: cfg.PG_STATEMENT_TIMEOUT_MS, idleInTransactionMs: cfg.PG_IDLE_IN_TRANSACTION_TIMEOUT_MS };
}

/** Postgres answers `SELECT 1` within `timeoutMs`, or the service reports itself degraded: a check never hangs. */
export async function checkHealth(service: string, pool: pg.Pool, timeoutMs: number): Promise<Health> {
  const postgres = (await answersWithin(() => pool.query('SELECT 1'), timeoutMs)) ? 'ok' : 'down';
  return { service, status: postgres === 'ok' ? 'ok' : 'degraded', checks: { postgres } };
}

/**
 * The readiness a probe reads over HTTP: the service's own dependencies, Postgres and its NATS connection (over
 * NATS, the health subject answering already proves the latter).
 */
export async function checkReadiness(service: string, pool: pg.Pool, nc: NatsConnection, timeoutMs: number): Promise<Health> {
  const [db, nats] = await Promise.all([checkHealth(service, pool, timeoutMs), natsAnswers(nc, timeoutMs)]);
  const checks = { ...db.checks, nats: nats ? ('ok' as const) : ('down' as const) };
  return { service, status: db.status === 'ok' && nats ? 'ok' : 'degraded', checks };
}

/** Says which piece of infrastructure is missing and how to start it. */
export function explainStartupFailure(e: unknown, cfg: { NATS_URL: string }): string {
  const msg = (e as Error)?.message ?? String(e);
  const code = (e as { code?: string })?.code;
  if (/authorization violation|authentication/i.test(msg)) {
    return `NATS at ${cfg.NATS_URL} refused this process's credentials: check NATS_USER and NATS_PASSWORD (or NATS_NKEY_SEED) against the server's configuration`;
  }
  if (/nats|CONNECTION_REFUSED/i.test(msg) || code === 'CONNECTION_REFUSED') {
    return `NATS is not reachable at ${cfg.NATS_URL}. Start it with: start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server`;
  }
  if (describeDbError(e) === 'Postgres is not reachable' || /ECONNREFUSED.*5432|database .* does not exist/.test(msg)) {
    return `Postgres is not reachable or the database is missing (${msg}). Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, then run the migrations`;
  }
  return msg;
}

/**
 * Builds a service's Nest application context from a loaded config: used by `runService` and, in process, by
 * integration tests. The service's own variables that `cfg` leaves out get their defaults.
 */
export async function createServiceApp(def: ServiceDefinition, appModule: new () => unknown, cfg: ServiceConfig, log: Logger) {
  const full: ServiceConfig = { ...cfg, ...configSection(def.env, cfg) };
  @Module({ imports: [ServicePlatformModule.forService(def, full, log), appModule] })
  class RootModule {}
  const app = await NestFactory.createApplicationContext(RootModule, { logger: ['error', 'warn'], abortOnError: false });
  await app.init();
  // health last, once every handler is subscribed: a caller that waits for it to answer (a test, a readiness
  // probe) never reaches a subject that has no responder yet
  app.get(RpcServer).handle(def.healthSubject, async () => checkHealth(def.name, app.get(Sql).pool, full.PG_HEALTH_TIMEOUT_MS));
  // the server has every subscription once this returns: a request sent next finds its responder
  await app.get<NatsConnection>(NATS).flush();
  return app;
}

/**
 * Boots a NATS service: validates its config (the platform's variables and `def.env`; exits with a clear message
 * when invalid), builds the Nest application context, serves its handlers and shuts down gracefully on
 * SIGTERM/SIGINT.
 */
export async function runService(def: ServiceDefinition, appModule: new () => unknown): Promise<void> {
  let cfg: ServiceConfig;
  try {
    cfg = loadConfig({ ...serviceEnv, ...def.env }) as ServiceConfig;
  } catch (e) {
    process.stderr.write(`${def.name}: ${(e as Error).message}\n`);
    process.exit(78);
  }
  const log = createLogger(def.name, cfg.REGION, cfg.LOG_LEVEL);
  initMetrics(def.name, cfg.REGION);
  initTracing(def.name, cfg.REGION, cfg);
  try {
    const app = await createServiceApp(def, appModule, cfg, log);
    app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
    if (cfg.HEALTH_PORT) serveHealthHttp(cfg.HEALTH_PORT, def.name, app.get(Sql).pool, app.get(NATS), cfg.PG_HEALTH_TIMEOUT_MS);
    log.info({ root: subjectRoot(cfg.REGION, cfg.NATS_SUBJECT_PREFIX) }, 'ready');
  } catch (e) {
    log.fatal({ err: e }, 'failed to start');
    process.stderr.write(`${def.name}: ${explainStartupFailure(e, cfg)}\n`);
    process.exit(1);
  }
}

function serveHealthHttp(port: number, service: string, pool: pg.Pool, nc: NatsConnection, timeoutMs: number): void {
  serveInternalPort(port, () => checkReadiness(service, pool, nc, timeoutMs));
}

/**
 * A process's internal port (`HEALTH_PORT`, never the public one): `GET /health/live`, `GET /health/ready`
 * (200 when `ready` says ok, else 503) and `GET /metrics` (Prometheus text). Returns the server, listening.
 */
export function serveInternalPort(port: number, ready: () => Promise<Health>, host = '0.0.0.0'): http.Server {
  return http
    .createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/health/live') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
        return;
      }
      if (path === '/health/ready') {
        void ready().then((h) => {
          res.writeHead(h.status === 'ok' ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(h));
        });
        return;
      }
      if (path === '/metrics') {
        metricsText().then(
          (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
          () => res.writeHead(500).end(),
        );
        return;
      }
      res.writeHead(404).end();
    })
    .listen(port, host);
}
