import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { qualify, REQUEST_ID_HEADER, SUBJECTS, type Applicant, type Principal, type ReqOf, type ResOf, type RpcReply, type RpcRequest, type Subject } from '@verity/contracts';
import { newId } from '@verity/keys';
import { decodeJson, encodeJson, RpcClient } from '@verity/platform';
import { query, refusal, type ServiceUnderTest, startServiceUnderTest, testPrincipal, testSigner } from '@verity/testing';
import { ApplicantsModule } from '../src/app.module.js';
import { APPLICANTS_SERVICE, applicantsEnv } from '../src/config.js';

/** The applicants service's own configuration in a test: a signing key of its own. */
const APPLICANTS_TEST_VARS = { ERASURE_SIGNING_KEY: randomBytes(32).toString('base64') };


let db: ServiceUnderTest<unknown>['db'];
let nc: NatsConnection;
let rpc: RpcClient;
let root: string;
let svc: ServiceUnderTest<unknown> | undefined;

before(async () => {
  svc = await startServiceUnderTest({ def: APPLICANTS_SERVICE, module: ApplicantsModule, env: applicantsEnv, vars: APPLICANTS_TEST_VARS });
  ({ db, nc, rpc, root } = svc);
});

after(() => svc?.close());

/** What the gateway attaches to each call: the caller's organization and mode are all the service scopes by. */
function principal(mode: 'test' | 'live' = 'test', org = newId('org')): Principal {
  return testPrincipal({ org_id: org, mode, scopes: ['applicants:read', 'applicants:write'] });
}

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return rpc.call(subject, payload, { principal: p, requestId: 'req_int_applicants' });
}

const create = (p: Principal, body: unknown) => call(p, SUBJECTS.applicantsCreate, { body });

async function storedCount(orgId: string): Promise<number> {
  const [r] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1', [orgId]);
  return r!.n;
}

describe('create and get', () => {
  it('stores the applicant for the caller’s organization and mode and reads it back', async () => {
    const p = principal('live');
    const a = await create(p, {
      family_name: 'Okonkwo',
      given_names: ['Chinua'],
      email: 'c@example.com',
      date_of_birth: '1930-11-16',
      address: { city: 'Ogidi', country: 'NG' },
    });
    assert.match(a.id, /^app_[A-Za-z0-9]{24}$/);
    assert.deepEqual(a, {
      id: a.id,
      object: 'applicant',
      mode: 'live',
      family_name: 'Okonkwo',
      given_names: ['Chinua'],
      name_suffix: null,
      email: 'c@example.com',
      phone: null,
      date_of_birth: '1930-11-16',
      address: { city: 'Ogidi', country: 'NG' },
      external_id: null,
      erased: false,
      created_at: a.created_at,
    });
    assert.deepEqual(await call(p, SUBJECTS.applicantsGet, { id: a.id }), a);
    const rows = await query(db.url, 'SELECT org_id, mode, family_name FROM applicants.applicants WHERE id = $1', [a.id]);
    assert.deepEqual(rows, [{ org_id: p.org_id, mode: 'live', family_name: 'Okonkwo' }]);
  });

  it('creates and reads sent at once (written and read together) each get their own row, exactly as sent', async () => {
    const p = principal('test');
    const other = principal('test');
    const bodies = Array.from({ length: 40 }, (_, i) => ({
      family_name: `Family ${i}`,
      given_names: i % 4 === 0 ? [] : ['Zoë', 'O"Neil, Jr', `{${i}}`, '  spaced  '].slice(0, 1 + (i % 4)),
      ...(i % 3 === 0 ? { date_of_birth: '2000-02-29', address: { line1: `${i} Rue de la Loi`, country: 'BE' } } : {}),
      ...(i % 5 === 0 ? { email: `a${i}@example.com`, external_id: `ext-${i}` } : {}),
    }));
    const created = await Promise.all(bodies.map((b) => create(p, b)));
    assert.equal(new Set(created.map((a) => a.id)).size, bodies.length);
    created.forEach((a, i) => {
      const b = bodies[i]!;
      assert.equal(a.family_name, b.family_name);
      assert.deepEqual(a.given_names, b.given_names);
      assert.equal(a.date_of_birth, b.date_of_birth ?? null);
      assert.deepEqual(a.address, b.address ?? null);
      assert.equal(a.email, b.email ?? null);
    });
    // the owner's reads and another organization's reads of the same ids, side by side
    const [mine, theirs] = await Promise.all([
      Promise.all(created.map((a) => call(p, SUBJECTS.applicantsGet, { id: a.id }))),
      Promise.allSettled(created.map((a) => call(other, SUBJECTS.applicantsGet, { id: a.id }))),
    ]);
    assert.deepEqual(mine, created);
    assert.ok(theirs.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'resource_not_found'));
    assert.equal(await storedCount(p.org_id), bodies.length);
  });

  it("another organization's or the other mode's applicant does not exist for the caller", async () => {
    const owner = principal('test');
    const a = await create(owner, { family_name: 'Private' });
    const sameOrgLive = principal('live', owner.org_id);
    const otherOrg = principal('test');
    for (const p of [sameOrgLive, otherOrg]) {
      const e = await refusal(call(p, SUBJECTS.applicantsGet, { id: a.id }));
      assert.equal(e.code, 'resource_not_found');
      assert.equal(e.param, undefined);
      assert.ok(!e.message.includes(a.id));
      assert.deepEqual((await call(p, SUBJECTS.applicantsList, {})).data, []);
    }
    for (const id of ['app_short', `ses_${'A'.repeat(24)}`, `app_${'A'.repeat(24)}`, '']) {
      assert.equal((await refusal(call(owner, SUBJECTS.applicantsGet, { id }))).code, 'resource_not_found', id);
    }
  });

  it('a refused create writes no row', async () => {
    const p = principal();
    for (const body of [{}, { family_name: 'X', first_name: 'Y' }, { family_name: 'X', colour: 'red' }, { family_name: 'X', email: 'nope' }, null, []]) {
      const e = await refusal(create(p, body));
      assert.equal(e.code, 'validation_error', JSON.stringify(body));
      assert.ok(Array.isArray((e.details as { issues: unknown[] }).issues));
    }
    assert.equal(await storedCount(p.org_id), 0);
  });

  it('a message without a principal is refused and writes nothing', async () => {
    const e = await refusal(call(null, SUBJECTS.applicantsCreate, { body: { family_name: 'Anonymous' } }));
    assert.equal(e.code, 'internal_error');
    const rows = await query(db.url, "SELECT id FROM applicants.applicants WHERE family_name = 'Anonymous'");
    assert.deepEqual(rows, []);
  });

  it('a request whose deadline has passed writes nothing: the caller already answered 503', async () => {
    const p = principal();
    const req: RpcRequest<ReqOf<typeof SUBJECTS.applicantsCreate>> = {
      principal: p,
      seal: testSigner().seal(p, 'req_int_late', Date.now() + 5000),
      deadline: Date.now() - 1000,
      payload: { body: { family_name: 'Too late' } },
    };
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, 'req_int_late');
    const msg = await nc.request(qualify(root, SUBJECTS.applicantsCreate), encodeJson(req), { timeout: 5000, headers: h });
    const reply = decodeJson<RpcReply<Applicant>>(msg.data);
    assert.equal(reply.ok, false);
    assert.equal(!reply.ok && reply.error.code, 'service_unavailable');
    assert.equal(await storedCount(p.org_id), 0);
    // the same request within its deadline is written
    await create(p, { family_name: 'On time' });
    assert.equal(await storedCount(p.org_id), 1);
  });
});

