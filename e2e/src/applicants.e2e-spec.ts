import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applicantRows, client, closeOperators, createKey, errorOf, orgWithKey, rows, type Region } from './support.js';

after(closeOperators);

interface Applicant {
  id: string;
  object: string;
  mode: string;
  family_name: string;
  given_names: string[];
  name_suffix: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  address: Record<string, string> | null;
  external_id: string | null;
  created_at: string;
}
interface Issue {
  code: string;
  message: string;
  path: (string | number)[];
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function issuesOf(res: { body: unknown }): Issue[] {
  return ((res.body as { error: { details: { issues: Issue[] } } }).error.details.issues);
}

/** The error body without the per-request parts, to compare two refusals. */
function shapeOf(res: { body: unknown }): Record<string, unknown> {
  const { request_id: _r, ...rest } = (res.body as { error: Record<string, unknown> }).error;
  return rest;
}

describe('POST /v1/applicants', () => {
  for (const region of ['us', 'eu'] as Region[]) {
    it(`${region}: 201 with the full applicant, the same on GET, stored in the ${region} database only`, async () => {
      const { org, key } = await orgWithKey(region);
      const c = client(region, key);
      const body = {
        family_name: 'García Márquez',
        given_names: ['Gabriel', 'José'],
        name_suffix: 'Jr.',
        email: 'gabo@example.com',
        phone: '+5715550123',
        date_of_birth: '1927-03-06',
        address: { line1: 'Calle 1', line2: 'Casa 2', city: 'Aracataca', region: 'Magdalena', postal_code: '478001', country: 'CO' },
        external_id: 'crm-42',
      };
      const res = await c<{ data: Applicant }>('POST', '/v1/applicants', { body });
      assert.equal(res.status, 201, res.text);
      assert.match(res.headers.get('x-request-id') ?? '', /^req_[A-Za-z0-9]+$/);
      const a = res.body.data;
      assert.match(a.id, /^app_[A-Za-z0-9]+$/);
      assert.match(a.created_at, ISO_UTC);
      assert.deepEqual(res.body, { data: { id: a.id, object: 'applicant', mode: 'test', ...body, erased: false, created_at: a.created_at } });

      const got = await c<{ data: Applicant }>('GET', `/v1/applicants/${a.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, res.body);

      const stored = await rows(region, 'SELECT org_id, mode, family_name, given_names, email FROM applicants.applicants WHERE id = $1', [a.id]);
      assert.deepEqual(stored, [{ org_id: org.id, mode: 'test', family_name: 'García Márquez', given_names: ['Gabriel', 'José'], email: 'gabo@example.com' }]);
      const other: Region = region === 'us' ? 'eu' : 'us';
      assert.deepEqual(await rows(other, 'SELECT id FROM applicants.applicants WHERE id = $1', [a.id]), [], 'never written to the other region');
    });
  }

  it('a mononym: family_name alone, given_names [] whether sent or omitted, optional fields null', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    for (const body of [{ family_name: 'Suharto' }, { family_name: 'Suharto', given_names: [] }]) {
      const res = await c<{ data: Applicant }>('POST', '/v1/applicants', { body });
      assert.equal(res.status, 201, res.text);
      const { id, created_at } = res.body.data;
      assert.deepEqual(res.body.data, {
        id,
        object: 'applicant',
        mode: 'test',
        family_name: 'Suharto',
        given_names: [],
        name_suffix: null,
        email: null,
        phone: null,
        date_of_birth: null,
        address: null,
        external_id: null,
        erased: false,
        created_at,
      });
    }
  });

  it('a surname of several words stays one value; a middle name is one more given name, in order', async () => {
    const { key } = await orgWithKey('us');
    const res = await client('us', key)<{ data: Applicant }>('POST', '/v1/applicants', {
      body: { family_name: 'van der Berg', given_names: ['Anna', 'Maria', 'Louise'] },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.family_name, 'van der Berg');
    assert.deepEqual(res.body.data.given_names, ['Anna', 'Maria', 'Louise']);
  });

  it('each legacy or whole-name field is 422 validation_error naming the replacement fields, param = the field; nothing stored', async () => {
    const { org, key } = await orgWithKey('us');
    const c = client('us', key);
    const replacements: Record<string, string[]> = {
      first_name: ['given_names'],
      middle_name: ['given_names'],
      last_name: ['family_name'],
      legal_name: ['family_name', 'given_names', 'name_suffix'],
      name: ['family_name', 'given_names', 'name_suffix'],
      full_name: ['family_name', 'given_names', 'name_suffix'],
    };
    for (const [field, names] of Object.entries(replacements)) {
      // with and without the new fields beside it: the legacy field is refused either way
      for (const body of [{ family_name: 'Doe', [field]: 'Jane Doe' }, { [field]: 'Jane Doe' }]) {
        const res = await c('POST', '/v1/applicants', { body });
        assert.equal(res.status, 422, `${field}: ${res.text}`);
        const e = errorOf(res);
        assert.equal(e.code, 'validation_error');
        assert.equal(e.type, 'invalid_request_error');
        assert.equal(e.param, field);
        const issue = issuesOf(res).find((i) => i.path[0] === field);
        assert.ok(issue, `an issue for ${field}`);
        assert.deepEqual(issue.path, [field]);
        for (const n of names) assert.ok(issue.message.includes(n), `${field}: "${issue.message}" names ${n}`);
        assert.ok(!res.text.includes('Jane Doe'), 'the submitted value is not echoed');
      }
    }
    assert.equal(await applicantRows('us', org.id), 0);
  });

  it('unknown fields are refused, at the top level and inside address; nothing stored', async () => {
    const { org, key } = await orgWithKey('us');
    const c = client('us', key);
    const cases: Array<[Record<string, unknown>, string, (string | number)[]]> = [
      [{ family_name: 'Doe', nickname: 'JD' }, 'nickname', ['nickname']],
      [{ family_name: 'Doe', givenNames: ['Jane'] }, 'givenNames', ['givenNames']],
      [{ family_name: 'Doe', address: { country: 'US', planet: 'Mars' } }, 'address', ['address', 'planet']],
    ];
    for (const [body, param, path] of cases) {
      const res = await c('POST', '/v1/applicants', { body });
      assert.equal(res.status, 422, JSON.stringify(body));
      const e = errorOf(res);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, param);
      assert.deepEqual(issuesOf(res).map((i) => i.path), [path]);
    }
    assert.equal(await applicantRows('us', org.id), 0);
  });

  it('field formats: email, E.164 phone, date_of_birth (real, not future), country alpha-2, required family_name; nothing stored', async () => {
    const { org, key } = await orgWithKey('us');
    const c = client('us', key);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const refused: Array<[Record<string, unknown>, string, (string | number)[]]> = [
      [{}, 'family_name', ['family_name']],
      [{ family_name: '' }, 'family_name', ['family_name']],
      [{ family_name: 'x'.repeat(201) }, 'family_name', ['family_name']],
      [{ family_name: 'Doe', given_names: 'Jane' }, 'given_names', ['given_names']],
      [{ family_name: 'Doe', given_names: ['Jane', ''] }, 'given_names', ['given_names', 1]],
      [{ family_name: 'Doe', email: 'not-an-email' }, 'email', ['email']],
      [{ family_name: 'Doe', phone: '4155550123' }, 'phone', ['phone']],
      [{ family_name: 'Doe', phone: '+1 415 555 0123' }, 'phone', ['phone']],
      [{ family_name: 'Doe', phone: '+0415550123' }, 'phone', ['phone']],
      [{ family_name: 'Doe', date_of_birth: tomorrow }, 'date_of_birth', ['date_of_birth']],
      [{ family_name: 'Doe', date_of_birth: '1990-02-30' }, 'date_of_birth', ['date_of_birth']],
      [{ family_name: 'Doe', date_of_birth: '06/03/1990' }, 'date_of_birth', ['date_of_birth']],
      [{ family_name: 'Doe', address: { country: 'USA' } }, 'address', ['address', 'country']],
      [{ family_name: 'Doe', address: { country: 'us' } }, 'address', ['address', 'country']],
      [{ family_name: 'Doe', address: { country: 'ZZ' } }, 'address', ['address', 'country']],
      // what Postgres cannot store is refused up front, never answered 500
      [{ family_name: 'Do\u0000e' }, 'family_name', ['family_name']],
      [{ family_name: 'Doe', given_names: ['Ja\u0000ne'] }, 'given_names', ['given_names', 0]],
      [{ family_name: 'Doe', external_id: '\u0000' }, 'external_id', ['external_id']],
      [{ family_name: 'Doe', address: { line2: 'Flat\u00001' } }, 'address', ['address', 'line2']],
      [{ family_name: 'Doe', date_of_birth: '0000-01-01' }, 'date_of_birth', ['date_of_birth']],
    ];
    for (const [body, param, path] of refused) {
      const res = await c('POST', '/v1/applicants', { body });
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      const e = errorOf(res);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, param, JSON.stringify(body));
      assert.deepEqual(issuesOf(res)[0]!.path, path, JSON.stringify(body));
    }
    for (const body of [[{ family_name: 'Doe' }], 'Doe', null]) {
      assert.equal((await c('POST', '/v1/applicants', { body })).status, 422);
    }
    assert.equal(await applicantRows('us', org.id), 0, 'no refused request stored anything');

    const today = new Date().toISOString().slice(0, 10);
    const ok = await c<{ data: Applicant }>('POST', '/v1/applicants', {
      body: { family_name: 'Doe', phone: '+14155550123', date_of_birth: today, address: { country: 'DE' }, email: 'jane.doe@example.org' },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.date_of_birth, today);
    assert.equal(await applicantRows('us', org.id), 1);
  });
});

describe('GET /v1/applicants/{id}: visibility', () => {
  it("another organization's applicant, the other mode's and a malformed or unknown id are the same 404, echoing nothing", async () => {
    const a = await orgWithKey('us');
    const b = await orgWithKey('us');
    const live = await createKey('us', a.org.id, { mode: 'live', scopes: ['applicants:read', 'applicants:write'] });
    const created = await client('us', a.key)<{ data: Applicant }>('POST', '/v1/applicants', { body: { family_name: 'Owned' } });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal((await client('us', a.key)('GET', `/v1/applicants/${id}`)).status, 200);

    const malformed = await client('us', a.key)('GET', '/v1/applicants/app_nope');
    const unknown = await client('us', a.key)('GET', `/v1/applicants/app_${'A'.repeat(24)}`);
    const otherOrg = await client('us', b.key)('GET', `/v1/applicants/${id}`);
    const otherMode = await client('us', live.key)('GET', `/v1/applicants/${id}`);
    for (const res of [malformed, unknown, otherOrg, otherMode]) {
      assert.equal(res.status, 404, res.text);
      const e = errorOf(res);
      assert.equal(e.code, 'resource_not_found');
      assert.equal(e.type, 'invalid_request_error');
      assert.equal(e.param, undefined);
      assert.equal(e.details, undefined);
      assert.deepEqual(shapeOf(res), shapeOf(malformed));
      assert.ok(!res.text.includes(id), 'the id is not echoed');
    }
    // the live key of the same organization also lists nothing of test mode, and vice versa
    assert.deepEqual((await client('us', live.key)<{ data: unknown[] }>('GET', '/v1/applicants')).body.data, []);
    const liveApp = await client('us', live.key)<{ data: Applicant }>('POST', '/v1/applicants', { body: { family_name: 'Live' } });
    assert.equal(liveApp.status, 201);
    assert.equal(liveApp.body.data.mode, 'live');
    const testList = await client('us', a.key)<{ data: Applicant[] }>('GET', '/v1/applicants');
    assert.deepEqual(testList.body.data.map((x) => x.id), [id]);
    assert.equal((await client('us', a.key)('GET', `/v1/applicants/${liveApp.body.data.id}`)).status, 404);
    assert.deepEqual((await client('us', b.key)<{ data: unknown[] }>('GET', '/v1/applicants')).body.data, []);
  });

  it('eu cannot see a us applicant: an eu key gets 404 for its id, a us key on eu gets region_mismatch', async () => {
    const us = await orgWithKey('us');
    const eu = await orgWithKey('eu');
    const created = await client('us', us.key)<{ data: Applicant }>('POST', '/v1/applicants', { body: { family_name: 'Pinned' } });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const res = await client('eu', eu.key)('GET', `/v1/applicants/${id}`);
    assert.equal(res.status, 404);
    assert.equal(errorOf(res).code, 'resource_not_found');
    assert.ok(!res.text.includes(id));
    assert.deepEqual((await client('eu', eu.key)<{ data: unknown[] }>('GET', '/v1/applicants')).body.data, []);
    const mismatch = await client('eu', us.key)('GET', `/v1/applicants/${id}`);
    assert.equal(mismatch.status, 403);
    assert.equal(errorOf(mismatch).code, 'region_mismatch');
    assert.ok(!mismatch.text.includes('Pinned'));
  });

  it('HEAD is not a route: 404 with or without a key, never served', async () => {
    const { key } = await orgWithKey('us');
    const created = await client('us', key)<{ data: Applicant }>('POST', '/v1/applicants', { body: { family_name: 'Head' } });
    for (const p of ['/v1/applicants', `/v1/applicants/${created.body.data.id}`, '/v1/me']) {
      for (const k of [undefined, key]) {
        const res = await client('us', k)('HEAD', p);
        assert.equal(res.status, 404, `HEAD ${p} ${k ? 'with' : 'without'} a key`);
        assert.equal(res.text, '');
      }
    }
  });
});

describe('GET /v1/applicants: the list', () => {
  it('pages newest first with limit and next_cursor, in both regions', async () => {
    for (const region of ['us', 'eu'] as Region[]) {
      const { key } = await orgWithKey(region);
      const c = client(region, key);
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const res = await c<{ data: Applicant }>('POST', '/v1/applicants', { body: { family_name: `Applicant ${i}` } });
        assert.equal(res.status, 201);
        ids.push(res.body.data.id);
      }
      const newestFirst = [...ids].reverse();

      const all = await c<{ data: Applicant[]; next_cursor: string | null }>('GET', '/v1/applicants');
      assert.equal(all.status, 200);
      assert.deepEqual(Object.keys(all.body).sort(), ['data', 'next_cursor']);
      assert.deepEqual(all.body.data.map((a) => a.id), newestFirst);
      assert.equal(all.body.next_cursor, null);
      assert.equal(all.body.data[0]!.object, 'applicant');
      assert.equal(all.body.data[0]!.family_name, 'Applicant 5');

      const seen: string[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const q: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
        const page = await c<{ data: Applicant[]; next_cursor: string | null }>('GET', `/v1/applicants${q}`);
        assert.equal(page.status, 200, page.text);
        sizes.push(page.body.data.length);
        seen.push(...page.body.data.map((a) => a.id));
        cursor = page.body.next_cursor;
      } while (cursor !== null && sizes.length < 10);
      assert.deepEqual(sizes, [2, 2, 1]);
      assert.deepEqual(seen, newestFirst);

      // exactly one full page: no next page announced
      const exact = await c<{ data: Applicant[]; next_cursor: string | null }>('GET', '/v1/applicants?limit=5');
      assert.equal(exact.body.data.length, 5);
      assert.equal(exact.body.next_cursor, null);
      const max = await c<{ data: Applicant[] }>('GET', '/v1/applicants?limit=100');
      assert.equal(max.status, 200);
      assert.equal(max.body.data.length, 5);
    }
  });

  it('the default page is 20', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    await Promise.all(Array.from({ length: 21 }, (_, i) => c('POST', '/v1/applicants', { body: { family_name: `Many ${i}` } })));
    const page = await c<{ data: Applicant[]; next_cursor: string | null }>('GET', '/v1/applicants');
    assert.equal(page.body.data.length, 20);
    assert.equal(typeof page.body.next_cursor, 'string');
    const rest = await c<{ data: Applicant[]; next_cursor: string | null }>('GET', `/v1/applicants?cursor=${encodeURIComponent(page.body.next_cursor!)}`);
    assert.equal(rest.body.data.length, 1);
    assert.equal(rest.body.next_cursor, null);
    assert.equal(new Set([...page.body.data, ...rest.body.data].map((a) => a.id)).size, 21);
  });

  it('a bad limit or cursor and an unknown query parameter are 422 validation_error naming the parameter', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['cursor=abc', 'cursor'],
      ['cursor=', 'cursor'],
      [`cursor=${Buffer.from('c1.x').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('c1.9999999999999999999').toString('base64url')}`, 'cursor'],
      ['colour=red', 'colour'],
      ['family_name=Doe', 'family_name'],
    ];
    for (const [q, param] of cases) {
      const res = await c('GET', `/v1/applicants?${q}`);
      assert.equal(res.status, 422, `${q}: ${res.text}`);
      const e = errorOf(res);
      assert.equal(e.code, 'validation_error', q);
      assert.equal(e.param, param, q);
      assert.equal(issuesOf(res)[0]!.path[0], param, q);
    }
  });
});
