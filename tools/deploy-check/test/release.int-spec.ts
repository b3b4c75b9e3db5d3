/**
 * tools/scripts/release.sh, a region's release in one command, against a kubectl that plays a cluster (a script
 * that records each call and answers as a cluster would): the order of the steps, and a failed migration stopping
 * the release before anything of the new release is applied.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../src/index.js';

/** Runs the release against a kubectl whose migrate Job ends `jobState` (Complete or Failed); its calls and exit. */
function release(jobState: 'Complete' | 'Failed'): { calls: string[]; status: number | null; stderr: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'verity-release-'));
  try {
    const log = path.join(dir, 'calls');
    const kubectl = path.join(dir, 'kubectl');
    writeFileSync(
      kubectl,
      [
        '#!/usr/bin/env bash',
        `echo "$*" >> ${JSON.stringify(log)}`,
        'case "$*" in',
        // the Job's conditions: none at the first look, then its end
        `  *"get job verity-migrate"*) if [ -f ${JSON.stringify(`${log}.seen`)} ]; then echo "${jobState} "; else touch ${JSON.stringify(`${log}.seen`)}; fi ;;`,
        '  *"get deployments -o name"*) printf "deployment.apps/gateway\\ndeployment.apps/sessions\\n" ;;',
        '  *"logs job/verity-migrate"*) echo "migrating sessions failed: relation already exists" ;;',
        'esac',
      ].join('\n'),
    );
    chmodSync(kubectl, 0o755);
    const r = spawnSync('bash', [path.join(REPO_ROOT, 'tools/scripts/release.sh'), 'us'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', KUBECTL: kubectl, POLL_SECONDS: '0' },
    });
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((c) => c.replace(REPO_ROOT, '.'));
    return { calls, status: r.status, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('tools/scripts/release.sh', () => {
  it('migrates first and waits for the Job, then applies the region and waits for every rollout', () => {
    const r = release('Complete');
    assert.equal(r.status, 0, r.stderr);
    const jobLooks = r.calls.filter((c) => c.includes('get job verity-migrate'));
    assert.equal(jobLooks.length, 2, 'it looked until the Job completed');
    assert.deepEqual(
      r.calls.filter((c) => !c.includes('get job verity-migrate')),
      [
        '-n verity-us delete job verity-migrate --ignore-not-found',
        'apply -k ./deploy/overlays/us/migrate',
        'apply -k ./deploy/overlays/us',
        '-n verity-us get deployments -o name',
        '-n verity-us rollout status deployment.apps/gateway --timeout=10m',
        '-n verity-us rollout status deployment.apps/sessions --timeout=10m',
      ],
    );
  });

  it('a failed migration stops the release: nothing of the region is applied, and the Job’s log is shown', () => {
    const r = release('Failed');
    assert.equal(r.status, 1);
    assert.ok(!r.calls.includes('apply -k ./deploy/overlays/us'), r.calls.join('\n'));
    assert.match(r.stderr, /the migrations did not complete \(Failed \)/);
    assert.match(r.stderr, /migrating sessions failed/);
  });
});
