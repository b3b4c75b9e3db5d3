/**
 * Validation of rendered objects against the Kubernetes OpenAPI schemas (kubernetes-models, ajv underneath): each
 * problem as `Kind/name: <path> <message>`.
 */
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy, Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { idOf, type K8sObject } from './kustomize.js';

interface Validatable {
  validate(): void;
}
const MODELS: Record<string, new (data: never) => Validatable> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
};

interface AjvIssue {
  instancePath: string;
  message?: string;
}

export function schemaProblems(objects: K8sObject[]): string[] {
  const out: string[] = [];
  for (const o of objects) {
    const Model = MODELS[`${o.apiVersion}/${o.kind}`];
    if (!Model) {
      out.push(`${idOf(o)}: no schema for ${o.apiVersion} ${o.kind} (add it to tools/deploy-check/src/schemas.ts)`);
      continue;
    }
    try {
      new Model(o as never).validate();
    } catch (e) {
      const issues = (e as { errors?: AjvIssue[] }).errors;
      if (!issues) throw e;
      for (const i of issues) out.push(`${idOf(o)}: ${i.instancePath || '/'} ${i.message ?? 'is invalid'}`);
    }
  }
  return out;
}
