/**
 * deploy/ as a platform team would apply it: both regions' overlays (and their migrate Jobs) rendered, every object
 * valid against the Kubernetes schemas and the project's rules (tools/deploy-check/src/policy.ts); deliberately
 * broken fixtures (test/fixtures/<case>) are each caught with a message naming the object and the field.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrincipalSigner } from '@verity/platform';
import { parseAllDocuments } from 'yaml';
import {
  containerEnvSchemas,
  containersOf,
  policyProblems,
  renderKustomization,
  REPO_ROOT,
  schemaProblems,
  type EnvShape,
  type K8sObject,
} from '../src/index.js';

const REGIONS = ['us', 'eu'] as const;
const overlay = (k: string) => path.join(REPO_ROOT, 'deploy', 'overlays', k);
const fixture = (k: string) => path.join(REPO_ROOT, 'tools', 'deploy-check', 'test', 'fixtures', k);
let envSchemas: Record<string, EnvShape>;
const kubectl = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
/** Objects in one order, the generated ConfigMap's content hash aside (the renderer's and kustomize's differ). */
const normalized = (objects: K8sObject[]) =>
  (JSON.parse(JSON.stringify(objects).replace(/(verity-nats-config|verity-pgbouncer)-[a-z0-9]{10}/g, '$1-HASH')) as K8sObject[]).sort((a, b) =>
    `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`),
  );

/** A region as applied: its objects and its migrate Job (whose network rules are the region's). */
const region = (r: string) => [...renderKustomization(overlay(r)), ...renderKustomization(overlay(`${r}/migrate`))];
const problems = (objects: K8sObject[]) => [...schemaProblems(objects), ...policyProblems(objects, { envSchemas })];
const find = (objects: K8sObject[], kind: string, name: string) => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(o, `${kind}/${name} is rendered`);
  return o;
};

before(async () => {
  envSchemas = await containerEnvSchemas();
});

