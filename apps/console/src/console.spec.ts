import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { consoleCookies, mustEnrol, sameOrigin, tokensEqual } from './app.js';
import { openRecord, sealRecord, sessionSigningKey } from './auth/session-store.js';
import { keyScopesOf, mayOpen, PAGES, scopesOf } from './auth/roles.js';
import { safeNext } from './server.js';

describe('console roles', () => {
  it('follow contract §19, and only owners manage the team', () => {
    const who = Object.fromEntries(PAGES.map((p) => [p.name, (['owner', 'admin', 'developer', 'reviewer'] as const).filter((r) => mayOpen(r, p.name))]));
    assert.deepEqual(who, {
      verifications: ['owner', 'admin', 'developer', 'reviewer'],
      review: ['owner', 'admin', 'reviewer'],
      keys: ['owner', 'admin', 'developer'],
      webhooks: ['owner', 'admin'],
      'test-data': ['owner', 'admin'],
      logs: ['owner', 'admin', 'developer'],
      usage: ['owner', 'admin'],
      billing: ['owner', 'admin'],
      users: ['owner'],
      account: ['owner', 'admin', 'developer', 'reviewer'],
    });
  });

  it('give a developer no write scope and a reviewer no workflow or webhook write', () => {
    assert.deepEqual(scopesOf('developer').filter((s) => s.endsWith(':write')), []);
    assert.equal(scopesOf('reviewer').includes('workflows:write'), false);
    assert.equal(scopesOf('reviewer').includes('sessions:write'), true, 'a reviewer decides');
  });

  it('let only owners and admins give live keys scopes; a developer test keys; a reviewer none', () => {
    for (const role of ['owner', 'admin'] as const) for (const mode of ['test', 'live'] as const) assert.ok(keyScopesOf(role, mode).includes('dsar:write'), `${role} ${mode}`);
    assert.deepEqual(keyScopesOf('developer', 'live'), []);
    assert.ok(keyScopesOf('developer', 'test').includes('sessions:write'));
    assert.deepEqual([keyScopesOf('reviewer', 'test'), keyScopesOf('reviewer', 'live')], [[], []]);
  });
});

describe('console requests', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;
  const origin = 'https://console.us.example.com';

  it("accept a post only from the console's own origin", () => {
    assert.equal(sameOrigin(req({ origin }), origin), true);
    assert.equal(sameOrigin(req({ origin: 'https://evil.example' }), origin), false);
    assert.equal(sameOrigin(req({ origin: 'null' }), origin), false);
    assert.equal(sameOrigin(req({ referer: `${origin}/keys` }), origin), true, 'no Origin: the Referer decides');
    assert.equal(sameOrigin(req({ referer: `${origin}.evil.example/keys` }), origin), false);
    assert.equal(sameOrigin(req({}), origin), false, 'neither: refused');
    assert.equal(sameOrigin(req({ origin, 'sec-fetch-site': 'cross-site' }), origin), false);
  });

  it('compare form tokens whole, and never accept an empty one', () => {
    assert.equal(tokensEqual('abc', 'abc'), true);
    assert.equal(tokensEqual('abc', 'abd'), false);
    assert.equal(tokensEqual('', ''), false);
    assert.equal(tokensEqual('ab', 'abc'), false);
  });

  it('redirect after sign-in only to a path of the console', () => {
    assert.equal(safeNext('/verifications?status=completed'), '/verifications?status=completed');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)', '/login', null, '']) assert.equal(safeNext(bad), '/', String(bad));
  });
});

describe('console session records', () => {
  const key = sessionSigningKey('a-test-secret-of-at-least-32-characters');
  const record = { user_id: 'usr_A', org_id: 'org_A', mode: 'test' as const, csrf: 'c', epoch: 0, created_at: 1_000_000 };
  const at = 'us:console:session:abc';
  const DAY = 86_400_000;

  it('open only as sealed, under the key they were sealed for, within their lifetime', () => {
    const sealed = sealRecord(key, at, record);
    assert.deepEqual(openRecord(key, at, sealed, record.created_at + 1000, DAY), record);
    assert.equal(openRecord(key, 'us:console:session:other', sealed, record.created_at + 1000, DAY), null, 'moved to another cookie');
    assert.equal(openRecord(sessionSigningKey('another-region-secret-of-32-characters!'), at, sealed, record.created_at + 1000, DAY), null, 'another secret');
    assert.equal(openRecord(key, at, sealed, record.created_at + DAY, DAY), null, 'past the absolute lifetime');
  });

  it('a record changed or written without the secret opens nothing', () => {
    const sealed = sealRecord(key, at, record);
    const [mac, json] = [sealed.slice(0, sealed.indexOf('.')), sealed.slice(sealed.indexOf('.') + 1)];
    const escalated = `${mac}.${json.replace('usr_A', 'usr_B')}`;
    assert.equal(openRecord(key, at, escalated, record.created_at + 1000, DAY), null, 'another user');
    assert.equal(openRecord(key, at, `${mac}.${json.replace('"created_at":1000000', `"created_at":${record.created_at + DAY}`)}`, record.created_at + 1000, DAY), null, 'a later start');
    assert.equal(openRecord(key, at, JSON.stringify(record), record.created_at + 1000, DAY), null, 'unsigned, as records were before');
    assert.equal(openRecord(key, at, `.${json}`, record.created_at + 1000, DAY), null);
  });

  it('are named with the __Host- prefix when the console is served over https', () => {
    assert.deepEqual(consoleCookies({ CONSOLE_PUBLIC_ORIGIN: 'https://console.us.example.com' }), { session: '__Host-verity_console', login: '__Host-verity_console_login', challenge: '__Host-verity_console_2fa' });
    assert.deepEqual(consoleCookies({ CONSOLE_PUBLIC_ORIGIN: 'http://127.0.0.1:8090' }), { session: 'verity_console', login: 'verity_console_login', challenge: 'verity_console_2fa' });
  });
});

describe('console two-factor requirement', () => {
  it('sends to the setup only a person whose organization requires it and who has not set it up', () => {
    const user = { id: 'usr_A', object: 'console_user', org_id: 'org_A', email: 'a@example.com', role: 'developer', created_at: '', session_epoch: 0, disabled_at: null } as const;
    assert.equal(mustEnrol({ ...user, totp_required: true, totp_enabled_at: null }), true);
    assert.equal(mustEnrol({ ...user, totp_required: true, totp_enabled_at: '2026-01-01T00:00:00.000Z' }), false);
    assert.equal(mustEnrol({ ...user, totp_required: false, totp_enabled_at: null }), false);
  });
});
