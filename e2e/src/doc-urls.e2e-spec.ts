/**
 * Every `doc_url` resolves (docs/errors.md): for every code of the catalogue, the doc_url the gateway builds is
 * fetched from the running gateway of each region and answers 200 HTML holding the anchor `id="<code>"`; real
 * errors (401, 403, 404, 422) are provoked and their doc_urls followed.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CATALOGUE, toEnvelope, type ErrorCode } from '@verity/errors';
import { client, closeOperators, E2E, errorOf, orgWithKey, type Region } from './support.js';

after(closeOperators);

const REGIONS: Region[] = ['us', 'eu'];
/** What the stack gives each gateway (tools/stack): its own address + /docs, unless DOCS_BASE_URL is set. */
const docsBase = (r: Region) => process.env.DOCS_BASE_URL ?? `${E2E.url[r]}/docs`;

/** Follows a doc_url as a browser would (the fragment stays with the client) and checks its anchor is there. */
async function follow(docUrl: string, code: string): Promise<Response> {
  const url = new URL(docUrl);
  assert.equal(url.hash, `#${code}`, docUrl);
  const res = await fetch(url);
  const html = await res.text();
  assert.equal(res.status, 200, docUrl);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', docUrl);
  assert.ok(html.includes(`id="${code}"`), `${docUrl}: no element with id="${code}"`);
  return res;
}

describe('every doc_url the error catalogue can produce resolves', () => {
  for (const r of REGIONS) {
    it(`${r}: the doc_url of every code, as the gateway builds it, is a page with that code's anchor`, async () => {
      const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
      assert.ok(codes.length >= 27, `${codes.length} codes`);
      for (const code of codes) {
        const { doc_url } = toEnvelope({ code, message: ERROR_CATALOGUE[code].message }, 'req_e2e', docsBase(r)).error;
        assert.ok(doc_url.startsWith('http://') || doc_url.startsWith('https://'), `${doc_url} is absolute`);
        await follow(doc_url, code);
      }
    });

    it(`${r}: a real 401, 403, 404 and 422 carry doc_urls that resolve to their anchors`, async () => {
      const anonymous = client(r);
      const unauthenticated = errorOf(await anonymous('GET', '/v1/me'));
      assert.equal(unauthenticated.code, 'authentication_required');
      assert.equal(unauthenticated.doc_url, `${docsBase(r)}/errors#authentication_required`);
      await follow(unauthenticated.doc_url, 'authentication_required');

      const other: Region = r === 'us' ? 'eu' : 'us';
      const mismatch = errorOf(await anonymous('GET', '/v1/me', { key: `idv_sk_${other}_test_${'Z'.repeat(43)}` }));
      assert.equal(mismatch.code, 'region_mismatch');
      await follow(mismatch.doc_url, 'region_mismatch');

      const noRoute = errorOf(await anonymous('GET', '/v1/no-such-route'));
      assert.equal(noRoute.code, 'route_not_found');
      await follow(noRoute.doc_url, 'route_not_found');

      const { key } = await orgWithKey(r, { scopes: ['applicants:write'] });
      const invalid = errorOf(await client(r, key)('POST', '/v1/applicants', { body: { given_names: ['Ada'] } }));
      assert.equal(invalid.code, 'validation_error');
      await follow(invalid.doc_url, 'validation_error');
    });
  }

  it('the page needs no key, loads nothing from elsewhere, and is cacheable with a validator', async () => {
    const res = await follow(`${docsBase('us')}/errors#internal_error`, 'internal_error');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    const etag = res.headers.get('etag');
    assert.ok(etag);
    const again = await fetch(`${docsBase('us')}/errors`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    // another region's page is its own, and says the same
    assert.equal((await fetch(`${docsBase('eu')}/errors`)).headers.get('etag'), etag);
  });
});
