/**
 * The project's own rules for deploy/ (docs/operations.md, "Checks of the manifests"), beyond the Kubernetes
 * schemas: each broken rule as `Kind/name: [container <c>:] <field> <what is wrong>`.
 */
import { containersOf, idOf, podSpecOf, type ContainerLike, type K8sObject } from './kustomize.js';
import { HTTPS_IN_CLUSTER, REQUIRED_IN_CLUSTER, type EnvShape } from './services.js';

/** Names of variables that hold secrets: never a literal value in a manifest or a ConfigMap. */
export const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIAL|PRIVATE|_KEY$|^DATABASE_URL$|^SMTP_URL$|^REDIS_URL_AUTH$)/;

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);
const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}

const labelsMatch = (sel: LabelSelector | undefined, labels: Record<string, string>) =>
  !!sel && !sel.matchExpressions?.length && Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels[k] === v);

export interface PolicyOptions {
  /** Environment schemas by container name; containers not named here are not checked for their environment. */
  envSchemas: Record<string, EnvShape>;
}

export function policyProblems(objects: K8sObject[], opts: PolicyOptions): string[] {
  const out: string[] = [];
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, (o['data'] ?? {}) as Record<string, string>]));

  for (const o of objects) {
    if (o.kind === 'Secret' && (o['data'] !== undefined || o['stringData'] !== undefined)) {
      out.push(`${idOf(o)}: data committed in a Secret; secrets are created per region (tools/scripts/region-secrets.sh), never in deploy/`);
    }
    if (o.kind === 'ConfigMap') {
      for (const k of Object.keys((o['data'] ?? {}) as object)) {
        if (SECRET_NAME.test(k)) out.push(`${idOf(o)}: data.${k} looks like a secret; put it in a Secret created per region`);
      }
    }
    if (!WORKLOADS.has(o.kind)) continue;
    const pod = podSpecOf(o);
    if (!pod) {
      out.push(`${idOf(o)}: no pod template`);
      continue;
    }
    const podSc = (pod['securityContext'] ?? {}) as SecurityContext;
    if (podSc.runAsNonRoot !== true) out.push(`${idOf(o)}: spec.template.spec.securityContext.runAsNonRoot must be true`);
    if (podSc.seccompProfile?.type !== 'RuntimeDefault') out.push(`${idOf(o)}: spec.template.spec.securityContext.seccompProfile.type must be RuntimeDefault`);
    for (const c of containersOf(o)) {
      const where = `${idOf(o)}: container ${c.name}:`;
      const sc = (c['securityContext'] ?? {}) as SecurityContext;
      const user = sc.runAsUser ?? podSc.runAsUser;
      if (user === undefined) out.push(`${where} runAsUser is not set (a numeric user lets runAsNonRoot verify it)`);
      else if (typeof user !== 'number') out.push(`${where} runAsUser ${JSON.stringify(user)} is not a number`);
      else if (user === 0) out.push(`${where} runAsUser is 0 (root)`);
      if (sc.runAsNonRoot === false) out.push(`${where} securityContext.runAsNonRoot is false`);
      if (sc.readOnlyRootFilesystem !== true) out.push(`${where} securityContext.readOnlyRootFilesystem must be true`);
      if (sc.allowPrivilegeEscalation !== false) out.push(`${where} securityContext.allowPrivilegeEscalation must be false`);
      if (sc.privileged) out.push(`${where} securityContext.privileged must not be set`);
      if (!sc.capabilities?.drop?.includes('ALL')) out.push(`${where} securityContext.capabilities.drop must include ALL`);
      if (sc.capabilities?.add?.length) out.push(`${where} securityContext.capabilities.add must be empty`);
      if (LONG_RUNNING.has(o.kind) && !(pod.initContainers ?? []).includes(c)) {
        if (!c['livenessProbe']) out.push(`${where} livenessProbe is missing`);
        if (!c['readinessProbe']) out.push(`${where} readinessProbe is missing`);
      }
      const image = c.image ?? '';
      const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
      if (!tag || tag === 'latest') out.push(`${where} image ${image || '(none)'} has no pinned tag`);
      const res = c['resources'] as { requests?: Record<string, string>; limits?: Record<string, string> } | undefined;
      if (!res?.requests?.['cpu'] || !res.requests['memory']) out.push(`${where} resources.requests.cpu and .memory must be set`);
      if (!res?.limits?.['memory']) out.push(`${where} resources.limits.memory must be set`);
      out.push(...envProblems(where, c, configMaps, opts.envSchemas[c.name]));
    }
  }

  const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const defaultDeny = policies.some((p) => {
    const s = p['spec'] as { podSelector?: LabelSelector; policyTypes?: string[]; ingress?: unknown[]; egress?: unknown[] };
    return (
      Object.keys(s.podSelector?.matchLabels ?? {}).length === 0 &&
      !s.podSelector?.matchExpressions?.length &&
      s.policyTypes?.includes('Ingress') &&
      s.policyTypes?.includes('Egress') &&
      !s.ingress?.length &&
      !s.egress?.length
    );
  });
  if (!defaultDeny) out.push('NetworkPolicy: no default deny of ingress and egress (podSelector {}, both policyTypes, no rules)');
  for (const o of objects) {
    if (o.kind !== 'Deployment' && o.kind !== 'StatefulSet') continue;
    const labels = ((o['spec'] as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata?.labels ?? {}) as Record<string, string>;
    if (!pdbs.some((p) => labelsMatch((p['spec'] as { selector?: LabelSelector }).selector, labels))) out.push(`${idOf(o)}: no PodDisruptionBudget selects its pods`);
    if (o.kind === 'Deployment') {
      const hpa = hpas.some((h) => {
        const ref = (h['spec'] as { scaleTargetRef?: { kind?: string; name?: string } }).scaleTargetRef;
        return ref?.kind === 'Deployment' && ref.name === o.metadata.name;
      });
      if (!hpa) out.push(`${idOf(o)}: no HorizontalPodAutoscaler scales it`);
    }
    const own = policies.some((p) => {
      const sel = (p['spec'] as { podSelector?: LabelSelector }).podSelector;
      return Object.keys(sel?.matchLabels ?? {}).length > 0 && labelsMatch(sel, labels);
    });
    if (!own) out.push(`${idOf(o)}: no NetworkPolicy of its own selects its pods (only the namespace-wide ones)`);
  }
  return out;
}

