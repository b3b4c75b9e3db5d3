/**
 * The subset of kustomize that deploy/ uses, in plain TypeScript, so that `npm test` renders the overlays on a
 * machine without kubectl or kustomize (no maintained kustomize runs from npm; docs/decisions.md). Supported:
 * `resources` (files and directories with their own kustomization), `components` (directories of
 * `kind: Component`, applied to what the including kustomization has gathered so far, as kustomize does),
 * `namespace`, `images` (newName/newTag/digest), `configMapGenerator` (files, literals; a content-hash suffix, references
 * in pod specs renamed) and `patches` (inline JSON 6902 with a kind/name target). Anything else in a kustomization
 * is refused by name, so a feature added to deploy/ without teaching it here fails the check instead of being
 * silently ignored.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fjp from 'fast-json-patch';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

/** One Kubernetes object as rendered. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Kustomization {
  kind?: string;
  resources?: string[];
  components?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  configMapGenerator?: { name: string; files?: string[]; literals?: string[] }[];
  patches?: { target: { kind?: string; name?: string }; patch: string }[];
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'components', 'namespace', 'images', 'configMapGenerator', 'patches']);

export class KustomizeError extends Error {}

/** The objects of a kustomization directory, as `kubectl kustomize <dir>` prints them (modulo order and hash). */
export function renderKustomization(dir: string): K8sObject[] {
  return build(dir, 'Kustomization', []);
}

/**
 * Builds the kustomization (or component) in `dir` onto `objects`: its resources are added, then its components
 * are built onto the whole, then its own generators and patches apply to the whole. A kustomization starts from
 * nothing; a component starts from what the kustomization that names it has gathered, and changes it in place.
 */
function build(dir: string, kind: 'Kustomization' | 'Component', objects: K8sObject[]): K8sObject[] {
  const file = path.join(dir, 'kustomization.yaml');
  const k = parseYaml(readFileSync(file, 'utf8')) as Kustomization & Record<string, unknown>;
  for (const key of Object.keys(k)) {
    if (!SUPPORTED.has(key)) throw new KustomizeError(`${file}: "${key}" is not supported by the renderer of tools/deploy-check (extend it)`);
  }
  if ((k.kind ?? 'Kustomization') !== kind) throw new KustomizeError(`${file}: a ${k.kind ?? 'Kustomization'} where a ${kind} belongs (components: names directories of kind Component)`);
  for (const r of k.resources ?? []) {
    const p = path.resolve(dir, r);
    if (statSync(p).isDirectory()) objects.push(...renderKustomization(p));
    else objects.push(...readObjects(p));
  }
  for (const c of k.components ?? []) build(path.resolve(dir, c), 'Component', objects);
  const renamed = new Map<string, string>();
  for (const g of k.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const f of g.files ?? []) data[path.basename(f)] = readFileSync(path.resolve(dir, f), 'utf8');
    for (const l of g.literals ?? []) {
      const eq = l.indexOf('=');
      data[l.slice(0, eq)] = l.slice(eq + 1);
    }
    const hash = createHash('sha256').update(JSON.stringify({ kind: 'ConfigMap', name: g.name, data })).digest('hex').slice(0, 10);
    renamed.set(g.name, `${g.name}-${hash}`);
    objects.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${g.name}-${hash}` }, data });
  }
  for (const o of objects) renameConfigMapRefs(o, renamed);
  for (const p of k.patches ?? []) {
    const ops = parseYaml(p.patch) as fjp.Operation[];
    let hits = 0;
    for (let i = 0; i < objects.length; i++) {
      const o = objects[i]!;
      if ((p.target.kind && o.kind !== p.target.kind) || (p.target.name && o.metadata.name !== p.target.name)) continue;
      hits++;
      try {
        objects[i] = fjp.applyPatch(structuredClone(o), ops, true).newDocument;
      } catch (e) {
        throw new KustomizeError(`${file}: patch of ${o.kind}/${o.metadata.name} failed: ${(e as Error).message}`);
      }
    }
    if (hits === 0) throw new KustomizeError(`${file}: patch target ${JSON.stringify(p.target)} matches no object`);
  }
  for (const o of objects) {
    if (k.namespace && o.kind !== 'Namespace') o.metadata.namespace = k.namespace;
    for (const img of k.images ?? []) setImage(o, img);
  }
  return objects;
}

function readObjects(file: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (doc.errors.length) throw new KustomizeError(`${file}: ${doc.errors[0]!.message}`);
    const o = doc.toJS() as K8sObject | null;
    if (o) out.push(o);
  }
  return out;
}

/** Every container list of an object's pod template (Deployment, StatefulSet, Job, …) or pod. */
export function podSpecOf(o: K8sObject): PodSpecLike | undefined {
  const spec = o['spec'] as { template?: { spec?: PodSpecLike }; containers?: unknown } | undefined;
  if (!spec) return undefined;
  if (o.kind === 'Pod') return spec as PodSpecLike;
  return spec.template?.spec;
}

export interface ContainerLike {
  name: string;
  image?: string;
  [field: string]: unknown;
}
export interface PodSpecLike {
  containers: ContainerLike[];
  initContainers?: ContainerLike[];
  volumes?: { name: string; configMap?: { name: string } }[];
  [field: string]: unknown;
}

export function containersOf(o: K8sObject): ContainerLike[] {
  const pod = podSpecOf(o);
  return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])] : [];
}

function renameConfigMapRefs(o: K8sObject, renamed: Map<string, string>): void {
  const pod = podSpecOf(o);
  if (!pod || renamed.size === 0) return;
  for (const v of pod.volumes ?? []) if (v.configMap && renamed.has(v.configMap.name)) v.configMap.name = renamed.get(v.configMap.name)!;
  for (const c of containersOf(o)) {
    for (const ef of (c['envFrom'] as { configMapRef?: { name: string } }[] | undefined) ?? []) {
      if (ef.configMapRef && renamed.has(ef.configMapRef.name)) ef.configMapRef.name = renamed.get(ef.configMapRef.name)!;
    }
    for (const e of (c['env'] as { valueFrom?: { configMapKeyRef?: { name: string } } }[] | undefined) ?? []) {
      const ref = e.valueFrom?.configMapKeyRef;
      if (ref && renamed.has(ref.name)) ref.name = renamed.get(ref.name)!;
    }
  }
}

/** kustomize's `images:`: a new name, tag or digest (a digest replaces the tag: `name@sha256:…`). */
function setImage(o: K8sObject, img: { name: string; newName?: string; newTag?: string; digest?: string }): void {
  for (const c of containersOf(o)) {
    if (!c.image) continue;
    const [ref, pinned] = c.image.split('@') as [string, string | undefined];
    const at = ref.lastIndexOf(':');
    const slash = ref.lastIndexOf('/');
    const [name, tag] = at > slash ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, undefined];
    if (name !== img.name) continue;
    const digest = img.digest ?? (img.newTag === undefined ? pinned : undefined);
    const t = img.newTag ?? tag;
    c.image = digest ? `${img.newName ?? name}@${digest}` : `${img.newName ?? name}${t ? `:${t}` : ''}`;
  }
}

/** `Kind/name` of an object, as messages name it. */
export const idOf = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