describe('deadline margin', () => {
  let skewed: ServiceUnderTest<unknown> | undefined;
  before(async () => {
    skewed = await startServiceUnderTest({ def: APPLICANTS_SERVICE, module: ApplicantsModule, env: applicantsEnv, vars: { ...APPLICANTS_TEST_VARS, DEADLINE_MARGIN_MS: '1500' } });
  });
  after(() => skewed?.close());

  /** A create whose caller gives up `ms` from now (by the caller's clock). */
  async function createWithin(p: Principal, family_name: string, ms: number): Promise<RpcReply<Applicant>> {
    const deadline = Date.now() + ms;
    const req: RpcRequest<ReqOf<typeof SUBJECTS.applicantsCreate>> = { principal: p, seal: testSigner().seal(p, 'req_int_margin', deadline), deadline, payload: { body: { family_name } } };
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, 'req_int_margin');
    const msg = await skewed!.nc.request(qualify(skewed!.root, SUBJECTS.applicantsCreate), encodeJson(req), { timeout: 5000, headers: h });
    return decodeJson<RpcReply<Applicant>>(msg.data);
  }

  it('a create whose caller gives up within the margin writes nothing and answers 503: a clock behind the caller\'s cannot commit late', async () => {
    const p = principal();
    const late = await createWithin(p, 'Inside the margin', 1000);
    assert.equal(late.ok, false);
    assert.equal(!late.ok && late.error.code, 'service_unavailable');
    const ontime = await createWithin(p, 'Beyond the margin', 4000);
    assert.equal(ontime.ok, true);
    const rows = await query<{ family_name: string }>(skewed!.db.url, 'SELECT family_name FROM applicants.applicants WHERE org_id = $1', [p.org_id]);
    assert.deepEqual(rows.map((r) => r.family_name), ['Beyond the margin']);
  });
});

