import { isBoxKey } from '@verity/keys';
import { ConfigError, envBool } from '@verity/platform';
import { z } from 'zod';

/** Where image bytes go (docs/evidence.md, "Where the bytes are"; docs/operations.md, "Object storage"). */
export const objectStoreEnv = {
  /** `postgres` (the service's own schema, the default) or `s3` (an S3-compatible object store, the variables below). */
  EVIDENCE_STORE: z.enum(['postgres', 's3']).default('postgres'),
  /** The region's bucket (created by the operator, never shared with the other region). */
  EVIDENCE_S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name').optional(),
  /** The store's URL (MinIO, Ceph RGW, another provider); unset, AWS S3 in `EVIDENCE_S3_REGION`. */
  EVIDENCE_S3_ENDPOINT: z.string().regex(/^https?:\/\/[^/\s]+\/?$/, 'must be http:// or https:// and a host (with its port), e.g. http://minio:9000').optional(),
  EVIDENCE_S3_REGION: z.string().min(1).default('us-east-1'),
  /** Bucket in the path (`endpoint/bucket/key`: MinIO and most self-hosted stores) rather than in the host name. */
  EVIDENCE_S3_FORCE_PATH_STYLE: envBool.default(true),
  /** Prefix of every object's name (e.g. `evidence/`), for a bucket shared with nothing else of another region. */
  EVIDENCE_S3_PREFIX: z.string().regex(/^[A-Za-z0-9!_.*'()/-]{0,200}$/, 'must be a plain object-name prefix').default(''),
  /** Static credentials; unset, the SDK's chain (a pod's web identity, instance metadata, AWS_* variables). */
  EVIDENCE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  EVIDENCE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /**
   * Creates the bucket at start when it does not exist (a trial's in-cluster MinIO); off, a missing bucket stops the
   * service at start. Production credentials need no right to create buckets.
   */
  EVIDENCE_S3_CREATE_BUCKET: envBool.default(false),
  /** The region's key sealing every object (32 bytes, standard base64: `openssl rand -base64 32`). */
  EVIDENCE_OBJECT_KEY: z.string().refine(isBoxKey, 'must be 32 bytes in standard base64 (openssl rand -base64 32)').optional(),
};
export type ObjectStoreConfig = z.infer<z.ZodObject<typeof objectStoreEnv>>;

export interface ObjectStoreOptions {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  prefix: string;
  createBucket: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  key: Buffer;
}

/**
 * The object store's settings when `EVIDENCE_STORE` is `s3`, else null. A missing bucket or key, or half a pair of
 * credentials, stops the service at start with one line per problem.
 */
export function objectStoreOptions(cfg: ObjectStoreConfig): ObjectStoreOptions | null {
  if (cfg.EVIDENCE_STORE !== 's3') return null;
  const problems: string[] = [];
  if (!cfg.EVIDENCE_S3_BUCKET) problems.push('EVIDENCE_S3_BUCKET: required when EVIDENCE_STORE is s3');
  if (!cfg.EVIDENCE_OBJECT_KEY) problems.push('EVIDENCE_OBJECT_KEY: required when EVIDENCE_STORE is s3 (openssl rand -base64 32, one per region)');
  if (!cfg.EVIDENCE_S3_ACCESS_KEY_ID !== !cfg.EVIDENCE_S3_SECRET_ACCESS_KEY) {
    problems.push('EVIDENCE_S3_ACCESS_KEY_ID, EVIDENCE_S3_SECRET_ACCESS_KEY: set both or neither');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    bucket: cfg.EVIDENCE_S3_BUCKET!,
    endpoint: cfg.EVIDENCE_S3_ENDPOINT,
    region: cfg.EVIDENCE_S3_REGION,
    forcePathStyle: cfg.EVIDENCE_S3_FORCE_PATH_STYLE,
    prefix: cfg.EVIDENCE_S3_PREFIX,
    createBucket: cfg.EVIDENCE_S3_CREATE_BUCKET,
    credentials: cfg.EVIDENCE_S3_ACCESS_KEY_ID ? { accessKeyId: cfg.EVIDENCE_S3_ACCESS_KEY_ID, secretAccessKey: cfg.EVIDENCE_S3_SECRET_ACCESS_KEY! } : undefined,
    key: Buffer.from(cfg.EVIDENCE_OBJECT_KEY!, 'base64'),
  };
}
