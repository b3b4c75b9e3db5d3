import { baseEnv, loadConfig, postgresEnv } from './config.js';
import { ensureDatabase, migrateServiceSchema, type MigrationClass } from './database.js';
import { databaseUrlOf } from './service.js';

/** Entry of each service's `migrate` command: creates the regional database if missing and migrates its schema. */
export async function runMigrations(service: string, migrations: MigrationClass[]): Promise<void> {
  const cfg = loadConfig({ ...baseEnv, ...postgresEnv });
  const url = databaseUrlOf(cfg);
  await ensureDatabase(url);
  const ran = await migrateServiceSchema({
    url,
    schema: service.replace(/-/g, '_'),
    migrations,
    poolMax: 1,
    applicationName: `${service}-migrate`,
  });
  process.stdout.write(`${JSON.stringify({ service, region: cfg.REGION, migrations_applied: ran })}\n`);
}
