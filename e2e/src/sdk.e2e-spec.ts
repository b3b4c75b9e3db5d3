/**
 * The TypeScript client (@verity/sdk) against the shared us stack, so that it cannot drift from the API: one
 * whole flow (applicant, template, test session, its image, the list across pages, a delivered webhook verified),
 * then the rest of its surface and its errors.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WebhookSubscriptionWithSecret } from '@verity/contracts';
import { Verity, VerityError, WebhookVerificationError, type Session } from '@verity/sdk';
import { sampleImage, startWebhookReceiver, testTls, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@verity/testing';
import { adminCli, clientIp, closeOperators, E2E, orgWithKey } from './support.js';

let rx: WebhookReceiver;
before(async () => {
  rx = await startWebhookReceiver({ tls: testTls() });
});
after(async () => {
  await rx?.close();
  await closeOperators();
});

/** A client for `key` on the e2e stacks, from a client address of its own (the per-IP limit of one test never touches another). */
function sdk(key: string, baseUrls: Partial<Record<'us' | 'eu', string>> = E2E.url): Verity {
  const ip = clientIp();
  return new Verity({
    apiKey: key,
    baseUrls,
    fetch: (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': ip } }),
  });
}

async function subscribe(orgId: string, path: string): Promise<WebhookSubscriptionWithSecret> {
  const res = await adminCli(['webhook', 'create', '--region', 'us', '--org', orgId, '--mode', 'test', '--url', `${rx.url}${path}`, '--events', 'kyc.session.completed']);
  assert.equal(res.code, 0, JSON.stringify(res.err));
  return res.out as WebhookSubscriptionWithSecret;
}

async function rested(verity: Verity, id: string, status: Session['status']): Promise<Session> {
  return waitFor(async () => {
    const s = await verity.sessions.get(id);
    return s.status === status ? s : undefined;
  }, 5000);
}

describe('@verity/sdk end to end', () => {
  it('one whole flow: applicant, template, test session, its image, the list across pages, a verified webhook', async () => {
    const { org, key } = await orgWithKey('us');
    const verity = sdk(key);
    assert.deepEqual([verity.region, verity.mode, verity.baseUrl], ['us', 'test', E2E.url.us]);
    const me = await verity.me.get();
    assert.deepEqual([me.object, me.org_id, me.region, me.mode], ['api_key', org.id, 'us', 'test']);
    const sub = await subscribe(org.id, '/sdk/flow');

    const applicant = await verity.applicants.create({ family_name: 'Lovelace', given_names: ['Ada'], email: 'ada@example.com' });
    assert.match(applicant.id, /^app_/);
    assert.equal((await verity.applicants.get(applicant.id)).family_name, 'Lovelace');
    const template = await verity.workflowTemplates.create({ name: 'SDK onboarding', checks: ['document', 'face_match', 'liveness'] });
    assert.equal(template.version, 1);

    const session = await verity.sessions.create({ applicant_id: applicant.id, workflow_template_id: template.id, expected_outcome: 'pass' });
    assert.equal(session.object, 'session');
    const done = await rested(verity, session.id, 'completed');
    assert.equal(done.outcome, 'approved');
    assert.deepEqual(done.checks.map((c) => `${c.type}:${c.outcome}`).sort(), ['document:pass', 'face_match:pass', 'liveness:pass']);

    // an evidence image, streamed
    const images = done.idv?.available_images ?? [];
    assert.ok(images.includes('front'), JSON.stringify(done.idv));
    const image = await verity.sessions.image(session.id, images[0]!);
    assert.equal(image.contentType, 'image/jpeg');
    const jpeg = await image.buffer();
    assert.ok(jpeg.length > 1000);
    assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
    assert.deepEqual([...jpeg.subarray(-2)], [0xff, 0xd9]);
    if (image.contentLength !== null) assert.equal(jpeg.length, image.contentLength);

    // two more sessions, then every session through the iterator, one per page, newest first
    const more: Session[] = [];
    for (const expected_outcome of ['review', 'fail'] as const) {
      more.push(await verity.sessions.create({ applicant_id: applicant.id, workflow_template_id: template.id, expected_outcome }));
    }
    const ids: string[] = [];
    for await (const s of verity.sessions.list({ limit: 1 })) ids.push(s.id);
    assert.deepEqual(ids, [more[1]!.id, more[0]!.id, session.id]);
    const first = await verity.sessions.list({ limit: 2, applicant_id: applicant.id });
    assert.equal(first.data.length, 2);
    assert.equal(typeof first.next_cursor, 'string');

    // the delivered webhook, verified with the subscription's secret; a tampered body is refused
    const got = await waitFor(async () => rx.received.find((r: ReceivedWebhook) => r.path === '/sdk/flow' && r.body.includes(session.id)), 10_000);
    const event = Verity.webhooks.verify(got.body, got.headers, sub.secret);
    assert.equal(event.type, 'kyc.session.completed');
    assert.deepEqual(event.data, { sessionId: session.id, status: 'completed', outcome: 'approved', occurredAt: done.updated_at, checks: done.checks });
    assert.throws(() => Verity.webhooks.verify(got.body.replace('"approved"', '"declined"'), got.headers, sub.secret), WebhookVerificationError);
    assert.throws(() => Verity.webhooks.verify(got.body, got.headers, `whsec_${Buffer.alloc(32, 1).toString('base64')}`), WebhookVerificationError);

    // and its attempt in the delivery log
    const attempts = await waitFor(async () => {
      const page = await verity.webhookEvents.list({ session_id: session.id });
      return page.data.length ? page.data : undefined;
    }, 5000);
    assert.deepEqual([attempts[0]!.event_id, attempts[0]!.status, attempts[0]!.subscription_id], [got.headers['webhook-id'], 'succeeded', sub.id]);
  });

  it('the rest of the surface: template update, session actions, ID scan, data subject request, errors', async () => {
    const { key } = await orgWithKey('us');
    const verity = sdk(key);
    const applicant = await verity.applicants.create({ family_name: 'Hopper', given_names: ['Grace'] });
    const template = await verity.workflowTemplates.create({ name: 'Review me', checks: ['document'] });
    const updated = await verity.workflowTemplates.update(template.id, { review_threshold: 0.8 });
    assert.deepEqual([updated.version, updated.review_threshold], [2, 0.8]);
    assert.equal((await verity.workflowTemplates.get(template.id)).version, 2);
    const templates: string[] = [];
    for await (const t of verity.workflowTemplates.listAll()) templates.push(t.id);
    assert.deepEqual(templates, [template.id]);
    const applicants = await verity.applicants.list();
    assert.deepEqual(applicants.data.map((a) => a.id), [applicant.id]);

    // review → decision; notes in any status; a transition the status does not allow is a final 409
    const session = await verity.sessions.create({ applicant_id: applicant.id, workflow_template_id: template.id, expected_outcome: 'review' });
    await rested(verity, session.id, 'manual_review');
    const noted = await verity.sessions.addNote(session.id, 'called the applicant');
    assert.equal((noted.metadata['operatorNotes'] as { note: string }[])[0]!.note, 'called the applicant');
    const decided = await verity.sessions.decide(session.id, { outcome: 'approved', reason: 'documents checked by hand' });
    assert.deepEqual([decided.status, decided.outcome], ['completed', 'approved']);
    await assert.rejects(verity.sessions.review(session.id, { reason: 'again' }), (e: VerityError) => {
      assert.ok(e instanceof VerityError);
      assert.deepEqual([e.status, e.code, e.type], [409, 'invalid_state_transition', 'invalid_request_error']);
      assert.match(e.request_id!, /^req_/);
      assert.equal(e.request_id, e.headers.get('x-request-id'));
      assert.ok(e.doc_url!.endsWith('/errors#invalid_state_transition'), e.doc_url!);
      return true;
    });
    const pending = await verity.sessions.create({ applicant_id: applicant.id, workflow_template_id: template.id, expected_outcome: 'review' });
    const cancelled = await verity.sessions.cancel((await rested(verity, pending.id, 'manual_review')).id, { reason: 'duplicate' });
    assert.equal(cancelled.status, 'cancelled');
    await assert.rejects(verity.sessions.get('ses_nope'), { status: 404, code: 'resource_not_found' });
    await assert.rejects(verity.sessions.create({ applicant_id: applicant.id, workflow_template_id: 'wft_nope' }), { status: 404, code: 'resource_not_found', param: 'workflow_template_id' });

    // the ID scan (multipart)
    const scan = await verity.idVerification.scan({ front: await sampleImage('jpeg'), expected_outcome: 'review' });
    assert.deepEqual([scan.object, scan.mode, scan.outcome], ['id_scan', 'test', 'review']);
    await assert.rejects(verity.idVerification.scan({ front: Buffer.from('not an image') }), { status: 415, code: 'unsupported_file_type' });

    // a data subject request, read until it completes
    const dsr = await verity.dataSubjectRequests.create({ type: 'access', applicant_id: applicant.id });
    assert.deepEqual([dsr.object, dsr.type, dsr.applicant_id], ['data_subject_request', 'access', applicant.id]);
    const completed = await waitFor(async () => {
      const r = await verity.dataSubjectRequests.get(dsr.id);
      return r.status === 'completed' ? r : undefined;
    }, 60_000, 200);
    assert.equal(completed.export!.applicant.id, applicant.id);

    // the key's region picks the endpoint: pointed at the other region's gateway, the gateway refuses it
    await assert.rejects(sdk(key, { us: E2E.url.eu }).me.get(), { status: 403, code: 'region_mismatch', type: 'permission_error' });
  });
});
