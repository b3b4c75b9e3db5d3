/**
 * Live decisions that show why (contract §20) over HTTP, on both services' real stack: a live session whose applicant
 * is not the person on the document is never approved, the read and the webhook carry each check's reasons and
 * score, the applicant record stays the applicant's, and a reviewer sees why in the console (the back of the card
 * included); a workflow template's document policy is refused at save when wrong and applied by the live run when
 * right. Console screenshots land in docs/console/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { SUBJECTS, type Applicant, type SessionEventData, type WorkflowTemplate } from '@verity/contracts';
import { catalogueSpecimen, selfie } from '@verity/specimens';
import { photographDocument, startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import type { Browser } from 'playwright-core';
import { captureClient, doChallenge, liveSession, ok, passportOf } from './capture-support.js';
import { browser, LAPTOP, PHONE, shot, signedIn, switchMode, team } from './console-support.js';
import { closeStreams, createSession, LIVE_WALLET, newTemplate, RESTING, waitStatus, type One } from './sessions-support.js';
import { client, closeOperators, createKey, errorOf, operator, rows } from './support.js';

const RUN_MS = 30_000;
const OP = { principal: null, requestId: 'req_e2e_live_checks' };

let rx: WebhookReceiver;
let chromium: Browser;

before(async () => {
  rx = await startWebhookReceiver({ tls: testTls() });
  chromium = await browser();
});

after(async () => {
  await chromium?.close();
  await rx?.close();
  await closeOperators();
  await closeStreams();
});

describe('the person the integrator named is the person on the document', () => {
  it('Ada Lovelace shows the identity card of Aino Kaarina Lehtinen: not approved, applicant_mismatch, the applicant unchanged; the read, the webhook and the console show why', async () => {
    // an organization with people in each role, a live key, a wallet and a webhook of its live mode
    const t = await team('us');
    const key = (await createKey('us', t.org.id, { mode: 'live' })).key;
    const rpc = await operator('us');
    await rpc.call(SUBJECTS.accountsBillingSet, { org_id: t.org.id, wallet_balance: LIVE_WALLET }, OP);
    const sub = await rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id: t.org.id, mode: 'live', url: `${rx.url}/live-checks/${t.org.id}`, event_types: ['kyc.session.completed', 'kyc.session.manual_review_requested'] }, OP);
    const c = client('us', key);
    const ada = { family_name: 'Lovelace', given_names: ['Ada'], date_of_birth: '1815-12-10', email: 'ada@example.com' };
    const created = await c<{ data: Applicant }>('POST', '/v1/applicants', { body: ada });
    assert.equal(created.status, 201, created.text);
    const applicant = created.body.data;
    const templateId = await newTemplate(c, { checks: ['document', 'face_match', 'liveness'] });
    const session = ok(await createSession(c, { applicant_id: applicant.id, workflow_template_id: templateId }), 201).data;

    // the card of someone else, photographed front and back, and its holder's own selfie
    const s = catalogueSpecimen('td1', 1);
    const card = {
      holder: { ...s.holder, familyName: 'Lehtinen', givenNames: ['Aino', 'Kaarina'], dateOfBirth: '1991-03-05', nationality: 'FIN', person: 'collins' as const },
      document: { ...s.document, issuer: 'FIN' },
    };
    const photos = await photographDocument(card, { width: 2400, height: 1800, rotation: 3, seed: 27 });
    const capture = captureClient('us', session.client_secret!);
    ok(await capture.put('front', photos.front));
    ok(await capture.put('back', photos.back!));
    ok(await capture.put('selfie', await selfie('collins')));
    ok(await capture.submit({ acquisition: 'camera' }), 202);

    const done = await waitStatus(c, session.id, RESTING, RUN_MS);
    assert.deepEqual([done.status, done.outcome], ['manual_review', null], JSON.stringify(done.checks));
    assert.deepEqual(done.checks[0], { type: 'document', outcome: 'review', reasons: ['applicant_mismatch'], score: null });
    // the faces are the holder's own: the face checks pass on their scores, and say so
    const face = done.checks[1]!;
    assert.deepEqual([face.type, face.outcome, face.reasons], ['face_match', 'pass', []]);
    assert.ok(typeof face.score === 'number' && face.score >= 0.6 && face.score <= 1, JSON.stringify(face));
    assert.equal(done.checks[2]!.type, 'liveness');
    assert.ok(typeof done.checks[2]!.score === 'number', JSON.stringify(done.checks[2]));
    // what was read is the document's; the applicant record is the applicant's, unchanged
    assert.deepEqual(done.idv?.holder, photos.expected.holder);
    assert.equal(done.idv?.holder?.family_name, 'LEHTINEN');
    const again = await c<{ data: Applicant }>('GET', `/v1/applicants/${applicant.id}`);
    assert.deepEqual(again.body.data, applicant);
    // the list carries the same checks
    const listed = await c<{ data: Array<{ id: string; checks: unknown }> }>('GET', `/v1/sessions?applicant_id=${applicant.id}`);
    assert.deepEqual(listed.body.data.find((x) => x.id === session.id)?.checks, done.checks);

    // the webhook of the resting session, verified with the subscription's secret, carries the same checks
    const got = await waitFor(async () => rx.received.find((r) => r.path === `/live-checks/${t.org.id}` && r.body.includes(session.id)), 10_000);
    const hook = new Webhook(sub.secret).verify(got.body, got.headers) as { type: string; data: SessionEventData };
    assert.equal(hook.type, 'kyc.session.manual_review_requested');
    assert.deepEqual(hook.data, { sessionId: session.id, status: 'manual_review', outcome: null, occurredAt: done.updated_at, checks: done.checks });
    for (const personal of ['Lovelace', 'LEHTINEN', 'AINO', '1815-12-10', '1991-03-05', 'ada@example.com']) assert.ok(!got.body.includes(personal), personal);

    // the API never serves the back; it is stored
    const back = await c('GET', `/v1/sessions/${session.id}/idv-image/back`);
    assert.deepEqual([back.status, errorOf(back).code], [404, 'resource_not_found']);
    assert.deepEqual(done.idv?.available_images, ['portrait', 'front', 'selfie']);

    // a reviewer sees why: reasons in words, scores, the applicant beside the document with the differences marked, the back
    const { context, page } = await signedIn(chromium, 'us', t.people.reviewer, LAPTOP);
    await switchMode(page, 'live');
    await page.goto(`/verifications/${session.id}`);
    await page.getByRole('heading', { name: 'Applicant and document' }).waitFor();
    const checks = page.locator('table.checks');
    await checks.getByText("The applicant's names or date of birth are not the document holder's.").waitFor();
    assert.match((await checks.locator('tr', { hasText: 'Face match' }).innerText()).replace(/\s+/g, ' '), /similarity \d\.\d{3}/);
    const person = page.locator('section.person');
    await person.getByText('Not the same person').waitFor();
    assert.equal(await person.locator('td.differs').count(), 3, 'family name, given names and date of birth differ');
    assert.match(await person.locator('tr', { hasText: 'Family name' }).innerText(), /Lovelace\s+LEHTINEN/);
    const backImg = page.getByRole('img', { name: 'Back of the document' });
    await backImg.waitFor();
    // every image shown loaded (the browser's own check: decoded, with a width)
    for (const img of await page.locator('section img').all()) {
      await img.scrollIntoViewIfNeeded();
      assert.ok(await img.evaluate((i: { complete: boolean; naturalWidth: number }) => i.complete && i.naturalWidth > 0), await img.getAttribute('alt') ?? 'image');
    }
    await shot(page, 'verification-live');
    await page.setViewportSize(PHONE);
    await shot(page, 'verification-live-phone');
    await page.setViewportSize(LAPTOP);
    const served = await page.request.get(`/verifications/${session.id}/images/back`);
    assert.deepEqual([served.status(), served.headers()['content-type']], [200, 'image/jpeg']);
    await context.close();
    // each view of the back is in the organization's activity log, as for any image
    const viewed = await rows<{ n: number }>('us', `SELECT count(*)::int AS n FROM evidence.activity WHERE session_id = $1 AND artifact = 'back' AND key_id = $2`, [session.id, t.people.reviewer.user.id]);
    assert.ok(viewed[0]!.n >= 2, JSON.stringify(viewed));

    // a developer (no evidence images) gets neither the back nor any image
    const dev = await signedIn(chromium, 'us', t.people.developer, LAPTOP);
    await switchMode(dev.page, 'live');
    await dev.page.goto(`/verifications/${session.id}`);
    await dev.page.getByRole('heading', { name: 'Applicant and document' }).waitFor();
    assert.equal(await dev.page.getByRole('img', { name: 'Back of the document' }).count(), 0);
    assert.equal((await dev.page.request.get(`/verifications/${session.id}/images/back`)).status(), 404);
    await dev.context.close();
  });
});

describe('another person\'s passport', () => {
  it('Ada Lovelace with the passport of Aino Kaarina Lehtinen and Aino\'s own selfie: manual review, applicant_mismatch; with the template failing mismatches, declined', async () => {
    const aino = { familyName: 'Lehtinen', givenNames: ['Aino', 'Kaarina'], dateOfBirth: '1991-03-05' };
    const { photos, selfie: face } = await passportOf(12, 'hopper', aino);
    for (const [template, expected] of [
      [{}, ['manual_review', null, 'review']],
      [{ applicant_mismatch: 'fail' }, ['completed', 'declined', 'fail']],
    ] as const) {
      const { session, capture, c, applicantId } = await liveSession('us', { checks: ['document', 'face_match'], ...template }, { family_name: 'Lovelace', given_names: ['Ada'], date_of_birth: '1815-12-10' });
      const before = (await c<{ data: Applicant }>('GET', `/v1/applicants/${applicantId}`)).body.data;
      ok(await capture.put('front', photos.front));
      ok(await capture.put('selfie', face));
      ok(await capture.submit(), 202);
      const done = await waitStatus(c, session.id, RESTING, RUN_MS);
      assert.deepEqual([done.status, done.outcome, done.checks[0]!.outcome], expected, JSON.stringify(done.checks));
      assert.deepEqual(done.checks[0]!.reasons, ['applicant_mismatch']);
      assert.deepEqual([done.checks[1]!.outcome, done.checks[1]!.reasons], ['pass', []], 'the selfie is the holder\'s: only the applicant differs');
      assert.deepEqual(done.idv?.holder, photos.expected.holder);
      assert.deepEqual((await c<{ data: Applicant }>('GET', `/v1/applicants/${applicantId}`)).body.data, before);
    }
  });
});

describe('the document policy of a workflow template', () => {
  it('is refused at save when wrong (nothing saved) and applied by a live run when right', async () => {
    const { session: first, c } = await liveSession('us', { checks: ['document'] });
    assert.ok(first.id);
    const before = (await c<{ data: WorkflowTemplate[] }>('GET', '/v1/workflow-templates?limit=100')).body.data.length;
    for (const [body, param] of [
      [{ minimum_age: -3 }, 'minimum_age'],
      [{ minimum_age: 18.5 }, 'minimum_age'],
      [{ accepted_document_types: ['visa'] }, 'accepted_document_types'],
      [{ accepted_issuing_countries: ['Finland'] }, 'accepted_issuing_countries'],
      [{ applicant_mismatch: 'ignore' }, 'applicant_mismatch'],
      [{ thresholds: { livenessPass: 0.5, livenessReview: 0.7 } }, 'thresholds'],
      [{ thresholds: { faceMatchPass: 0.8 } }, 'thresholds'],
    ] as const) {
      const res = await c('POST', '/v1/workflow-templates', { body: { name: 'Bad policy', checks: ['document'], ...body } });
      assert.deepEqual([res.status, errorOf(res).code, errorOf(res).param], [422, 'validation_error', param], JSON.stringify(body));
    }
    assert.equal((await c<{ data: WorkflowTemplate[] }>('GET', '/v1/workflow-templates?limit=100')).body.data.length, before, 'nothing saved');

    // a template nobody can pass: a licence or card only, from the Netherlands, aged 120 or more, and a live score of 1
    const policy = {
      minimum_age: 120,
      accepted_document_types: ['identity_card', 'driver_license'],
      accepted_issuing_countries: ['NL'],
      thresholds: { livenessPass: 1, livenessReview: 1 },
    };
    const saved = await c<One & { data: WorkflowTemplate }>('POST', '/v1/workflow-templates', { body: { name: 'Strict', checks: ['document', 'face_match', 'liveness'], ...policy } });
    assert.equal(saved.status, 201, saved.text);
    const tpl = saved.body.data as unknown as WorkflowTemplate;
    assert.deepEqual(
      [tpl.minimum_age, tpl.accepted_document_types, tpl.accepted_issuing_countries, tpl.applicant_mismatch, tpl.thresholds],
      [120, ['identity_card', 'driver_license'], ['NL'], 'review', { livenessPass: 1, livenessReview: 1 }],
    );
    const patched = await c('PATCH', `/v1/workflow-templates/${tpl.id}`, { body: { minimum_age: 200 } });
    assert.deepEqual([patched.status, errorOf(patched).param], [422, 'minimum_age']);
    assert.equal((await c<{ data: WorkflowTemplate }>('GET', `/v1/workflow-templates/${tpl.id}`)).body.data.version, 1);

    // the default applicant's own Dutch passport: the applicant matches, the issuer is accepted, the rest is not
    const applicantId = (await c<{ data: { id: string } }>('POST', '/v1/applicants', { body: { family_name: 'Doe', given_names: ['Jane'], date_of_birth: '1990-04-01' } })).body.data.id;
    const session = ok(await createSession(c, { applicant_id: applicantId, workflow_template_id: tpl.id }), 201).data;
    const capture = captureClient('us', session.client_secret!);
    const { photos, selfie: face, person } = await passportOf(11);
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', face));
    // the challenge done, so that liveness is judged by its score (a still selfie would be review, still_image)
    await doChallenge(capture, person);
    ok(await capture.submit(), 202);
    const done = await waitStatus(c, session.id, RESTING, RUN_MS);
    assert.deepEqual([done.status, done.outcome], ['completed', 'declined'], JSON.stringify(done.checks));
    assert.deepEqual(done.checks[0], { type: 'document', outcome: 'fail', reasons: ['document_type_not_accepted', 'underage'], score: null });
    // the template's liveness thresholds reached the reader: no score reaches 1
    const liveness = done.checks[2]!;
    assert.equal(liveness.type, 'liveness');
    assert.deepEqual([liveness.outcome, liveness.reasons], ['fail', ['spoof_suspected']], JSON.stringify(liveness));
    assert.ok(typeof liveness.score === 'number' && liveness.score < 1, JSON.stringify(liveness));
  });
});
