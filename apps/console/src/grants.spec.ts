import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_TEST_DATA_PURGES, NATS_GRANTS, SUBJECTS } from '@verity/contracts';

/** The console's source (this file runs from apps/console/dist/src). */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [readFileSync(path.join(dir, e.name), 'utf8')] : [],
  );
}

describe("the console's NATS identity", () => {
  it('may call exactly the subjects its pages call, and nothing more (docs/security.md, "NATS")', () => {
    const text = sources(SRC).join('\n');
    const called = new Set<string>();
    for (const [, name] of text.matchAll(/\bSUBJECTS\.([A-Za-z0-9]+)/g)) {
      const subject = (SUBJECTS as Record<string, string>)[name!];
      assert.ok(subject, `SUBJECTS.${name} exists`);
      called.add(subject);
    }
    if (/\bCONSOLE_TEST_DATA_PURGES\b/.test(text)) for (const [, s] of CONSOLE_TEST_DATA_PURGES) called.add(s);
    assert.deepEqual([...NATS_GRANTS.console.calls].sort(), [...called].sort());
  });
});
