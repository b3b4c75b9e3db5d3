/**
 * Hostile input that must never answer 500 or a misleading 503: text Postgres cannot store (NUL, unpaired surrogates)
 * in bodies and query strings, rows that grow past what one NATS message carries, and bodies near its limit.
 * Each is refused with the envelope and the right code, names the parameter, echoes nothing and stores nothing.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { applicantRows, closeOperators, E2E, errorOf, rows } from './support.js';
import { account, createSession, setup, type List, type One } from './sessions-support.js';

after(closeOperators);

/** Written into each hostile value: it must come back in no answer. */
const MARK = () => `Mark${randomBytes(4).toString('hex')}`;
const LONE_HIGH = '\uD83D';
const LONE_LOW = '\uDE00';
const UNSTORABLE = 'must be text without NUL characters or unpaired surrogates';

function issues(res: { body: unknown }): Array<{ code: string; message: string; path: (string | number)[] }> {
  return (res.body as { error: { details: { issues: Array<{ code: string; message: string; path: (string | number)[] }> } } }).error.details.issues;
}

describe('text Postgres cannot store', () => {
  it('NUL or a broken surrogate in a list filter, cursor or limit is 422 naming the parameter, never 500', async () => {
    const { c } = await account('us');
    for (const [path, param] of [
      ['/v1/sessions?applicant_id=%00', 'applicant_id'],
      ['/v1/sessions?applicant_id=app_%00x&status=pending', 'applicant_id'],
      ['/v1/sessions?status=%00', 'status'],
      ['/v1/applicants?cursor=%00', 'cursor'],
      ['/v1/workflow-templates?limit=1%00', 'limit'],
      ['/v1/webhook-events?session_id=%00', 'session_id'],
      // in a list, id is a query parameter like any other (not a path id, which would be 404)
      ['/v1/sessions?id=%00', 'id'],
    ] as const) {
      const res = await c('GET', path);
      assert.equal(res.status, 422, `${path}: ${res.text}`);
      const e = errorOf(res);
      assert.equal(e.code, 'validation_error', path);
      assert.equal(e.param, param, path);
      assert.doesNotMatch(res.text, /\\u0000/, path);
    }
  });

  it('an unpaired surrogate in an applicant name or address is 422 naming the field, echoing nothing; nothing stored', async () => {
    const { org, c } = await account('us');
    for (const [body, param, path] of [
      [{ family_name: 'Doe', given_names: ['Anna', `${MARK()}${LONE_HIGH}`] }, 'given_names', ['given_names', 1]],
      [{ family_name: `${MARK()}${LONE_LOW}` }, 'family_name', ['family_name']],
      [{ family_name: 'Doe', address: { line1: `${MARK()} Street${LONE_HIGH}`, country: 'DE' } }, 'address', ['address', 'line1']],
      [{ family_name: 'Doe', address: { city: `${MARK()}\u0000` } }, 'address', ['address', 'city']],
    ] as const) {
      const res = await c('POST', '/v1/applicants', { body });
      assert.equal(res.status, 422, res.text);
      const e = errorOf(res);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, param);
      assert.deepEqual(issues(res), [{ code: 'invalid_format', message: `${path.join('.')} ${UNSTORABLE}`, path }]);
      assert.doesNotMatch(res.text, /Mark[0-9a-f]{8}/);
    }
    assert.equal(await applicantRows('us', org.id), 0);
  });

  it('a broken field name in session metadata is refused without repeating it; in a note, the note is named', async () => {
    const { org, c } = await account('us');
    const { applicantId, templateId } = await setup(c);
    const mark = MARK();
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: { [`${mark}${LONE_LOW}`]: 'x' } });
    assert.equal(res.status, 422, res.text);
    assert.equal(errorOf(res).param, 'metadata');
    assert.equal(errorOf(res).message, `a field name in metadata ${UNSTORABLE}`);
    assert.ok(!res.text.includes(mark));
    const [n] = await rows<{ n: number }>('us', 'SELECT count(*)::int AS n FROM sessions.sessions WHERE org_id = $1', [org.id]);
    assert.equal(n!.n, 0);

    const made = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId });
    const note = await c('POST', `/v1/sessions/${made.body.data.id}/notes`, { body: { note: `${mark}${LONE_HIGH}` } });
    assert.equal(note.status, 422, note.text);
    assert.equal(errorOf(note).param, 'note');
    assert.ok(!note.text.includes(mark));
  });

  it('a path id that is not text: an encoded NUL is 400 invalid_path (refused before routing), a lone surrogate a path no route has (404); nothing echoed', async () => {
    const { c } = await account('us');
    for (const [kind, prefix] of [['applicants', 'app'], ['sessions', 'ses'], ['workflow-templates', 'wft']] as const) {
      const nul = await c('GET', `/v1/${kind}/${prefix}_%00`);
      assert.equal(nul.status, 400, nul.text);
      assert.equal(errorOf(nul).code, 'invalid_path');
      // the UTF-8 bytes of an unpaired surrogate (U+D800): not text, so the router cannot decode the path
      const surrogate = await c('GET', `/v1/${kind}/${prefix}_%ED%A0%80`);
      assert.equal(surrogate.status, 404, surrogate.text);
      assert.equal(errorOf(surrogate).code, 'route_not_found');
      for (const res of [nul, surrogate]) assert.ok(!res.text.includes(`${prefix}_`), res.text);
    }
  });
});

