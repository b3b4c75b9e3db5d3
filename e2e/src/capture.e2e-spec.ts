/**
 * Live verification over HTTP (docs/capture.md): a live session's capture link, the capture API with
 * nothing but the client secret, the live run to a resting status with the document's names, and every refusal,
 * each leaving nothing half-written.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { noisyJpeg, pixelFloodPng } from '@verity/testing';
import { captureClient, doChallenge, liveSession, ok, outcomes, passportOf, read } from './capture-support.js';
import { account, closeStreams, createSession, eventsOf, setup, waitStatus } from './sessions-support.js';
import { closeOperators, errorOf, freshWindow, rows, times } from './support.js';

after(async () => {
  await closeOperators();
  await closeStreams();
});

const RUN_MS = 30_000;

describe('capture links', () => {
  it('a live session carries url, client_secret and expires_at (48 h); a test session none; only a hash is stored', async () => {
    const { session, c, org } = await liveSession();
    assert.match(session.client_secret!, /^vcs_[A-Za-z0-9]{43}$/);
    assert.equal(session.url, `${new URL(session.url!).origin}/verify/${session.client_secret}`);
    const ttl = Date.parse(session.expires_at!) - Date.parse(session.created_at);
    assert.ok(Math.abs(ttl - 48 * 3600_000) < 5000, String(ttl));
    const again = await read(c, session.id);
    assert.deepEqual([again.url, again.client_secret, again.expires_at], [session.url, session.client_secret, session.expires_at]);
    const [row] = await rows<{ capture_secret_hash: string }>('us', 'SELECT capture_secret_hash FROM sessions.sessions WHERE id = $1', [session.id]);
    assert.match(row!.capture_secret_hash, /^[0-9a-f]{64}$/);
    const anywhere = await rows('us', `SELECT 1 FROM sessions.sessions WHERE org_id = $1 AND (capture_secret_hash = $2 OR capture_context::text LIKE '%' || $2 || '%')`, [org.id, session.client_secret]);
    assert.equal(anywhere.length, 0);

    const test = await account('us', 'test');
    const t = await setup(test.c);
    const created = ok(await createSession(test.c, { applicant_id: t.applicantId, workflow_template_id: t.templateId }), 201).data;
    assert.deepEqual([created.url, created.client_secret, created.expires_at], [null, null, null]);
  });
});

describe('the capture API, with the client secret alone', () => {
  it('a passport, a selfie and the liveness challenge: pending → in_progress on the first image, submit 202, then completed/approved with the document’s names, its evidence served, one event', async () => {
    const { session, capture, c, key } = await liveSession('us', { checks: ['document', 'face_match', 'liveness'] });
    const { photos, selfie } = await passportOf(1, 'hopper');
    const cap = ok(await capture.get()).data;
    assert.deepEqual(
      { ...cap, expires_at: undefined, challenge: undefined },
      {
        object: 'capture',
        session_id: session.id,
        status: 'pending',
        steps: ['document_front', 'document_back', 'selfie'],
        photo_upload: false,
        device_intelligence: false,
        expires_at: undefined,
        images: { front: null, back: null, selfie: null },
        submitted_at: null,
        challenge: undefined,
      },
    );
    assert.equal(cap.challenge?.object, 'capture_challenge');
    const front = ok(await capture.put('front', photos.front)).data;
    assert.equal(front.object, 'capture_image');
    assert.equal(front.artifact, 'front');
    assert.deepEqual([front.width, front.height], [2048, 1536]);
    assert.equal((await read(c, session.id)).status, 'in_progress');
    ok(await capture.put('selfie', selfie));
    await doChallenge(capture, 'hopper');
    const submitted = ok(await capture.submit({ acquisition: 'camera', signals: { paste_count: 0, time_zone: 'Europe/Amsterdam' } }), 202).data;
    assert.ok(submitted.submitted_at);

    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    assert.equal(done.status, 'completed');
    assert.equal(done.outcome, 'approved');
    assert.deepEqual(outcomes(done.checks), [
      { type: 'document', outcome: 'pass', reasons: [] },
      { type: 'face_match', outcome: 'pass', reasons: [] },
      { type: 'liveness', outcome: 'pass', reasons: [] },
    ]);
    // the face checks carry their scores, at or above the thresholds they passed
    assert.equal(done.checks[0]!.score, null);
    for (const c of done.checks.slice(1)) assert.ok(typeof c.score === 'number' && c.score >= 0.6 && c.score <= 1, JSON.stringify(c));
    assert.deepEqual([done.url, done.client_secret, done.expires_at], [null, null, null]);
    assert.deepEqual(done.idv?.holder, photos.expected.holder);
    assert.deepEqual(done.idv?.document, photos.expected.document);
    assert.equal(done.idv?.capture_acquisition, 'camera');
    assert.deepEqual(done.idv?.available_images, ['portrait', 'front', 'selfie']);
    for (const artifact of ['portrait', 'front', 'selfie']) {
      const img = await fetch(`${new URL(session.url!).origin}/v1/sessions/${session.id}/idv-image/${artifact}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(img.status, 200, artifact);
      assert.equal((await sharp(Buffer.from(await img.arrayBuffer())).metadata()).format, 'jpeg');
    }
    const [back] = await rows<{ n: number }>('us', `SELECT count(*)::int AS n FROM evidence.artifacts WHERE session_id = $1 AND artifact = 'back'`, [session.id]);
    assert.equal(back!.n, 0); // the capture had no back
    const events = await eventsOf('us', [session.id]);
    assert.deepEqual(events.map((e) => [e.event.type, e.event.data.status, e.event.data.outcome]), [['kyc.session.completed', 'completed', 'approved']]);
    assert.deepEqual(events[0]!.event.data.checks, done.checks);
    // the link is used: the capture routes refuse
    assert.equal(errorOf(await capture.get()).code, 'invalid_state_transition');
  });
});

describe('the live run decides by the thresholds', () => {
  it('another person’s selfie: the face match fails and the session is declined; the document still read', async () => {
    const { session, capture, c } = await liveSession('us', { checks: ['document', 'face_match'] });
    const { photos } = await passportOf(2, 'collins');
    const other = await passportOf(3, 'hopper');
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', other.selfie));
    ok(await capture.submit(), 202);
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    assert.deepEqual([done.status, done.outcome], ['completed', 'declined']);
    assert.deepEqual(outcomes(done.checks), [
      { type: 'document', outcome: 'pass', reasons: [] },
      { type: 'face_match', outcome: 'fail', reasons: done.checks[1]!.reasons },
    ]);
    assert.ok(done.checks[1]!.reasons.length > 0 && (done.checks[1]!.score ?? 1) < 0.45, JSON.stringify(done.checks[1]));
    assert.deepEqual(done.idv?.holder, photos.expected.holder);
  });

  it('checks needing a provider the region has not configured end error and send the session to manual review; an uploaded photo is recorded as upload', async () => {
    const { session, capture, c } = await liveSession('us', { checks: ['document', 'watchlist'], photo_upload: true });
    const { photos } = await passportOf(4);
    const cap = ok(await capture.get()).data;
    assert.deepEqual([cap.steps, cap.photo_upload], [['document_front', 'document_back'], true]);
    ok(await capture.put('front', photos.front));
    ok(await capture.submit({ acquisition: 'upload' }), 202);
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    assert.deepEqual([done.status, done.outcome], ['manual_review', null]);
    assert.deepEqual(done.checks, [
      { type: 'document', outcome: 'pass', reasons: [], score: null },
      { type: 'watchlist', outcome: 'error', reasons: ['provider_not_configured'], score: null },
    ]);
    assert.equal(done.idv?.capture_acquisition, 'upload');
    assert.deepEqual(done.idv?.available_images, ['portrait', 'front']);
  });

  it('a submit without acquisition is recorded as camera', async () => {
    const { session, capture, c } = await liveSession('us', { checks: ['document'], photo_upload: true });
    ok(await capture.put('front', (await passportOf(5)).photos.front));
    ok(await capture.submit({}), 202);
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    assert.equal(done.idv?.capture_acquisition, 'camera');
  });
});

describe('capture refusals change nothing', () => {
  const uploads = async (sessionId: string) => (await rows<{ n: number }>('us', 'SELECT count(*)::int AS n FROM evidence.uploads WHERE session_id = $1', [sessionId]))[0]!.n;

  it('no secret, a malformed or unknown one, an API key: 401; nothing moves', async () => {
    const { session, c, key } = await liveSession();
    const unknown = captureClient('us', `vcs_${'A'.repeat(43)}`);
    assert.deepEqual([(await unknown.get()).status, errorOf(await unknown.get()).code], [401, 'invalid_capture_token']);
    for (const bad of ['vcs_short', key]) {
      const r = await captureClient('us', bad).get();
      assert.deepEqual([r.status, errorOf(r).code], [401, 'invalid_capture_token']);
    }
    const none = await captureClient('us', '').raw('GET', '/v1/capture', { key: '' });
    assert.deepEqual([none.status, errorOf(none).code], [401, 'authentication_required']);
    assert.equal((await read(c, session.id)).status, 'pending');
  });

  it('images: an unknown artifact 404 (not echoed), a non-image 415, over 10 MiB 413, bytes that do not decode or a pixel flood 422; none stored, still pending', async () => {
    const { session, capture, c } = await liveSession();
    const back = await capture.put('back-of-head', Buffer.from('x'));
    assert.deepEqual([back.status, errorOf(back).code], [404, 'resource_not_found']);
    assert.ok(!back.text.includes('back-of-head'));
    const svg = await capture.put('front', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml');
    assert.deepEqual([svg.status, errorOf(svg).code, errorOf(svg).param], [415, 'unsupported_file_type', 'front']);
    const huge = Buffer.concat([await noisyJpeg(64, 64), Buffer.alloc(10 * 1024 * 1024)]);
    const tooLarge = await capture.put('selfie', huge);
    assert.deepEqual([tooLarge.status, errorOf(tooLarge).code, errorOf(tooLarge).param], [413, 'file_too_large', 'selfie']);
    const truncated = await capture.put('selfie', (await noisyJpeg(300, 300)).subarray(0, 2000));
    assert.deepEqual([truncated.status, errorOf(truncated).code], [422, 'invalid_image']);
    const flood = await capture.put('selfie', pixelFloodPng(), 'image/png');
    assert.deepEqual([flood.status, errorOf(flood).code], [422, 'invalid_image']);
    assert.equal(await uploads(session.id), 0);
    assert.equal((await read(c, session.id)).status, 'pending');
  });

  it('submit: a missing front or selfie is 422 naming it; upload without photo_upload 422; a bad signal 422; nothing submitted, no run', async () => {
    const { session, capture, c } = await liveSession('us', { checks: ['document', 'face_match'] });
    const noFront = await capture.submit();
    assert.deepEqual([noFront.status, errorOf(noFront).code, errorOf(noFront).param], [422, 'validation_error', 'front']);
    const { photos, selfie } = await passportOf(6);
    ok(await capture.put('front', photos.front));
    const noSelfie = await capture.submit();
    assert.deepEqual([noSelfie.status, errorOf(noSelfie).param], [422, 'selfie']);
    ok(await capture.put('selfie', selfie));
    const upload = await capture.submit({ acquisition: 'upload' });
    assert.deepEqual([upload.status, errorOf(upload).param], [422, 'acquisition']);
    const signals = await capture.submit({ acquisition: 'camera', signals: { paste_count: -1 } });
    assert.deepEqual([signals.status, errorOf(signals).code, errorOf(signals).param], [422, 'validation_error', 'signals']);
    const [row] = await rows<{ capture_submitted_at: Date | null; jobs: number }>(
      'us',
      `SELECT capture_submitted_at, (SELECT count(*)::int FROM sessions.jobs WHERE session_id = $1) AS jobs FROM sessions.sessions WHERE id = $1`,
      [session.id],
    );
    assert.deepEqual(row, { capture_submitted_at: null, jobs: 0 });
    assert.equal((await read(c, session.id)).status, 'in_progress');
    // unknown signal keys are ignored
    ok(await capture.submit({ acquisition: 'camera', signals: { paste_count: 1, favourite_colour: 'blue' } }), 202);
  });

  it('past expires_at: 410 capture_expired, then the session is expired (no event) and the link stays dead', async () => {
    const { session, capture, c, org } = await liveSession();
    await rows('us', `UPDATE sessions.sessions SET capture_expires_at = now() - interval '1 second' WHERE id = $1`, [session.id]);
    const r = await capture.get();
    assert.deepEqual([r.status, errorOf(r).code], [410, 'capture_expired']);
    const expired = await waitStatus(c, session.id, ['expired'], 5000);
    assert.deepEqual([expired.url, expired.client_secret, expired.expires_at], [null, null, null]);
    assert.equal(errorOf(await capture.put('front', (await passportOf(7)).photos.front)).code, 'capture_expired');
    const [events] = await rows<{ n: number }>('us', 'SELECT count(*)::int AS n FROM sessions.outbox o JOIN sessions.sessions s ON s.id = o.session_id WHERE s.org_id = $1', [org.id]);
    assert.equal(events!.n, 0);
  });

  it('skip: the session ends skipped (no event), the link dies (409); a step outside the capture is 422', async () => {
    const { session, capture, c } = await liveSession('us', { checks: ['document'] });
    const bad = await capture.skip('selfie');
    assert.deepEqual([bad.status, errorOf(bad).param], [422, 'step']);
    const skipped = ok(await capture.skip('document_front')).data;
    assert.equal(skipped.status, 'skipped');
    assert.equal((await read(c, session.id)).status, 'skipped');
    assert.deepEqual([(await capture.get()).status, errorOf(await capture.get()).code], [409, 'invalid_state_transition']);
    assert.equal((await eventsOf('us', [session.id])).length, 0);
  });

  it('a cancelled session’s link answers 409', async () => {
    const { session, capture, c } = await liveSession();
    ok(await c('POST', `/v1/sessions/${session.id}/cancel`, { body: { reason: 'customer left' } }));
    assert.deepEqual([(await capture.get()).status, errorOf(await capture.get()).code], [409, 'invalid_state_transition']);
  });

  it('rate class capture: 120 requests a minute per session, then 429 naming the class', async () => {
    const { capture } = await liveSession();
    await freshWindow(20);
    const statuses = await times(121, 8, async () => (await capture.get()).status);
    assert.equal(statuses.filter((s) => s === 200).length, 120);
    const r = await capture.get();
    assert.equal(r.status, 429);
    assert.equal(errorOf(r).details?.route_class, 'capture');
    assert.equal(r.headers.get('x-ratelimit-limit'), '120');
  });
});

describe('the hosted page, served by the region', () => {
  it('an open link serves the page (CSP, no-referrer, device cookie); an unknown one 404; a used or expired one 410; none echoes the secret', async () => {
    const { session, capture } = await liveSession('us', { checks: ['document'] });
    const page = await fetch(session.url!);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(page.headers.get('set-cookie')!, /^verity_device=[A-Za-z0-9]{24}; Path=\/; HttpOnly; SameSite=Lax/);
    const origin = new URL(session.url!).origin;
    const unknown = await fetch(`${origin}/verify/vcs_${'B'.repeat(43)}`);
    assert.equal(unknown.status, 404);
    assert.ok(!(await unknown.text()).includes('vcs_'));
    ok(await capture.put('front', (await passportOf(8)).photos.front));
    ok(await capture.submit(), 202);
    const used = await fetch(session.url!);
    assert.equal(used.status, 410);
    assert.ok(!(await used.text()).includes(session.client_secret!));

    const other = await liveSession('us', { checks: ['document'] });
    await rows('us', `UPDATE sessions.sessions SET capture_expires_at = now() - interval '1 second' WHERE id = $1`, [other.session.id]);
    assert.equal((await fetch(other.session.url!)).status, 410);
  });

  it('page views count against the pre-authentication limit per address: over it, a 429 page', async () => {
    const { session } = await liveSession('us', { checks: ['document'] });
    await freshWindow(20);
    const ip = `10.77.${Math.floor(Math.random() * 200)}.9`;
    const statuses = await times(1001, 16, async () => (await fetch(session.url!, { headers: { 'x-forwarded-for': ip } })).status);
    assert.equal(statuses.filter((s) => s === 200).length, 1000);
    const over = await fetch(session.url!, { headers: { 'x-forwarded-for': ip } });
    assert.equal(over.status, 429);
    assert.match(over.headers.get('content-type')!, /^text\/html/);
    assert.equal(over.headers.get('x-ratelimit-remaining'), '0');
  });
});

describe('device intelligence of a live run', () => {
  it('what the page measured reaches screening: a rule on device.behavior.pasteCount sends the session to review, with its trace', async () => {
    const rule = { name: 'pasted', ruleType: 'behavior_anomaly', condition: { kind: 'field', field: 'device.behavior.pasteCount', operator: 'gte', value: 1 }, action: 'review' };
    const { session, capture, c } = await liveSession('us', { checks: ['document'], device_intelligence: true, screening_rules: [rule] });
    assert.equal(ok(await capture.get()).data.device_intelligence, true);
    ok(await capture.put('front', (await passportOf(9)).photos.front));
    ok(await capture.submit({ acquisition: 'camera', signals: { paste_count: 2, step_seconds: { document_front: 6.5 }, webdriver: false, time_zone: 'Europe/Amsterdam' } }), 202);
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    assert.deepEqual([done.status, done.checks], ['manual_review', [{ type: 'document', outcome: 'pass', reasons: [], score: null }]]);
    const [run] = await rows<{ screening: { decision: string; fired: Array<{ name: string; fields: string[] }> } }>('us', 'SELECT screening FROM sessions.runs WHERE session_id = $1', [session.id]);
    assert.equal(run!.screening.decision, 'review');
    assert.deepEqual(run!.screening.fired.map((f) => [f.name, f.fields]), [['pasted', ['device.behavior.pasteCount']]]);
  });

  it('without signals, the device check goes to review (collection absent), never passes', async () => {
    const { session, capture, c } = await liveSession('us', { checks: ['document', 'device'] });
    assert.equal(ok(await capture.get()).data.device_intelligence, true);
    ok(await capture.put('front', (await passportOf(10)).photos.front));
    ok(await capture.submit({ acquisition: 'camera' }), 202);
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    assert.deepEqual([done.status, done.checks], [
      'manual_review',
      [
        { type: 'document', outcome: 'pass', reasons: [], score: null },
        { type: 'device', outcome: 'review', reasons: ['collection_absent'], score: null },
      ],
    ]);
  });
});
