import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHECK_TYPES, type CheckType, type EvaluateReply, type ExpectedOutcome } from '@verity/contracts';
import { CREDIT_RECORDINGS, creditOutcome, restingOf, syntheticChecks, syntheticFindings, syntheticIdv } from './synthetic.js';

const OUTCOMES: ExpectedOutcome[] = ['pass', 'review', 'fail', 'doc_quality'];
const ok = (decision: 'approve' | 'review' | 'none' = 'none', decline_floored = false): EvaluateReply => ({
  status: 'ok',
  decision,
  score: 0,
  review_threshold: 0.5,
  tags: [],
  decline_floored,
  fired: [],
  trace: [],
});

describe('synthetic check outcomes (docs/sessions.md)', () => {
  it('pass, fail and review apply to every check type; doc_quality reviews document and face_match only', () => {
    for (const expected of ['pass', 'fail', 'review'] as const) {
      for (const r of syntheticChecks(expected, CHECK_TYPES)) assert.equal(r.outcome, expected, `${expected} ${r.type}`);
    }
    assert.deepEqual(
      syntheticChecks('doc_quality', CHECK_TYPES).map((r) => `${r.type}:${r.outcome}`),
      ['document:review', 'face_match:review', 'liveness:pass', 'credit_history:pass', 'watchlist:pass', 'adverse_media:pass', 'device:pass', 'document_signing:pass'],
    );
  });

  it('keeps the template order and only its checks', () => {
    const checks: CheckType[] = ['watchlist', 'document'];
    assert.deepEqual(syntheticChecks('fail', checks), [
      { type: 'watchlist', outcome: 'fail', reasons: [], score: null },
      { type: 'document', outcome: 'fail', reasons: [], score: null },
    ]);
  });

  it('carries no reasons and no score, whatever the outcome (contract §20)', () => {
    for (const expected of OUTCOMES) {
      for (const c of syntheticChecks(expected, ['document', 'face_match', 'liveness', 'credit_history', 'watchlist'])) {
        assert.deepEqual([c.reasons, c.score], [[], null], `${expected} ${c.type}`);
      }
    }
  });

  it('credit history replays one recorded file per outcome, whose content decides the outcome', () => {
    const seen = new Set<string>();
    for (const expected of OUTCOMES) {
      const file = CREDIT_RECORDINGS[expected];
      assert.equal(file.recording, `credit-history/${expected}`);
      seen.add(file.recording);
    }
    assert.equal(seen.size, 4);
    assert.equal(creditOutcome(CREDIT_RECORDINGS.pass), 'pass');
    assert.equal(creditOutcome(CREDIT_RECORDINGS.review), 'review');
    assert.equal(creditOutcome(CREDIT_RECORDINGS.fail), 'fail');
    assert.equal(creditOutcome(CREDIT_RECORDINGS.doc_quality), 'pass');
    assert.equal(creditOutcome({ ...CREDIT_RECORDINGS.pass, hit: false }), 'review');
  });
});

describe('synthetic findings', () => {
  const checks: CheckType[] = ['watchlist', 'adverse_media', 'document'];

  it('none when the checks pass', () => {
    for (const expected of ['pass', 'doc_quality'] as const) {
      assert.deepEqual(syntheticFindings('ses_abc', syntheticChecks(expected, checks)), []);
    }
  });

  it('a medium possible match for review, a high confirmed match for fail, with the finding fields', () => {
    const review = syntheticFindings('ses_abc', syntheticChecks('review', checks));
    assert.deepEqual(
      review.map((f) => [f.subjectType, f.severity, f.findingType]),
      [
        ['pep', 'medium', 'pep_possible_match'],
        ['adverse_media', 'medium', 'negative_news'],
      ],
    );
    const fail = syntheticFindings('ses_abc', syntheticChecks('fail', checks));
    assert.deepEqual(
      fail.map((f) => [f.subjectType, f.severity, f.findingType]),
      [
        ['sanction', 'high', 'sanction_match'],
        ['adverse_media', 'high', 'financial_crime'],
      ],
    );
    for (const f of [...review, ...fail]) {
      assert.deepEqual(Object.keys(f).sort(), ['evidence', 'findingType', 'id', 'severity', 'sourceAuthority', 'subjectType']);
      assert.ok(f.sourceAuthority.length > 0);
      assert.equal(f.evidence.synthetic, true);
    }
  });

  it('only for watchlist and adverse-media checks', () => {
    assert.deepEqual(syntheticFindings('ses_abc', syntheticChecks('fail', ['document', 'credit_history', 'device'])), []);
  });
});

describe('synthetic identity evidence', () => {
  it('front always, portrait unless doc_quality, selfie with face_match or liveness, in that order', () => {
    assert.deepEqual(syntheticIdv('pass', ['document']), { capture_acquisition: 'camera', available_images: ['portrait', 'front'] });
    assert.deepEqual(syntheticIdv('fail', ['document', 'face_match'])!.available_images, ['portrait', 'front', 'selfie']);
    assert.deepEqual(syntheticIdv('doc_quality', ['document', 'liveness'])!.available_images, ['front', 'selfie']);
    assert.deepEqual(syntheticIdv('doc_quality', ['document'])!.available_images, ['front']);
  });

  it('absent without an identity check', () => {
    assert.equal(syntheticIdv('pass', ['credit_history', 'watchlist']), null);
  });
});

describe('resting status', () => {
  it('by expected outcome alone', () => {
    const rest = (e: ExpectedOutcome) => restingOf(syntheticChecks(e, CHECK_TYPES), ok());
    assert.deepEqual(rest('pass'), { status: 'completed', outcome: 'approved' });
    assert.deepEqual(rest('fail'), { status: 'completed', outcome: 'declined' });
    assert.deepEqual(rest('review'), { status: 'manual_review', outcome: null });
    assert.deepEqual(rest('doc_quality'), { status: 'manual_review', outcome: null });
  });

  it('screening review or a floored decline sends even a clean run to review; approve never overrides a check', () => {
    const pass = syntheticChecks('pass', ['document']);
    const fail = syntheticChecks('fail', ['document']);
    assert.equal(restingOf(pass, ok('review')).status, 'manual_review');
    assert.equal(restingOf(pass, ok('none', true)).status, 'manual_review');
    assert.equal(restingOf(fail, ok('review')).status, 'manual_review');
    assert.deepEqual(restingOf(fail, ok('approve')), { status: 'completed', outcome: 'declined' });
    assert.deepEqual(restingOf(pass, ok('approve')), { status: 'completed', outcome: 'approved' });
  });

  it('a template metadata value screening cannot read errors the run, naming the key', () => {
    const r = restingOf(syntheticChecks('pass', ['document']), { status: 'errored', reason: 'session_metadata_invalid', key: 'tier' });
    assert.equal(r.status, 'errored');
    assert.match((r as { reason: string }).reason, /"tier"/);
  });
});