describe('the shipped overlays', () => {
  for (const r of REGIONS) {
    it(`${r}: every object passes the Kubernetes schemas and the project's rules`, () => {
      const objects = region(r);
      assert.ok(objects.length > 40, `${objects.length} objects`);
      assert.deepEqual(problems(objects), []);
    });

    it(`${r}: in namespace verity-${r}, with the region's settings and nothing of the other region`, () => {
      const objects = region(r);
      for (const o of objects.filter((x) => x.kind !== 'Namespace')) assert.equal(o.metadata.namespace, `verity-${r}`, `${o.kind}/${o.metadata.name}`);
      // the namespace itself, where the admission controller holds every pod to the restricted standard
      const ns = find(objects, 'Namespace', `verity-${r}`);
      assert.equal(ns.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
      assert.equal(ns.metadata.labels?.['verity.dev/region'], r);
      const cfg = find(objects, 'ConfigMap', 'verity-config')['data'] as Record<string, string>;
      assert.equal(cfg['REGION'], r);
      assert.equal(cfg['CAPTURE_BASE_URL'], `https://${r}.verity.example.com`);
      assert.equal(cfg['DOCS_BASE_URL'], `https://${r}.verity.example.com/docs`);
      assert.equal(cfg['EVENTS_STREAM_REPLICAS'], '3');
      assert.ok(cfg['TRUSTED_PROXIES'], 'TRUSTED_PROXIES is set');
      assert.equal(cfg['CONSOLE_PUBLIC_ORIGIN'], `https://console.${r}.verity.example.com`);
      const job = find(objects, 'Job', 'verity-migrate');
      assert.deepEqual(containersOf(job)[0]!['env'], [
        { name: 'REGION', value: r },
        { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'verity-database', key: 'DIRECT_DATABASE_URL' } } },
        ...['accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan'].map((app) => ({
          name: `DATABASE_PASSWORD_${app.toUpperCase().replace('-', '_')}`,
          valueFrom: { secretKeyRef: { name: `verity-database-${app}`, key: 'PASSWORD' } },
        })),
      ]);
      const ingress = find(objects, 'Ingress', 'gateway')['spec'] as { rules: { host: string }[]; tls: { hosts: string[] }[] };
      assert.equal(ingress.rules[0]!.host, `${r}.verity.example.com`);
      assert.deepEqual(ingress.tls[0]!.hosts, [`${r}.verity.example.com`]);
      // the console on a host of its own, with its own certificate: the host of CONSOLE_PUBLIC_ORIGIN
      const consoleIngress = find(objects, 'Ingress', 'console')['spec'] as {
        rules: { host: string; http: { paths: { backend: { service: { name: string } } }[] } }[];
        tls: { hosts: string[]; secretName: string }[];
      };
      assert.equal(consoleIngress.rules[0]!.host, new URL(cfg['CONSOLE_PUBLIC_ORIGIN']!).host);
      assert.deepEqual(consoleIngress.tls[0]!.hosts, [`console.${r}.verity.example.com`]);
      assert.equal(consoleIngress.rules[0]!.http.paths[0]!.backend.service.name, 'console');
      assert.notEqual(consoleIngress.tls[0]!.secretName, (find(objects, 'Ingress', 'gateway')['spec'] as { tls: { secretName: string }[] }).tls[0]!.secretName);
      assert.match(String(containersOf(find(objects, 'Deployment', 'console'))[0]!.image), /^verity\/console:\d/);
      const other = r === 'us' ? 'eu' : 'us';
      const natsConf = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('verity-nats-config-'))!;
      const conf = (natsConf['data'] as Record<string, string>)['nats-server.conf']!;
      assert.match(conf, new RegExp(`"${r}\\.sessions\\.create\\.v1"`));
      assert.doesNotMatch(conf, new RegExp(`"${other}\\.`));
    });
  }

  it('no Secret is committed: every secret a service reads comes from a Secret that must exist (no optional ref but SMTP_URL)', () => {
    const objects = region('us');
    assert.deepEqual(
      objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name),
      [],
    );
    const refs = new Map<string, string>();
    for (const o of objects) {
      for (const c of containersOf(o)) {
        for (const e of (c['env'] as { name: string; valueFrom?: { secretKeyRef?: { name: string; optional?: boolean } } }[] | undefined) ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (ref) refs.set(`${c.name} ${e.name}`, `${ref.name}${ref.optional ? ' (optional)' : ''}`);
        }
      }
    }
    assert.equal(refs.get('gateway INTERNAL_AUTH_SECRET'), 'verity-internal');
    assert.equal(refs.get('evidence INTERNAL_AUTH_SECRET'), 'verity-internal');
    assert.equal(refs.get('id-scan INTERNAL_AUTH_SECRET'), 'verity-internal');
    assert.equal(refs.get('console INTERNAL_AUTH_SECRET'), 'verity-internal');
    assert.equal(refs.get('console NATS_PASSWORD'), 'verity-nats-console');
    assert.equal(refs.get('console DATABASE_URL'), undefined, 'the console has no database');
    assert.equal(refs.get('sessions CAPTURE_SECRET_KEY'), 'verity-capture');
    assert.equal(refs.get('sessions SMTP_URL'), 'verity-smtp (optional)');
    assert.equal(refs.get('webhook-delivery WEBHOOK_SECRET_KEY'), 'verity-webhook');
    assert.equal(refs.get('migrate DATABASE_URL'), 'verity-database');
    // Redis's URL may carry a password: a Secret, never the ConfigMap
    assert.equal(refs.get('gateway REDIS_URL'), 'verity-redis');
    assert.equal(refs.get('console REDIS_URL'), 'verity-redis');
    assert.equal((find(objects, 'ConfigMap', 'verity-config')['data'] as Record<string, string>)['REDIS_URL'], undefined);
    // each edge signs principals with its own key; every service verifies them, and holds no signing key
    assert.equal(refs.get('gateway PRINCIPAL_SIGNING_KEY'), 'verity-principal-gateway');
    assert.equal(refs.get('console PRINCIPAL_SIGNING_KEY'), 'verity-principal-console');
    for (const app of ['accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan']) {
      assert.equal(refs.get(`${app} PRINCIPAL_VERIFY_KEYS`), 'verity-principal-verify', app);
      assert.equal(refs.get(`${app} PRINCIPAL_SIGNING_KEY`), undefined, app);
    }
    for (const app of ['gateway', 'accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan']) {
      assert.equal(refs.get(`${app} NATS_PASSWORD`), `verity-nats-${app}`);
      // each service as its own role (docs/operations.md, "Database roles"); the migrate Job gives each its password
      if (app !== 'gateway') assert.equal(refs.get(`${app} DATABASE_URL`), `verity-database-${app}`);
      if (app !== 'gateway') assert.equal(refs.get(`migrate DATABASE_PASSWORD_${app.toUpperCase().replace('-', '_')}`), `verity-database-${app}`);
    }
  });

  it('every probe of the services is on the internal port 9000, which Prometheus scrapes', () => {
    for (const o of region('us').filter((x) => x.kind === 'Deployment')) {
      const pod = (o['spec'] as { template: { metadata: { annotations: Record<string, string> } } }).template;
      assert.deepEqual(pod.metadata.annotations, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9000', 'prometheus.io/path': '/metrics' });
      const c = containersOf(o)[0]!;
      const health = (c['ports'] as { name: string; containerPort: number }[]).find((p) => p.name === 'health');
      assert.equal(health?.containerPort, 9000, o.metadata.name);
      for (const probe of ['livenessProbe', 'readinessProbe'] as const) {
        assert.equal((c[probe] as { httpGet: { port: string } }).httpGet.port, 'health', `${o.metadata.name} ${probe}`);
      }
    }
  });

  it('the console is reached from the ingress controller only, and reaches NATS, Redis and evidence:8090 (which accepts the gateway and the console)', () => {
    const objects = region('us');
    type Peer = { podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: { matchLabels?: Record<string, string> } };
    type Rule = { from?: Peer[]; to?: Peer[]; ports?: { port: number }[] };
    type Spec = { podSelector: { matchLabels?: Record<string, string> }; policyTypes: string[]; ingress?: Rule[]; egress?: Rule[] };
    const pod = (find(objects, 'Deployment', 'console')['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => o['spec'] as Spec);
    const selects = (p: Spec, labels: Record<string, string>) => Object.entries(p.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    const peerOf = (peer: Peer) => JSON.stringify(peer);
    const rules = (labels: Record<string, string>, dir: 'ingress' | 'egress') =>
      policies
        .filter((p) => selects(p, labels) && Object.keys(p.podSelector.matchLabels ?? {}).length > 0)
        .flatMap((p) => (p[dir] ?? []).flatMap((r) => ((dir === 'ingress' ? r.from : r.to) ?? []).flatMap((peer) => (r.ports ?? []).map((port) => `${peerOf(peer)}:${port.port}`))));
    const ingressController = peerOf({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
    });
    assert.deepEqual(rules(pod, 'ingress'), [`${ingressController}:8080`]);
    assert.deepEqual(rules(pod, 'egress').sort(), [
      `${peerOf({ podSelector: { matchLabels: { app: 'evidence' } } })}:8090`,
      `${peerOf({ podSelector: { matchLabels: { app: 'nats' } } })}:4222`,
      `${peerOf({ podSelector: { matchLabels: { app: 'redis' } } })}:6379`,
    ].sort());
    assert.equal(pod['verity.dev/database'], undefined);
    const evidencePod = (find(objects, 'Deployment', 'evidence')['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    assert.deepEqual(
      rules(evidencePod, 'ingress').filter((r) => r.endsWith(':8090')).sort(),
      [`${peerOf({ podSelector: { matchLabels: { app: 'console' } } })}:8090`, `${peerOf({ podSelector: { matchLabels: { app: 'gateway' } } })}:8090`],
    );
    // the NATS servers know the console's password
    const nats = containersOf(find(objects, 'StatefulSet', 'nats'))[0]!['env'] as { name: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
    assert.equal(nats.find((e) => e.name === 'NATS_PASSWORD_CONSOLE')?.valueFrom?.secretKeyRef?.name, 'verity-nats-console');
  });

  it('NATS runs as a cluster of 3 with routes between its pods, over TLS and with the route login', () => {
    const objects = region('eu');
    const sts = find(objects, 'StatefulSet', 'nats')['spec'] as { replicas: number; serviceName: string };
    assert.equal(sts.replicas, 3);
    assert.equal(sts.serviceName, 'nats-headless');
    const conf = (objects.find((o) => o.metadata.name.startsWith('verity-nats-config-'))!['data'] as Record<string, string>)['nats-server.conf']!;
    assert.match(conf, /^ {2}routes: \$NATS_ROUTES$/m);
    assert.match(conf, /^ {2}advertise: \$NATS_CLUSTER_ADVERTISE$/m);
    // the routes' URLs carry the route password, expanded by Kubernetes from the variable defined before them
    type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
    const env = containersOf(find(objects, 'StatefulSet', 'nats'))[0]!['env'] as Env[];
    const at = (name: string) => env.findIndex((e) => e.name === name);
    assert.deepEqual(env[at('NATS_PASSWORD_ROUTE')]!.valueFrom?.secretKeyRef, { name: 'verity-nats-route', key: 'NATS_PASSWORD' });
    assert.deepEqual(env[at('NATS_PASSWORD_SYSTEM')]!.valueFrom?.secretKeyRef, { name: 'verity-nats-system', key: 'NATS_PASSWORD' });
    assert.equal(
      env[at('NATS_ROUTES')]!.value,
      `[${[0, 1, 2].map((i) => `"nats://route:$(NATS_PASSWORD_ROUTE)@nats-${i}.nats-headless:6222"`).join(', ')}]`,
    );
    assert.ok(at('NATS_PASSWORD_ROUTE') < at('NATS_ROUTES'));
    assert.equal(env[at('NATS_CLUSTER_ADVERTISE')]!.value, '$(POD_NAME).nats-headless:6222');
    assert.ok(at('POD_NAME') < at('NATS_CLUSTER_ADVERTISE'));
  });

  it('the NATS servers read their certificate from verity-nats-tls; every service of NATS connects over TLS, trusting only its CA', () => {
    const objects = region('us');
    type Volume = { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } };
    type Pod = { template: { metadata: { labels: Record<string, string> }; spec: { volumes?: Volume[] } } };
    type Mount = { name: string; mountPath: string; readOnly?: boolean };
    const sts = find(objects, 'StatefulSet', 'nats');
    const conf = (objects.find((o) => o.metadata.name.startsWith('verity-nats-config-'))!['data'] as Record<string, string>)['nats-server.conf']!;
    const tls = (sts['spec'] as Pod).template.spec.volumes!.find((v) => v.secret?.secretName === 'verity-nats-tls')!;
    const mount = (containersOf(sts)[0]!['volumeMounts'] as Mount[]).find((m) => m.name === tls.name)!;
    for (const file of ['tls.crt', 'tls.key', 'ca.crt']) assert.ok(conf.includes(`"${mount.mountPath}/${file}"`), file);
    const cfg = find(objects, 'ConfigMap', 'verity-config')['data'] as Record<string, string>;
    assert.equal(cfg['NATS_URL'], 'tls://nats:4222');
    const users = objects.filter((o) => o.kind === 'Deployment' && (o['spec'] as Pod).template.metadata.labels['verity.dev/nats'] === 'true');
    assert.equal(users.length, 9);
    for (const o of users) {
      const ca = (o['spec'] as Pod).template.spec.volumes!.find((v) => v.secret?.secretName === 'verity-nats-tls');
      assert.deepEqual(ca?.secret?.items, [{ key: 'ca.crt', path: 'ca.crt' }], `${o.metadata.name} mounts the CA only, not the servers' key`);
      const m = (containersOf(o)[0]!['volumeMounts'] as Mount[]).find((x) => x.name === ca!.name);
      assert.equal(`${m?.mountPath}/ca.crt`, cfg['NATS_TLS_CA'], o.metadata.name);
    }
  });

  it('the renderer agrees with kubectl kustomize (where kubectl is installed)', { skip: !kubectl && 'kubectl is not installed' }, () => {
    for (const dir of [overlay('us'), overlay('eu'), overlay('us/migrate'), fixture('missing-env')]) {
      const theirs = parseAllDocuments(execFileSync(kubectl!, ['kustomize', dir], { encoding: 'utf8' })).map((d) => d.toJS() as K8sObject);
      assert.deepEqual(normalized(renderKustomization(dir)), normalized(theirs), dir);
    }
  });
});

/** The secretKeyRefs of `objects` that `secrets` (region-secrets.sh's output) does not create, as "object container ref/key". */
function unmetSecretRefs(objects: K8sObject[], secrets: (K8sObject & { stringData: Record<string, string> })[]): string[] {
  const byName = new Map(secrets.map((o) => [o.metadata.name, o.stringData]));
  const out: string[] = [];
  for (const o of objects) {
    for (const c of containersOf(o)) {
      for (const e of (c['env'] as { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[] | undefined) ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !ref.optional && byName.get(ref.name)?.[ref.key] === undefined) out.push(`${o.kind}/${o.metadata.name} ${c.name} ${ref.name}/${ref.key}`);
      }
    }
    // and the Secrets a pod mounts, with the keys it mounts
    const pod = (o['spec'] as { template?: { spec?: { volumes?: { secret?: { secretName: string; items?: { key: string }[] } }[] } } } | undefined)?.template?.spec;
    for (const v of pod?.volumes ?? []) {
      if (!v.secret) continue;
      for (const key of v.secret.items?.map((i) => i.key) ?? [null]) {
        const data = byName.get(v.secret.secretName);
        if (!data || (key !== null && data[key] === undefined)) out.push(`${o.kind}/${o.metadata.name} volume ${v.secret.secretName}${key ? `/${key}` : ''}`);
      }
    }
  }
  return out;
}

const regionSecrets = (r: string, names: string[] = [], env: Record<string, string> = {}) =>
  parseAllDocuments(
    execFileSync('bash', [path.join(REPO_ROOT, 'tools/scripts/region-secrets.sh'), r, ...names], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: `postgres://verity:pw@postgres:5432/verity_${r}`, SMTP_URL: 'smtps://u:p@smtp.example.com:465', ...env },
    }),
  ).map((d) => d.toJS() as K8sObject & { stringData: Record<string, string> });

describe('install options as kustomize components (deploy/components)', () => {
  const DEFAULT_SECRETS = ['database', 'redis', 'internal', 'capture', 'webhook', 'console-totp', 'erasure', 'principal', 'smtp', 'nats', 'nats-tls'];
  type Peer = { podSelector?: { matchLabels?: Record<string, string> }; ipBlock?: { cidr: string } };
  type Policy = { podSelector: { matchLabels?: Record<string, string> }; egress?: { to?: Peer[]; ports?: { port: number }[] }[] };
  /** Where the pods with a database may connect, as "peer:port". */
  const databaseEgress = (objects: K8sObject[]) =>
    objects
      .filter((o) => o.kind === 'NetworkPolicy' && (o['spec'] as Policy).podSelector.matchLabels?.['verity.dev/database'] === 'true')
      .flatMap((o) => ((o['spec'] as Policy).egress ?? []).flatMap((e) => (e.to ?? []).flatMap((peer) => (e.ports ?? []).map((p) => `${JSON.stringify(peer)}:${p.port}`))))
      .sort();

  /** An overlay of the region's that picks these components, written where a platform team's own would live. */
  function overlayWith(r: string, components: string[]): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), `verity-overlay-${r}-`));
    const rel = (p: string) => path.relative(dir, p);
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        // the components' objects are the overlay's own: they take its namespace, as the region's objects do
        `namespace: verity-${r}`,
        `resources: [${rel(overlay(r))}]`,
        `components: [${components.map((c) => rel(path.join(REPO_ROOT, 'deploy', 'components', c))).join(', ')}]`,
        '',
      ].join('\n'),
    );
    return dir;
  }

  /** Each region with each install option: in-cluster or external data services, with or without the pooler and object store. */
  const combinations = REGIONS.flatMap((r) =>
    ['in-cluster-data', 'external-data'].flatMap((data) => [false, true].flatMap((pooler) => [false, true].map((objectStore) => ({ r, data, pooler, objectStore })))),
  );
  for (const { r, data, pooler, objectStore } of combinations) {
    // the object store as the data services are: MinIO in the namespace beside in-cluster data, a provider's outside
    const storeComponents = objectStore ? (data === 'in-cluster-data' ? ['object-store', 'minio'] : ['object-store']) : [];
    const components = [data, ...(pooler ? ['pgbouncer'] : []), ...storeComponents];
    it(`${r} with ${components.join(' + ')}: valid, hardened, reachable, its Secrets made by region-secrets.sh`, () => {
      const dir = overlayWith(r, components);
      try {
        const objects = [...renderKustomization(dir), ...renderKustomization(overlay(`${r}/migrate`))];
        assert.deepEqual(problems(objects), []);
        for (const o of objects.filter((x) => x.kind !== 'Namespace')) assert.equal(o.metadata.namespace, `verity-${r}`, `${o.kind}/${o.metadata.name}`);
        const inCluster = data === 'in-cluster-data';
        assert.equal(objects.some((o) => o.kind === 'StatefulSet' && o.metadata.name === 'postgres'), inCluster);
        assert.equal(objects.some((o) => o.kind === 'StatefulSet' && o.metadata.name === 'redis'), inCluster);
        assert.equal(objects.some((o) => o.kind === 'Deployment' && o.metadata.name === 'pgbouncer'), pooler);
        // the pods with a database reach the server (a pod selector in the namespace, or the managed service's
        // address range) and, with the pooler, PgBouncer
        const server = inCluster ? JSON.stringify({ podSelector: { matchLabels: { app: 'postgres' } } }) : JSON.stringify({ ipBlock: { cidr: '10.0.0.0/8' } });
        assert.deepEqual(databaseEgress(objects), [`${server}:5432`, ...(pooler ? [`${JSON.stringify({ podSelector: { matchLabels: { app: 'pgbouncer' } } })}:6432`] : [])].sort());
        if (pooler) {
          // its configuration: transaction pooling to the server "postgres", the services' roles from the Secret
          const ini = (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('verity-pgbouncer-'))!['data'] as Record<string, string>)['pgbouncer.ini']!;
          assert.match(ini, /^pool_mode = transaction$/m);
          assert.match(ini, /^\* = host=postgres port=5432$/m);
          assert.match(ini, /^auth_file = \/etc\/pgbouncer-auth\/userlist.txt$/m);
          // a managed server is reached under the name "postgres" too
          assert.equal((find(objects, 'Service', 'postgres')['spec'] as { type?: string }).type === 'ExternalName', !inCluster);
        }
        const secrets = regionSecrets(r, [...DEFAULT_SECRETS, ...(inCluster ? ['postgres'] : []), ...storeComponents], pooler ? { DATABASE_POOLER_URL: `postgres://verity:pw@pgbouncer:6432/verity_${r}` } : {});
        assert.deepEqual(unmetSecretRefs(objects, secrets), []);
        // evidence writes images to the region's bucket and may reach the store (MinIO in the namespace, else HTTPS
        // out), and nothing else does; without the component, images stay in Postgres and nothing reaches a store
        const evidence = containersOf(find(objects, 'Deployment', 'evidence'))[0]!;
        const env = new Map(((evidence['env'] ?? []) as { name: string; value?: string }[]).map((e) => [e.name, e]));
        assert.equal(env.get('EVIDENCE_STORE')?.value, objectStore ? 's3' : undefined);
        assert.equal(objects.some((o) => o.kind === 'StatefulSet' && o.metadata.name === 'minio'), objectStore && inCluster);
        const storeEgress = objects.filter((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'object-store-clients');
        assert.equal(storeEgress.length, objectStore ? 1 : 0);
        if (objectStore) {
          const spec = storeEgress[0]!['spec'] as Policy;
          assert.deepEqual(spec.podSelector.matchLabels, { 'verity.dev/object-store': 'true' });
          const labelled = objects.filter((o) => o.kind === 'Deployment' && (o['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels['verity.dev/object-store'] === 'true');
          assert.deepEqual(labelled.map((o) => o.metadata.name), ['evidence']);
          assert.deepEqual(spec.egress, [inCluster ? { to: [{ podSelector: { matchLabels: { app: 'minio' } } }], ports: [{ protocol: 'TCP', port: 9000 }] } : { to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ protocol: 'TCP', port: 443 }] }]);
          const store = secrets.find((o) => o.metadata.name === 'verity-object-store')!.stringData;
          assert.equal(store['EVIDENCE_S3_BUCKET'], `verity-evidence-${r}`);
          assert.equal(Buffer.from(store['EVIDENCE_OBJECT_KEY']!, 'base64').length, 32);
          if (inCluster) {
            assert.equal(store['EVIDENCE_S3_ENDPOINT'], 'http://minio:9000');
            assert.equal(store['EVIDENCE_S3_SECRET_ACCESS_KEY'], secrets.find((o) => o.metadata.name === 'verity-minio')!.stringData['MINIO_ROOT_PASSWORD']);
            assert.equal(env.get('EVIDENCE_S3_CREATE_BUCKET')?.value, 'true');
          }
        }
        assert.equal(secrets.find((o) => o.metadata.name === 'verity-database')!.stringData['DIRECT_DATABASE_URL'], `postgres://verity:pw@postgres:5432/verity_${r}`);
        // each service's role, at PgBouncer's address with the pooler, the server's without; PgBouncer knows each
        const userlist = secrets.find((o) => o.metadata.name === 'verity-pgbouncer-auth')!.stringData['userlist.txt']!;
        for (const app of ['accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan']) {
          const own = secrets.find((o) => o.metadata.name === `verity-database-${app}`)!.stringData;
          const role = `verity_${app.replace('-', '_')}`;
          assert.equal(own['DATABASE_URL'], `postgres://${role}:${own['PASSWORD']}@${pooler ? 'pgbouncer:6432' : 'postgres:5432'}/verity_${r}`);
          assert.ok(userlist.split('\n').includes(`"${role}" "${own['PASSWORD']}"`), `${role} in PgBouncer's list`);
        }
        if (inCluster) {
          assert.deepEqual(secrets.find((o) => o.metadata.name === 'verity-postgres')!.stringData, { POSTGRES_USER: 'verity', POSTGRES_PASSWORD: 'pw', POSTGRES_DB: `verity_${r}` });
        }
        if (kubectl) {
          const theirs = parseAllDocuments(execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8' })).map((d) => d.toJS() as K8sObject);
          assert.deepEqual(normalized(renderKustomization(dir)), normalized(theirs), 'the renderer agrees with kubectl kustomize');
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('an overlay pins every image by digest from a mirror of its own: every container runs name@sha256:…, valid and hardened', () => {
    const dir = overlayWith('us', ['in-cluster-data', 'pgbouncer', 'object-store', 'minio']);
    try {
      const images = [...new Set(renderKustomization(dir).flatMap((o) => containersOf(o).map((c) => String(c.image))))].sort();
      // the digest a registry printed for each image (here made up, of the right form)
      const pins = images.map((image) => {
        const name = image.split('@')[0]!.replace(/:[^/:]+$/, '');
        const digest = `sha256:${createHash('sha256').update(image).digest('hex')}`;
        return { name, newName: `registry.example.com/mirror/${name.split('/').pop()}`, digest };
      });
      const file = path.join(dir, 'kustomization.yaml');
      writeFileSync(file, `${readFileSync(file, 'utf8')}images:\n${pins.map((p) => `  - { name: ${p.name}, newName: ${p.newName}, digest: "${p.digest}" }`).join('\n')}\n`);
      const objects = renderKustomization(dir);
      const running = objects.flatMap((o) => containersOf(o).map((c) => String(c.image)));
      assert.ok(running.length > 10);
      for (const image of running) assert.match(image, /^registry\.example\.com\/mirror\/[a-z0-9_.-]+@sha256:[0-9a-f]{64}$/);
      assert.deepEqual(problems(objects), []);
      if (kubectl) {
        const theirs = parseAllDocuments(execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8' })).map((d) => d.toJS() as K8sObject);
        assert.deepEqual(normalized(objects), normalized(theirs), 'the renderer agrees with kubectl kustomize');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a component named where a kustomization belongs, or the reverse, is refused by name', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verity-overlay-bad-'));
    try {
      writeFileSync(path.join(dir, 'kustomization.yaml'), `resources: [${path.relative(dir, path.join(REPO_ROOT, 'deploy', 'components', 'pgbouncer'))}]\n`);
      assert.throws(() => renderKustomization(dir), /a Component where a Kustomization belongs/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the admin CLI as a Job (deploy/examples/admin-job.yaml)', () => {
  it("passes the schemas and the project's rules beside the region's objects; reads the operator's password and the NATS CA only, each made by region-secrets.sh", () => {
    const job = parseAllDocuments(readFileSync(path.join(REPO_ROOT, 'deploy', 'examples', 'admin-job.yaml'), 'utf8')).map((d) => d.toJS() as K8sObject);
    const objects = [...region('us'), ...job.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: 'verity-us' } }))];
    assert.deepEqual(problems(objects), []);
    assert.deepEqual(unmetSecretRefs(job, regionSecrets('us')), []);
    const c = containersOf(job[0]!)[0]!;
    assert.match(String(c.image), /^verity\/admin:\d/);
    const env = c['env'] as { name: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
    assert.deepEqual(env.filter((e) => e.valueFrom).map((e) => e.valueFrom!.secretKeyRef!.name), ['verity-nats-operator']);
    // the Dockerfile builds the image it names
    assert.match(readFileSync(path.join(REPO_ROOT, 'docker', 'Dockerfile'), 'utf8'), /^FROM lean AS admin$/m);
  });
});

describe('tools/scripts/region-secrets.sh', () => {
  const run = (r: string) => regionSecrets(r);

  it('creates every Secret the region reads, each value accepted by the services that read it, and none the same in both regions', () => {
    const us = run('us');
    const eu = run('eu');
    const byName = new Map(us.map((o) => [o.metadata.name, o.stringData]));
    for (const o of region('us')) {
      for (const c of containersOf(o)) {
        for (const e of (c['env'] as { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] | undefined) ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref) continue;
          const value = byName.get(ref.name)?.[ref.key];
          assert.ok(value !== undefined, `${o.kind}/${o.metadata.name} ${c.name}: ${ref.name}/${ref.key} is created`);
          const schema = envSchemas[c.name]?.[e.name];
          if (schema) assert.ok(schema.safeParse(value).success, `${c.name} accepts ${e.name} as generated`);
        }
      }
    }
    // and every Secret a pod mounts, with the keys it mounts (the NATS servers' certificate and its CA)
    for (const o of region('us')) {
      const pod = (o['spec'] as { template?: { spec?: { volumes?: { secret?: { secretName: string; items?: { key: string }[] } }[] } } } | undefined)?.template?.spec;
      for (const v of pod?.volumes ?? []) {
        if (!v.secret) continue;
        const data = byName.get(v.secret.secretName);
        assert.ok(data, `${o.kind}/${o.metadata.name}: ${v.secret.secretName} is created`);
        for (const key of v.secret.items?.map((i) => i.key) ?? ['tls.crt', 'tls.key', 'ca.crt']) assert.match(data[key] ?? '', /^-----BEGIN /, `${v.secret.secretName}/${key}`);
      }
    }
    // the services' verify keys are the public halves of the edges' signing keys
    const verify = byName.get('verity-principal-verify')!['PRINCIPAL_VERIFY_KEYS']!;
    for (const edge of ['gateway', 'console'] as const) {
      assert.ok(verify.split(',').includes(new PrincipalSigner(edge, byName.get(`verity-principal-${edge}`)!['PRINCIPAL_SIGNING_KEY']!).verifyKey), edge);
    }
    const euValues = new Set(eu.flatMap((o) => Object.values(o.stringData)));
    for (const o of us) {
      // the operator's, given to the script (Redis's default is the in-cluster address, no password)
      if (o.metadata.name === 'verity-smtp' || o.metadata.name === 'verity-redis') continue;
      for (const v of Object.values(o.stringData)) assert.ok(!euValues.has(v), `${o.metadata.name} differs between regions`);
    }
  });
});

describe('broken manifests are caught, each with a message naming the object and the field', () => {
  const cases: [string, string[]][] = [
    ['no-readiness', ['Deployment/accounts: container accounts: readinessProbe is missing']],
    ['root-user', ['Deployment/sessions: container sessions: runAsUser is 0 (root)']],
    [
      'writable-root',
      [
        'Deployment/evidence: container evidence: securityContext.readOnlyRootFilesystem must be true',
        'Deployment/evidence: container evidence: securityContext.allowPrivilegeEscalation must be false',
        'Deployment/evidence: container evidence: securityContext.capabilities.drop must include ALL',
      ],
    ],
    ['secret-literal', ['Secret/verity-capture: data committed in a Secret; secrets are created per region (tools/scripts/region-secrets.sh), never in deploy/']],
    ['missing-env', ['Deployment/sessions: container sessions: env CAPTURE_SECRET_KEY is required and not set (no default)']],
    ['missing-docs-url', ['Deployment/gateway: container gateway: env DOCS_BASE_URL is required and not set (no default)']],
    ['missing-console-origin', ['Deployment/console: container console: env CONSOLE_PUBLIC_ORIGIN is required and not set (no default)']],
    ['http-console-origin', ['Deployment/console: container console: env CONSOLE_PUBLIC_ORIGIN="http://console.us.verity.example.com" must be https in a deployment']],
    ['literal-password', ['Deployment/gateway: container gateway: env NATS_PASSWORD has a literal value; read it from a Secret (valueFrom.secretKeyRef)']],
    [
      'nats-without-tls',
      ['gateway', 'console', 'accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan'].map(
        (app) => `Deployment/${app}: container ${app}: env NATS_TLS_CA is required and not set (no default)`,
      ),
    ],
    [
      'optional-secret',
      ['Deployment/webhook-delivery: container webhook-delivery: env WEBHOOK_SECRET_KEY is required but its secretKeyRef is optional: a missing Secret must stop the rollout'],
    ],
    [
      'bad-value',
      [
        'Deployment/sessions: container sessions: env EVENTS_STREAM_REPLICAS="2" is refused by the service: must be 1, 3 or 5',
        'Deployment/webhook-delivery: container webhook-delivery: env EVENTS_STREAM_REPLICAS="2" is refused by the service: must be 1, 3 or 5',
      ],
    ],
    ['schema-type', ['Deployment/gateway: /spec/template/spec/securityContext/runAsUser must be integer']],
    ['latest-image', ['Deployment/gateway: container gateway: image verity/gateway:latest has no pinned tag']],
    [
      'lone-deployment',
      [
        'NetworkPolicy: no default deny of ingress and egress (podSelector {}, both policyTypes, no rules)',
        'Deployment/lone: no PodDisruptionBudget selects its pods',
        'Deployment/lone: no HorizontalPodAutoscaler scales it',
        'Deployment/lone: no NetworkPolicy of its own selects its pods (only the namespace-wide ones)',
      ],
    ],
  ];
  for (const [name, expected] of cases) {
    it(name, () => {
      const found = problems(renderKustomization(fixture(name)));
      assert.deepEqual(
        found.filter((p) => expected.includes(p)).sort(),
        [...expected].sort(),
        `all of:\n${found.join('\n')}`,
      );
      // the shipped overlay is clean (above), so the fixture's own break is all that is found
      assert.deepEqual(
        found.filter((p) => !expected.includes(p)),
        [],
      );
    });
  }

  it('a kustomize feature the renderer does not know is refused by name, not ignored', () => {
    assert.throws(() => renderKustomization(fixture('unsupported')), /"replicas" is not supported by the renderer/);
  });
});
