/**
 * The images' dependencies (docker/Dockerfile): the apps built on the `lean` stage run without the reading engines,
 * their models and the image libraries, which the build removes from their node_modules. Each such app's code is
 * loaded here as its image's command loads it, with those packages refused: a static import of one of them fails
 * the load. (Every module is resolved before any code runs, so a command that then stops on its missing
 * configuration has loaded all it imports.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../src/index.js';

const dockerfile = readFileSync(path.join(REPO_ROOT, 'docker', 'Dockerfile'), 'utf8');

/** The packages the build removes from the lean node_modules: the `rm -rf` of its /lean/node_modules line. */
function leanRemoved(): string[] {
  const m = /cd \/lean\/node_modules && rm -rf ([^\n]+)/.exec(dockerfile);
  assert.ok(m, 'the Dockerfile makes /lean/node_modules');
  return m[1]!.trim().split(/\s+/);
}

/** Each stage built on `lean`, and the JavaScript files its command runs. */
function leanStages(): { stage: string; entries: string[] }[] {
  const out: { stage: string; entries: string[] }[] = [];
  for (const block of dockerfile.split(/^(?=FROM )/m)) {
    const from = /^FROM lean AS ([a-z-]+)$/m.exec(block);
    if (!from) continue;
    const command = [...block.matchAll(/^(?:CMD|ENTRYPOINT) (.+)$/gm)].map((c) => c[1]!).join(' ');
    // `for s in a b c; do node apps/$s/dist/src/migrate.js …` names one file per service
    const loop = /for s in ([a-z -]+); do node (apps\/\$s\/[^ ]+\.js)/.exec(command);
    const entries = loop ? loop[1]!.trim().split(/\s+/).map((s) => loop[2]!.replace('$s', s)) : [...command.matchAll(/"((?:apps|tools)\/[^"]+\.js)"/g)].map((e) => e[1]!);
    out.push({ stage: from[1]!, entries });
  }
  return out;
}

describe('lean images (docker/Dockerfile)', () => {
  const removed = leanRemoved();

  it('the lean stages are every app but evidence and id-scan, and the reading engines are among what they lack', () => {
    assert.deepEqual(leanStages().map((s) => s.stage).sort(), ['accounts', 'admin', 'applicants', 'console', 'gateway', 'migrate', 'screening', 'sessions', 'webhook-delivery']);
    for (const p of ['@tensorflow', '@vladmandic', 'tesseract.js-core', 'sharp']) assert.ok(removed.includes(p), p);
    assert.match(dockerfile, /^FROM full AS evidence$/m);
    assert.match(dockerfile, /^FROM full AS id-scan$/m);
  });

  it("each lean app's code loads without them", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verity-lean-'));
    try {
      // a resolve hook that refuses the removed packages, as their absence from node_modules would
      writeFileSync(
        path.join(dir, 'hooks.mjs'),
        `const removed = ${JSON.stringify(removed)};
export async function resolve(specifier, context, next) {
  const hit = removed.find((p) => specifier === p || specifier.startsWith(p + '/'));
  if (hit) throw new Error('LEAN-REFUSED ' + specifier + ' (imported by ' + context.parentURL + ')');
  return next(specifier, context);
}
`,
      );
      writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(dir, 'hooks.mjs')).href)});\n`);
      for (const { stage, entries } of leanStages()) {
        assert.ok(entries.length > 0, `${stage}: its command names the code it runs`);
        for (const entry of entries) {
          // no configuration (an empty environment but PATH): the command stops at its configuration, after loading
          const r = spawnSync(process.execPath, ['--import', path.join(dir, 'register.mjs'), path.join(REPO_ROOT, entry), ...(stage === 'admin' ? ['--help'] : [])], {
            encoding: 'utf8',
            env: { PATH: process.env['PATH'] ?? '' },
            timeout: 60_000,
          });
          const output = `${r.stdout}${r.stderr}`;
          assert.doesNotMatch(output, /LEAN-REFUSED|ERR_MODULE_NOT_FOUND/, `${stage} (${entry}):\n${output.slice(0, 2000)}`);
          assert.match(output, stage === 'admin' ? /usage|Usage|org create/ : /invalid configuration|must be|required|DATABASE|REGION|refused|ECONNREFUSED|not reachable/i, `${stage} (${entry}) got past its imports:\n${output.slice(0, 2000)}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