function envProblems(where: string, c: ContainerLike, configMaps: Map<string, Record<string, string>>, schema: EnvShape | undefined): string[] {
  const out: string[] = [];
  const set = new Map<string, { literal?: string; optional: boolean }>();
  for (const ef of (c['envFrom'] as { configMapRef?: { name: string }; secretRef?: { name: string } }[] | undefined) ?? []) {
    if (ef.secretRef) out.push(`${where} envFrom secretRef ${ef.secretRef.name}: name each secret variable with env[].valueFrom.secretKeyRef`);
    if (ef.configMapRef) {
      const data = configMaps.get(ef.configMapRef.name);
      if (!data) out.push(`${where} envFrom configMapRef ${ef.configMapRef.name} is not among the rendered ConfigMaps`);
      for (const [k, v] of Object.entries(data ?? {})) set.set(k, { literal: v, optional: false });
    }
  }
  for (const e of (c['env'] as EnvVar[] | undefined) ?? []) {
    if (e.value !== undefined && SECRET_NAME.test(e.name)) out.push(`${where} env ${e.name} has a literal value; read it from a Secret (valueFrom.secretKeyRef)`);
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    set.set(e.name, { literal: e.value, optional: ref?.optional === true });
  }
  if (!schema) return out;
  for (const [name, s] of Object.entries(schema)) {
    const mayBeUnset = s.safeParse(undefined).success && !REQUIRED_IN_CLUSTER.includes(name);
    const got = set.get(name);
    if (!got) {
      if (!mayBeUnset) out.push(`${where} env ${name} is required and not set (no default)`);
      continue;
    }
    if (got.optional && !mayBeUnset) out.push(`${where} env ${name} is required but its secretKeyRef is optional: a missing Secret must stop the rollout`);
    if (got.literal !== undefined) {
      const r = s.safeParse(got.literal);
      if (!r.success) out.push(`${where} env ${name}=${JSON.stringify(got.literal)} is refused by the service: ${r.error?.issues.map((i) => i.message).join('; ')}`);
      else if (HTTPS_IN_CLUSTER.includes(name) && !got.literal.startsWith('https://')) out.push(`${where} env ${name}=${JSON.stringify(got.literal)} must be https in a deployment`);
    }
  }
  return out;
}
