import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventSubject, subjectRoot, type Session } from '@verity/contracts';
import { closeOperators, E2E } from './support.js';
import { account, closeStreams, createSession, eventsOf, newApplicant, newTemplate, setup, streamEvents, waitStatus, type One, type StreamMessage } from './sessions-support.js';

after(async () => {
  await closeOperators();
  await closeStreams();
});

const summary = (msgs: StreamMessage[]) => msgs.map((m) => [m.event.data.sessionId, m.event.type, m.event.data.status, m.event.data.outcome]);

/** The checks of every message: message id = event id, subject by type, the payload shape, no personal data. */
function assertWellFormed(msgs: StreamMessage[], region: 'us' | 'eu' = 'us'): void {
  const root = subjectRoot(region, E2E.prefix);
  for (const m of msgs) {
    assert.equal(m.msgId, m.event.id);
    assert.match(m.event.id, /^evt_[A-Za-z0-9]{24}$/);
    assert.equal(m.subject, eventSubject(root, m.event.type));
    // a resting session's events carry its checks (codes and scores); a cancellation only the reference fields
    const resting = m.event.type === 'kyc.session.completed' || m.event.type === 'kyc.session.manual_review_requested';
    assert.deepEqual(Object.keys(m.event.data).sort(), resting ? ['checks', 'occurredAt', 'outcome', 'sessionId', 'status'] : ['occurredAt', 'outcome', 'sessionId', 'status']);
    for (const c of m.event.data.checks ?? []) assert.deepEqual(Object.keys(c).sort(), ['outcome', 'reasons', 'score', 'type']);
    assert.equal(m.event.timestamp, m.event.data.occurredAt);
    assert.ok(!Number.isNaN(Date.parse(m.event.data.occurredAt)) && m.event.data.occurredAt.endsWith('Z'));
    const text = JSON.stringify(m.event);
    for (const personal of ['Doe', 'Jane', 'jane.doe@example.com', '1990-04-01', 'Lisbon']) assert.ok(!text.includes(personal), `${personal} in ${text}`);
  }
  assert.equal(new Set(msgs.map((m) => m.event.id)).size, msgs.length, 'each event once');
}

describe('session events on the region stream', () => {
  it('a test session for each expected outcome rests within 3 s and the stream carries exactly the delivered events', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c, { checks: ['document', 'face_match', 'watchlist'] });
    const made: Record<string, string> = {};
    const resting: Array<Promise<Session>> = [];
    for (const expected of ['pass', 'review', 'fail', 'doc_quality']) {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: expected, metadata: { location: 'Lisbon' } });
      assert.equal(res.status, 201);
      made[expected] = res.body.data.id;
      resting.push(waitStatus(c, res.body.data.id)); // at rest within 3 s of its create
    }
    const rested = await Promise.all(resting);
    const msgs = await eventsOf('us', Object.values(made));
    assert.deepEqual(
      summary(msgs).sort(),
      [
        [made.pass, 'kyc.session.completed', 'completed', 'approved'],
        [made.review, 'kyc.session.manual_review_requested', 'manual_review', null],
        [made.fail, 'kyc.session.completed', 'completed', 'declined'],
        [made.doc_quality, 'kyc.session.manual_review_requested', 'manual_review', null],
      ].sort(),
    );
    assertWellFormed(msgs);
    // occurredAt is the transition: the session's updated_at at rest
    for (const s of rested) assert.equal(msgs.find((m) => m.event.data.sessionId === s.id)!.event.data.occurredAt, s.updated_at);
    assert.ok(msgs.every((m) => m.event.mode === 'test'));
  });

  it('operator actions emit cancelled, manual_review_requested and completed, in order; notes, errored and pending emit nothing', async () => {
    const { c } = await account('us', 'live');
    const { applicantId, templateId } = await setup(c);
    const a = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    const b = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    const quiet = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    assert.equal((await c<One>('POST', `/v1/sessions/${quiet}/notes`, { body: { note: 'waiting' } })).status, 200);
    assert.equal((await c<One>('POST', `/v1/sessions/${a}/cancel`, { body: { reason: 'customer asked' } })).status, 200);
    assert.equal((await c<One>('POST', `/v1/sessions/${b}/review`, { body: { reason: 'manual check' } })).status, 200);
    assert.equal((await c<One>('POST', `/v1/sessions/${b}/notes`, { body: { note: 'looked fine' } })).status, 200);
    const decided = await c<One>('POST', `/v1/sessions/${b}/decision`, { body: { outcome: 'approved' } });
    assert.equal(decided.status, 200);
    // refused actions emit nothing
    assert.equal((await c('POST', `/v1/sessions/${a}/review`)).status, 409);

    const msgs = await eventsOf('us', [a, b, quiet]);
    assert.deepEqual(summary(msgs), [
      [a, 'kyc.session.cancelled', 'cancelled', null],
      [b, 'kyc.session.manual_review_requested', 'manual_review', null],
      [b, 'kyc.session.completed', 'completed', 'approved'],
    ]);
    assertWellFormed(msgs);
    assert.ok(msgs.every((m) => m.event.mode === 'live'));
    assert.ok(msgs[1]!.seq < msgs[2]!.seq);

    const test = await account();
    const errTemplate = await newTemplate(test.c, {
      checks: ['document'],
      metadata: { segment: ['a', 1] },
      screening_rules: [{ name: 's', ruleType: 'custom', condition: { kind: 'field', field: 'session.metadata.segment', operator: 'exists' }, action: 'tag' }],
    });
    const errored = (await createSession(test.c, { applicant_id: await newApplicant(test.c), workflow_template_id: errTemplate })).body.data.id;
    assert.equal((await waitStatus(test.c, errored)).status, 'errored');
    assert.deepEqual(await eventsOf('us', [errored]), []);
  });

  it('each region relays to its own stream', async () => {
    const { c } = await account('eu');
    const { applicantId, templateId } = await setup(c);
    const id = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    await waitStatus(c, id);
    const eu = await eventsOf('eu', [id]);
    assert.deepEqual(summary(eu), [[id, 'kyc.session.completed', 'completed', 'approved']]);
    assertWellFormed(eu, 'eu');
    assert.deepEqual(await streamEvents('us', (e) => e.data.sessionId === id), []);
  });
});
