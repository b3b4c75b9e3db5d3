/**
 * tools/mkproj.sh: the service it generates, in a scratch copy of the repository's layout (its tsconfig.base.json,
 * libs and node_modules linked in), builds with `tsc -b` and its first spec passes; the root tsconfig.json
 * references it; a second run refuses to overwrite it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../src/stack.js';

const SCRIPT = path.join(REPO_ROOT, 'tools/mkproj.sh');
// the compiler `npm run build` uses: the linked libs' build info is its own, so only the new service compiles
const TSC = path.join(REPO_ROOT, 'node_modules/tsgo/bin/tsc');

let root: string;

function run(cmd: string, args: string[], vars: Record<string, string> = {}) {
  // a test runner of its own, not one nested in this file's
  const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
  const r = spawnSync(cmd, args, { cwd: root, env: { ...env, ...vars }, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'verity-mkproj-'));
  for (const shared of ['tsconfig.base.json', 'libs', 'node_modules']) symlinkSync(path.join(REPO_ROOT, shared), path.join(root, shared));
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ files: [], references: [{ path: 'libs/platform/service' }] }));
});

after(() => rmSync(root, { recursive: true, force: true }));

describe('tools/mkproj.sh', () => {
  it('generates a service that builds and whose first spec passes', () => {
    const made = run('bash', [SCRIPT, 'risk-scores'], { MKPROJ_ROOT: root });
    assert.equal(made.status, 0, made.out);
    const app = path.join(root, 'apps/risk-scores');
    for (const f of ['package.json', 'tsconfig.json', 'src/config.ts', 'src/main.ts', 'src/migrate.ts', 'src/app.module.ts', 'src/index.ts', 'src/database/migrations.ts', 'src/config.spec.ts']) {
      assert.ok(existsSync(path.join(app, f)), f);
    }
    const pkg = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { name: string; nx: { tags: string[] } };
    assert.deepEqual([pkg.name, pkg.nx.tags], ['@verity/risk-scores', ['type:app', 'scope:risk-scores']]);
    const config = readFileSync(path.join(app, 'src/config.ts'), 'utf8');
    for (const part of ['export const riskScoresEnv', 'export const RISK_SCORES_SERVICE: ServiceDefinition<typeof riskScoresEnv>', "name: 'risk-scores'", 'export type RiskScoresConfig = ServiceConfigOf<typeof riskScoresEnv>']) {
      assert.ok(config.includes(part), part);
    }
    const refs = (JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as { references: { path: string }[] }).references;
    assert.deepEqual(refs.map((r) => r.path), ['libs/platform/service', 'apps/risk-scores']);

    const built = run(process.execPath, [TSC, '-b', app]);
    assert.equal(built.status, 0, built.out);
    const spec = run(process.execPath, ['--test', '--test-reporter=tap', path.join(app, 'dist/src/config.spec.js')]);
    assert.equal(spec.status, 0, spec.out);
    assert.match(spec.out, /# pass 2/);
  });

  it('refuses a name that is not lower-case words joined by "-", and an app that exists', () => {
    assert.equal(run('bash', [SCRIPT, 'RiskScores'], { MKPROJ_ROOT: root }).status, 64);
    assert.equal(run('bash', [SCRIPT], { MKPROJ_ROOT: root }).status, 64);
    assert.equal(run('bash', [SCRIPT, 'risk-scores'], { MKPROJ_ROOT: root }).status, 73);
  });
});
