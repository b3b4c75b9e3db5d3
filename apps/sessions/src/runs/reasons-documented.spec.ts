import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NOT_CONFIGURED, WATCHLIST_HIT } from './live-run.js';
import { POLICY_REASONS } from './policy.js';

describe('the reasons a live run adds', () => {
  it('are each listed in docs/reading.md ("Reasons") with what they mean and what the applicant can do', () => {
    const text = readFileSync(fileURLToPath(new URL('../../../../../docs/reading.md', import.meta.url)), 'utf8');
    const section = text.split('\n## Reasons\n')[1]!.split('\n## ')[0]!;
    for (const code of [...POLICY_REASONS, NOT_CONFIGURED, WATCHLIST_HIT, 'automation', 'bot_score_low', 'collection_absent']) {
      const row = section.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
      assert.ok(row, code);
      // code, check, meaning, what to do: four filled cells
      assert.equal(row.split(' | ').filter((c) => c.trim().length > 0).length >= 4, true, row);
    }
  });
});
