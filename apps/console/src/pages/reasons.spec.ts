import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REASON_WORDS } from './reasons.js';

/** The codes of the "Reasons" table of docs/reading.md (from dist/src/pages/ up to the repository). */
function documentedCodes(): string[] {
  const text = readFileSync(fileURLToPath(new URL('../../../../../docs/reading.md', import.meta.url)), 'utf8');
  const section = text.split('\n## Reasons\n')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

describe('reasons in plain words', () => {
  it('every code docs/reading.md lists has words in the console', () => {
    const codes = documentedCodes();
    assert.ok(codes.length >= 20, String(codes.length));
    assert.deepEqual(codes.filter((c) => !(c in REASON_WORDS)), []);
  });
});