describe('sizes a NATS message cannot carry', () => {
  it('a JSON body near 1 MiB is 413 request_too_large, not 503; nothing stored', async () => {
    const { org, c } = await account('us');
    // under the gateway's body limit (1 MiB), over what one NATS message carries with the request around it
    const big = 'x'.repeat(1024 * 1024 - 200);
    const res = await c('POST', '/v1/applicants', { rawBody: JSON.stringify({ family_name: big }), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413, res.text.slice(0, 300));
    assert.equal(errorOf(res).code, 'request_too_large');
    assert.equal(await applicantRows('us', org.id), 0);
    // numbers that grow when written again (1e9 is 1000000000) are measured as they travel
    const numbers = `{"family_name":"Doe","metadata":[${Array.from({ length: 200_000 }, () => '1e9').join(',')}]}`;
    const grown = await c('POST', '/v1/applicants', { rawBody: numbers, headers: { 'content-type': 'application/json' } });
    assert.equal(grown.status, 413, grown.text.slice(0, 300));
  });

  it('session metadata over 16 KiB is 422 too_big naming metadata; nothing stored', async () => {
    const { org, c } = await account('us');
    const { applicantId, templateId } = await setup(c);
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: { blob: 'é'.repeat(9000) } });
    assert.equal(res.status, 422, res.text.slice(0, 300));
    assert.equal(errorOf(res).param, 'metadata');
    assert.equal(issues(res)[0]!.code, 'too_big');
    assert.match(issues(res)[0]!.message, /at most 16384 bytes/);
    const [n] = await rows<{ n: number }>('us', 'SELECT count(*)::int AS n FROM sessions.sessions WHERE org_id = $1', [org.id]);
    assert.equal(n!.n, 0);
    const ok = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: { blob: 'x'.repeat(16_000) } });
    assert.equal(ok.status, 201, ok.text.slice(0, 300));
  });

  it('workflow template metadata over 16 KiB and screening rules over 128 KiB are 422 too_big', async () => {
    const { c } = await account('us');
    const meta = await c('POST', '/v1/workflow-templates', { body: { name: 'big', metadata: { blob: 'x'.repeat(17_000) } } });
    assert.equal(meta.status, 422, meta.text.slice(0, 300));
    assert.equal(errorOf(meta).param, 'metadata');
    const made = await c<One>('POST', '/v1/workflow-templates', { body: { name: 'small' } });
    const rules = await c('PATCH', `/v1/workflow-templates/${made.body.data.id}`, { body: { screening_rules: Array.from({ length: 2000 }, () => ({ pad: 'x'.repeat(100) })) } });
    assert.equal(rules.status, 422, rules.text.slice(0, 300));
    assert.equal(errorOf(rules).param, 'screening_rules');
    assert.equal(issues(rules)[0]!.code, 'too_big');
  });

  it('the notes of a session stop at 256 KiB with 422 too_big naming note; the session stays readable, alone and in a list', async () => {
    const { c } = await account('us');
    const { applicantId, templateId } = await setup(c);
    // a note of 2000 control characters is stored as 12 kB of escapes
    const heavy = '\u0001'.repeat(2000);
    const ids: string[] = [];
    for (let s = 0; s < 5; s++) {
      const made = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId });
      assert.equal(made.status, 201, made.text);
      const id = made.body.data.id;
      ids.push(id);
      let refused = null;
      for (let i = 0; i < 40 && !refused; i++) {
        const res = await c('POST', `/v1/sessions/${id}/notes`, { body: { note: heavy } });
        if (res.status !== 200) refused = res;
      }
      assert.ok(refused, 'the notes were capped');
      assert.equal(refused.status, 422, refused.text.slice(0, 300));
      assert.equal(errorOf(refused).param, 'note');
      assert.equal(issues(refused)[0]!.code, 'too_big');
      const read = await c<One>('GET', `/v1/sessions/${id}`);
      assert.equal(read.status, 200);
      const notes = (read.body.data.metadata as { operatorNotes: unknown[] }).operatorNotes;
      assert.ok(notes.length >= 20 && Buffer.byteLength(JSON.stringify(notes)) <= 256 * 1024, String(notes.length));
      // a short note may still fit; a refused note wrote nothing
      const [row] = await rows<{ n: number }>('us', "SELECT jsonb_array_length(platform_metadata->'operatorNotes')::int AS n FROM sessions.sessions WHERE id = $1", [id]);
      assert.equal(row!.n, notes.length);
    }
    // five such sessions weigh more than one message: the page stops early and the cursor reaches the rest
    const seen: string[] = [];
    let pages = 0;
    let cursor: string | null = null;
    do {
      const page: { status: number; text: string; body: List } = await c<List>('GET', `/v1/sessions?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text.slice(0, 300));
      seen.push(...page.body.data.map((s) => s.id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    assert.ok(pages > 1, 'the first page stopped early');
    assert.deepEqual(seen.sort(), [...ids].sort());
  });
});

describe('what the HTTP parser refuses', () => {
  /** Writes bytes to the gateway as they are and reads the answer until the server closes. */
  function raw(bytes: string): Promise<string> {
    const url = new URL(E2E.url.us);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
      let out = '';
      socket.on('data', (d) => (out += d.toString()));
      socket.on('end', () => resolve(out));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });
  }
  const parse = (answer: string) => {
    const [head, body] = answer.split('\r\n\r\n');
    const requestId = /^x-request-id: (\S+)$/im.exec(head!)?.[1];
    return { status: Number(head!.split(' ')[1]), head: head!, body: JSON.parse(body!) as { error: Record<string, unknown> }, requestId };
  };

  it('a request line and headers over 16 KiB are 431 request_header_too_large in the envelope, echoing nothing', async () => {
    const mark = MARK();
    const a = parse(await raw(`GET /v1/applicants?q=${mark}${'x'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`));
    assert.equal(a.status, 431);
    assert.equal(a.body.error['code'], 'request_header_too_large');
    assert.equal(a.body.error['type'], 'invalid_request_error');
    assert.equal(a.body.error['request_id'], a.requestId);
    assert.match(a.requestId!, /^req_/);
    assert.ok(!JSON.stringify(a).includes(mark));
  });

  it('bytes that are not HTTP are 400 malformed_request in the envelope, echoing nothing', async () => {
    const mark = MARK();
    const a = parse(await raw(`GET /v1/me HTTP/1.1\r\nhost: x\r\nx-${mark}\u0001: y\r\n\r\n`));
    assert.equal(a.status, 400);
    assert.equal(a.body.error['code'], 'malformed_request');
    assert.equal(a.body.error['request_id'], a.requestId);
    assert.ok(!JSON.stringify(a).includes(mark));
  });
});
