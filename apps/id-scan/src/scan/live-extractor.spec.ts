import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import type { DocumentImages, DocumentOutcome, DocumentRead, ReadReason } from '@verity/reading';
import { READER_BUSY_MESSAGE } from '@verity/reading';
import { LiveExtractor, type DocumentReader } from './live-extractor.js';

function read(reasons: ReadReason[] = []): DocumentRead {
  return {
    document: { type: 'passport', format: 'TD3', issuing_country: 'NL', number: 'NX1234567', expiry_date: '2031-04-30' },
    holder: { family_name: 'ERIKSSON', given_names: ['ANNA', 'MARIA'], name_suffix: null, date_of_birth: '1974-08-12', nationality: 'SE', sex: 'F' },
    reasons,
  };
}

const readable = (reasons: ReadReason[] = []): DocumentOutcome => ({ readable: true, source: 'mrz', side: 'front', read: read(reasons), printed: null });

/** A reader that answers `outcome`, or holds each read until `open()` when `held`. */
function reader(outcome: DocumentOutcome | Error, held = false) {
  const seen: DocumentImages[] = [];
  const gates: Array<() => void> = [];
  const r: DocumentReader & { seen: DocumentImages[]; open: () => void } = {
    seen,
    open: () => gates.splice(0).forEach((g) => g()),
    async read(images) {
      seen.push(images);
      if (held) await new Promise<void>((g) => gates.push(g));
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
  return r;
}

const front = Buffer.from('front');
const back = Buffer.from('back');
const live = (deadline = Date.now() + 10_000) => ({ mode: 'live' as const, front, back, deadline });
const admission = { slots: 1, maxWaiting: 8, queueTimeoutMs: 10_000 };
const busy = (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable' && e.message === READER_BUSY_MESSAGE;
/** Lets pending promise continuations run until `cond` holds (at most a few hundred turns of the loop). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setImmediate(r));
}

describe('live extractor: answers', () => {
  it('a read with nothing against it: pass, no reasons, the answer’s fields only; the reader is given both images', async () => {
    const r = reader(readable());
    const x = await new LiveExtractor(r, admission).extract(live());
    assert.deepEqual(x, {
      readable: true,
      outcome: 'pass',
      reasons: [],
      document: { type: 'passport', issuing_country: 'NL', number: 'NX1234567', expiry_date: '2031-04-30' },
      holder: { family_name: 'ERIKSSON', given_names: ['ANNA', 'MARIA'], date_of_birth: '1974-08-12', nationality: 'SE' },
    });
    assert.deepEqual(r.seen, [{ front, back }]);
  });

  it('an expired document is review (the scan has only pass and review), with its reason under the scan’s name', async () => {
    const x = await new LiveExtractor(reader(readable(['expired'])), admission).extract(live());
    assert.ok(x.readable);
    assert.equal(x.outcome, 'review');
    assert.deepEqual(x.reasons, ['document_expired']);
  });

  it('no document around the data, or a front that disagrees with it: review, with the reader’s reasons', async () => {
    for (const reason of ['document_not_found', 'data_mismatch', 'printed_data_unreadable'] as const) {
      const x = await new LiveExtractor(reader(readable([reason])), admission).extract(live());
      assert.ok(x.readable);
      assert.deepEqual([x.outcome, x.reasons], ['review', [reason]]);
    }
  });

  it('every reason is given, most serious first; an issuer that is no country is null', async () => {
    const o = readable(['unknown_issuing_state', 'date_of_birth_invalid']);
    if (o.readable) o.read.document.issuing_country = null;
    const x = await new LiveExtractor(reader(o), admission).extract(live());
    assert.ok(x.readable);
    assert.equal(x.outcome, 'review');
    assert.deepEqual(x.reasons, ['date_of_birth_invalid', 'unknown_issuing_state']);
    assert.equal(x.document.issuing_country, null);
  });

  it('an unreadable document says why, `unreadable` as the scan has always named it', async () => {
    for (const reason of ['check_digit_mismatch', 'unsupported_document'] as const) {
      assert.deepEqual(await new LiveExtractor(reader({ readable: false, reason }), admission).extract(live()), { readable: false, reason });
    }
    assert.deepEqual(await new LiveExtractor(reader({ readable: false, reason: 'unreadable' }), admission).extract(live()), { readable: false, reason: 'no_machine_readable_data' });
  });

  it('refuses test-mode requests without reading', async () => {
    const r = reader(readable());
    await assert.rejects(new LiveExtractor(r, admission).extract({ mode: 'test', expected_outcome: 'pass' }), (e: unknown) => e instanceof DomainError && e.code === 'internal_error');
    assert.equal(r.seen.length, 0);
  });

  it('a read that ends after the caller’s deadline leaves no result (the gateway has answered 503)', async () => {
    const r = reader(readable(), true);
    const pending = new LiveExtractor(r, admission).extract(live(Date.now() + 20));
    await new Promise((t) => setTimeout(t, 40));
    r.open();
    await assert.rejects(pending, (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable');
  });
});

describe('live extractor: admission', () => {
  it('`slots` reads at once, `maxWaiting` more wait, one more is refused at once: busy, 503', async () => {
    const r = reader(readable(), true);
    const x = new LiveExtractor(r, { slots: 1, maxWaiting: 1, queueTimeoutMs: 60_000 });
    const first = x.extract(live(Infinity));
    const second = x.extract(live(Infinity));
    await until(() => r.seen.length > 1);
    assert.equal(r.seen.length, 1, 'one read at a time');
    await assert.rejects(x.extract(live(Infinity)), busy);
    r.open();
    assert.equal((await first).readable, true);
    await until(() => r.seen.length === 2);
    assert.equal(r.seen.length, 2, 'the waiting scan is read once the first is done');
    r.open();
    assert.equal((await second).readable, true);
  });

  it('no waiting room (maxWaiting 0): a second scan while one is read is refused', async () => {
    const r = reader(readable(), true);
    const x = new LiveExtractor(r, { slots: 1, maxWaiting: 0, queueTimeoutMs: 60_000 });
    const first = x.extract(live());
    await assert.rejects(x.extract(live()), busy);
    r.open();
    await first;
    const again = x.extract(live());
    await until(() => r.seen.length === 2);
    r.open();
    assert.equal((await again).readable, true, 'the slot is free again');
  });

  it('a waiting scan gives up after the queue timeout, or at its own deadline when that comes first', async () => {
    const r = reader(readable(), true);
    const byTimeout = new LiveExtractor(r, { slots: 1, maxWaiting: 8, queueTimeoutMs: 30 });
    const held = byTimeout.extract(live(Infinity));
    await assert.rejects(byTimeout.extract(live(Infinity)), busy);
    const byDeadline = new LiveExtractor(r, { slots: 1, maxWaiting: 8, queueTimeoutMs: 60_000 });
    const held2 = byDeadline.extract(live(Infinity));
    await assert.rejects(byDeadline.extract(live(Date.now() + 30)), busy);
    r.open();
    await Promise.all([held, held2]);
    assert.equal(r.seen.length, 2, 'the refused scans were never read');
  });

  it('a read that fails frees its slot', async () => {
    const x = new LiveExtractor(reader(new Error('worker died')), { slots: 1, maxWaiting: 0, queueTimeoutMs: 1000 });
    await assert.rejects(x.extract(live()), /worker died/);
    await assert.rejects(x.extract(live()), /worker died/, 'not refused as busy');
  });
});
