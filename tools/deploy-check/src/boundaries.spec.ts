/**
 * The rules that keep test code out of production, and the type-aware lint that catches lost promises: proved on
 * the fixtures in tools/deploy-check/lint-fixtures (which `npm run lint` skips) with the repository's own
 * eslint.config.mjs and .oxlintrc.json, and checked on every workspace's package.json.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { REPO_ROOT } from './paths.js';

const FIXTURES = path.join(REPO_ROOT, 'tools', 'deploy-check', 'lint-fixtures');

/** The rule ids and lines of what oxlint's type-aware rules (.oxlintrc.json) report for one fixture. */
function typeAwareProblems(file: string): string[] {
  const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'oxlint');
  let out: string;
  try {
    out = execFileSync(bin, ['--type-aware', '--format', 'json', path.join(FIXTURES, file)], { cwd: REPO_ROOT, encoding: 'utf8' });
  } catch (e) {
    // problems found: exit status 1, the report on stdout all the same
    out = (e as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as { diagnostics: { code: string; labels: { span: { line: number } }[] }[] };
  return report.diagnostics.map((d) => `${d.labels[0]!.span.line}: ${d.code}`);
}

/** The rule ids and lines of what ESLint reports for one fixture. */
async function problems(file: string): Promise<string[]> {
  // `ignore: false` lints the fixtures, which the config's `ignores` leave out of `npm run lint`
  const eslint = new ESLint({ cwd: REPO_ROOT, ignore: false });
  const [result] = await eslint.lintFiles([path.join(FIXTURES, file)]);
  return result!.messages.map((m) => `${m.line}: ${m.ruleId ?? m.message}`);
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  nx?: { tags?: string[] };
}

/** Every workspace's package.json (apps, libs, tools, e2e). */
function workspaces(): { dir: string; manifest: Manifest }[] {
  const folders = (top: string) =>
    readdirSync(path.join(REPO_ROOT, top), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(top, e.name));
  // libs/<kind>/<name>
  const dirs = [...folders('apps'), ...folders('tools'), ...folders('libs').flatMap(folders)];
  return [...dirs, 'e2e'].flatMap((dir) => {
    try {
      return [{ dir, manifest: JSON.parse(readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8')) as Manifest }];
    } catch {
      return [];
    }
  });
}

describe('eslint.config.mjs', () => {
  before(() => {
    // the module-boundary rule reads Nx's cached project graph, as `npm run lint` makes it first
    execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'nx'), ['show', 'projects'], { cwd: REPO_ROOT, stdio: 'ignore' });
  });

  it('refuses an import of the test library (type:testing) from production code', async () => {
    assert.deepEqual(await problems('production.ts'), ['2: @nx/enforce-module-boundaries']);
  });

  it('allows the same import in a test file', async () => {
    assert.deepEqual(await problems('production.spec.ts'), []);
  });

  it('refuses a floating promise and an async listener whose promise an event emitter would drop', async () => {
    assert.deepEqual(typeAwareProblems('floating.ts'), ['7: typescript(no-floating-promises)', '11: typescript(no-misused-promises)']);
    assert.deepEqual(await problems('floating.ts'), [], 'ESLint leaves them to oxlint');
  });
});

describe('package.json of every workspace', () => {
  it('lists a type:testing project only among the devDependencies of a production project', () => {
    const all = workspaces();
    const testing = new Set(all.filter((w) => w.manifest.nx?.tags?.includes('type:testing')).map((w) => w.manifest.name));
    assert.ok(testing.has('@verity/testing'));
    const offending = all
      .filter((w) => !testing.has(w.manifest.name))
      .flatMap((w) => Object.keys(w.manifest.dependencies ?? {}).filter((d) => testing.has(d)).map((d) => `${w.dir}: ${d}`));
    assert.deepEqual(offending, []);
  });
});
