import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '@verity/platform';
import { objectStoreEnv, objectStoreOptions } from './object-store-config.js';

const KEY = Buffer.alloc(32, 9).toString('base64');
const load = (vars: Record<string, string>) => objectStoreOptions(loadConfig(objectStoreEnv, vars));
const problems = (vars: Record<string, string>) => {
  try {
    load(vars);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return assert.fail('accepted');
};

describe('object store settings', () => {
  it('postgres (the default) needs nothing', () => {
    assert.equal(load({}), null);
    assert.equal(load({ EVIDENCE_STORE: 'postgres', EVIDENCE_S3_BUCKET: 'ignored' }), null);
  });

  it('s3: the bucket and the key, the endpoint and credentials when given', () => {
    const o = load({ EVIDENCE_STORE: 's3', EVIDENCE_S3_BUCKET: 'verity-evidence-eu', EVIDENCE_OBJECT_KEY: KEY })!;
    assert.deepEqual({ ...o, key: o.key.toString('base64') }, {
      bucket: 'verity-evidence-eu',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: true,
      prefix: '',
      createBucket: false,
      credentials: undefined,
      key: KEY,
    });
    const m = load({
      EVIDENCE_STORE: 's3',
      EVIDENCE_S3_BUCKET: 'b-1',
      EVIDENCE_S3_ENDPOINT: 'http://minio:9000',
      EVIDENCE_S3_ACCESS_KEY_ID: 'id',
      EVIDENCE_S3_SECRET_ACCESS_KEY: 'secret',
      EVIDENCE_S3_PREFIX: 'evidence/',
      EVIDENCE_S3_CREATE_BUCKET: 'true',
      EVIDENCE_OBJECT_KEY: KEY,
    })!;
    assert.equal(m.endpoint, 'http://minio:9000');
    assert.deepEqual(m.credentials, { accessKeyId: 'id', secretAccessKey: 'secret' });
    assert.equal(m.prefix, 'evidence/');
    assert.equal(m.createBucket, true);
  });

  it('s3 without a bucket or key, or with half the credentials, is refused at start naming each variable, never echoing a value', () => {
    const msg = problems({ EVIDENCE_STORE: 's3', EVIDENCE_S3_ACCESS_KEY_ID: 'AKIASECRETID' });
    assert.match(msg, /EVIDENCE_S3_BUCKET: required/);
    assert.match(msg, /EVIDENCE_OBJECT_KEY: required/);
    assert.match(msg, /EVIDENCE_S3_ACCESS_KEY_ID, EVIDENCE_S3_SECRET_ACCESS_KEY: set both or neither/);
    assert.doesNotMatch(msg, /AKIASECRETID/);
    for (const [k, v] of [
      ['EVIDENCE_OBJECT_KEY', 'c2hvcnQ='],
      ['EVIDENCE_S3_BUCKET', 'Not_A_Bucket'],
      ['EVIDENCE_S3_ENDPOINT', 'minio:9000'],
      ['EVIDENCE_STORE', 'disk'],
    ] as const) {
      assert.throws(() => load({ EVIDENCE_STORE: 's3', EVIDENCE_S3_BUCKET: 'b-1', EVIDENCE_OBJECT_KEY: KEY, [k]: v }), (e: Error) => e instanceof ConfigError && e.message.includes(k), k);
    }
  });
});
