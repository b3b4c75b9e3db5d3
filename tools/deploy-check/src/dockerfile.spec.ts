/** docker/Dockerfile and .dockerignore against the house rules (the lint in dockerfile.ts), and a broken Dockerfile caught. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { copiedSources, dockerfileProblems, ignoredBy } from './dockerfile.js';
import { REPO_ROOT } from './paths.js';

const shipped = readFileSync(path.join(REPO_ROOT, 'docker', 'Dockerfile'), 'utf8');
const ignored = ignoredBy(readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8'));

/** Files under `dir` (relative to the repository), skipping what no build needs: dependencies and builds. */
function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(path.join(REPO_ROOT, dir))) {
    if (e === 'node_modules' || e === 'dist') continue;
    const rel = path.posix.join(dir, e);
    if (statSync(path.join(REPO_ROOT, rel)).isDirectory()) sources(rel, out);
    else if (!rel.endsWith('.tsbuildinfo')) out.push(rel);
  }
  return out;
}

describe('docker/Dockerfile', () => {
  it('passes the lint: pinned Node 24 base images, numeric USER in every stage that runs, apt without recommends and lists, no ADD', () => {
    assert.deepEqual(dockerfileProblems(shipped), []);
    assert.match(shipped, /^FROM node:24\.\d+-bookworm-slim AS runtime$/m);
  });

  it('a broken Dockerfile is caught, each problem with its line or stage', () => {
    const broken = readFileSync(path.join(REPO_ROOT, 'tools', 'deploy-check', 'test', 'fixtures', 'Dockerfile.broken'), 'utf8');
    assert.deepEqual(dockerfileProblems(broken), [
      'line 2: base image node:latest is not pinned by a tag (never latest)',
      'line 5: base image node:22-bookworm-slim pins no minor version (e.g. node:24.21-bookworm-slim)',
      'line 6: apt-get install without --no-install-recommends',
      'line 6: apt-get install without rm -rf /var/lib/apt/lists/* in the same RUN',
      'line 7: ADD: use COPY (ADD fetches URLs and unpacks archives)',
      'stage runtime: USER node is not numeric (runAsNonRoot can only verify a numeric user)',
      'stage app: USER 0:0 is root',
      'stage other: USER node is not numeric (runAsNonRoot can only verify a numeric user)',
    ]);
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, builds, git and screenshots out of the build context', () => {
    for (const p of ['node_modules/pg/package.json', 'apps/gateway/node_modules/x/index.js', 'apps/gateway/dist/src/main.js', 'libs/platform/service/dist/src/index.js', '.git/HEAD', 'e2e-screenshots/capture/a.png', 'tools/stack/dist/tsconfig.tsbuildinfo']) {
      assert.equal(ignored(p), true, p);
    }
  });

  it('keeps every source the Dockerfile copies in the build context', () => {
    const copied = copiedSources(shipped);
    assert.deepEqual(copied, ['package.json', 'package-lock.json', 'apps', 'libs', 'tools', 'e2e', 'tsconfig.base.json', 'tsconfig.json', 'docs/errors.md']);
    const files = copied.flatMap((c) => (statSync(path.join(REPO_ROOT, c)).isDirectory() ? sources(c) : [c]));
    assert.ok(files.length > 100, `${files.length} files`);
    assert.deepEqual(
      files.filter((f) => ignored(f)),
      [],
    );
  });
});
