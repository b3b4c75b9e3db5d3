import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE } from './index.js';

const docPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../docs/errors.md');

describe('docs/errors.md', () => {
  const rows = new Map<string, { status: number; type: string }>();
  for (const line of readFileSync(docPath, 'utf8').split('\n')) {
    const m = /^\| `([a-z_]+)` \| (\d{3}) \| `([a-z_]+)` \|/.exec(line);
    if (m) rows.set(m[1]!, { status: Number(m[2]), type: m[3]! });
  }

  it('lists every code of the catalogue with its status and type', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      assert.deepEqual(rows.get(code), { status: entry.status, type: entry.type }, code);
    }
  });

  it('lists no code the catalogue does not have', () => {
    for (const code of rows.keys()) assert.ok(code in ERROR_CATALOGUE, code);
  });
});