describe('list', () => {
  it('newest first, paged with limit and next_cursor, scoped by organization and mode', async () => {
    const p = principal('test');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(p, { family_name: `Page ${i}` })).id);
    // rows of the same organization in the other mode, and of another organization, interleaved
    await create(principal('live', p.org_id), { family_name: 'Live' });
    await create(principal('test'), { family_name: 'Stranger' });
    const newestFirst = [...ids].reverse();

    const all = await call(p, SUBJECTS.applicantsList, {});
    assert.deepEqual(all.data.map((a) => a.id), newestFirst);
    assert.equal(all.next_cursor, null);

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: ResOf<typeof SUBJECTS.applicantsList> = await call(p, SUBJECTS.applicantsList, cursor === null ? { limit: '2' } : { limit: '2', cursor });
      pages.push(page.data.map((a) => a.id));
      cursor = page.next_cursor;
    } while (cursor !== null && pages.length < 10);
    assert.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);

    // a cursor only positions within the caller's own rows
    const first = await call(p, SUBJECTS.applicantsList, { limit: '2' });
    const stranger = principal('test');
    assert.deepEqual((await call(stranger, SUBJECTS.applicantsList, { cursor: first.next_cursor! })).data, []);
  });

  it('refuses bad limits, cursors and unknown parameters with validation_error naming them', async () => {
    const p = principal();
    const cases: Array<[ReqOf<typeof SUBJECTS.applicantsList>, string]> = [
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ limit: 'x' }, 'limit'],
      [{ limit: ['1', '2'] }, 'limit'],
      [{ cursor: 'nope' }, 'cursor'],
      [{ cursor: Buffer.from('c1.99999999999999999999').toString('base64url') }, 'cursor'],
      [{ cursor: Buffer.from('c1.9223372036854775808').toString('base64url') }, 'cursor'],
      [{ status: 'pending' }, 'status'],
    ];
    for (const [q, param] of cases) {
      const e = await refusal(call(p, SUBJECTS.applicantsList, q));
      assert.equal(e.code, 'validation_error', JSON.stringify(q));
      assert.equal(e.param, param, JSON.stringify(q));
    }
  });
});

describe('what Postgres cannot store is refused, never an internal error', () => {
  it('NUL characters and year 0000 are validation errors, and nothing is written', async () => {
    const p = principal();
    for (const body of [
      { family_name: `Nul${String.fromCharCode(0)}` },
      { family_name: 'X', given_names: [`A${String.fromCharCode(0)}`] },
      { family_name: 'X', address: { region: String.fromCharCode(0) } },
      { family_name: 'X', date_of_birth: '0000-12-31' },
    ]) {
      assert.equal((await refusal(create(p, body))).code, 'validation_error', JSON.stringify(body));
    }
    assert.equal(await storedCount(p.org_id), 0);
  });
});

describe("the console's names (applicants.console.names.v1)", () => {
  /** A console person's principal (every role may ask), signed by the console. */
  const person = (org: string, mode: 'test' | 'live' = 'test', role: 'reviewer' | 'developer' = 'reviewer') => {
    const user_id = newId('consoleUser');
    return testPrincipal({ org_id: org, mode, key_id: user_id, actor: { user_id, role } });
  };
  const names = (p: Principal | null, payload: Record<string, unknown>) =>
    new RpcClient(nc, root, 5000, { signer: testSigner('console') }).call(SUBJECTS.applicantsConsoleNames, payload, { principal: p, requestId: 'req_int_applicants_names' });

  it("answers the names of the principal's organization and mode only, and searches them by a word of the name", async () => {
    const org = newId('org');
    const mine = await create(principal('test', org), { family_name: 'Lehtinen', given_names: ['Aino', 'Maria'] });
    const hyphen = await create(principal('test', org), { family_name: 'King-Lovelace', given_names: ['Ada'] });
    const live = await create(principal('live', org), { family_name: 'Lehtinen', given_names: ['Aino'] });
    const theirs = await create(principal('test'), { family_name: 'Lehtinen', given_names: ['Aino'] });
    const p = person(org);
    const got = await names(p, { ids: [mine.id, live.id, theirs.id, 'not-an-id'], org_id: theirs.id });
    assert.deepEqual(got, { data: [{ id: mine.id, family_name: 'Lehtinen', given_names: ['Aino', 'Maria'], erased: false }], truncated: false });
    assert.deepEqual((await names(p, { search: 'aino LEHT' })).data.map((n) => n.id), [mine.id]);
    assert.deepEqual((await names(p, { search: 'lovelace' })).data.map((n) => n.id), [hyphen.id], 'a hyphenated name by its second half');
    assert.deepEqual((await names(p, { search: '%' })).data, [], 'LIKE patterns are text');
    assert.deepEqual((await names(person(org, 'live', 'developer'), { search: 'lehtinen' })).data.map((n) => n.id), [live.id]);
    assert.equal((await refusal(names(p, { search: 'x'.repeat(101) }))).code, 'validation_error');
    assert.equal((await refusal(names(p, { ids: Array.from({ length: 101 }, () => mine.id) }))).code, 'validation_error');
    // only a principal the console signed for a person
    assert.equal((await refusal(names(principal('test', org), { search: 'lehtinen' }))).code, 'internal_error');
    assert.equal((await refusal(names(null, { search: 'lehtinen' }))).code, 'internal_error');
  });
});
