import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { Secret, TOTP } from 'otpauth';
import { activityOf, emailOf, loginPasswordOf, newPasswordOf, normalizeEmail, roleOf } from './console-validation.js';
import { invitationTokenHash, isInvitationToken, newInvitationToken } from './invitation-tokens.js';
import { hashPassword, verifyNobody, verifyPassword } from './passwords.js';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, recoveryCodeOf, stepOf, totpCodeOf, totpStepOf, totpUri } from './totp.js';

function paramOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    return e.param;
  }
  assert.fail('not refused');
}

const ACTIVITY = {
  org_id: 'org_AAAAAAAAAAAAAAAAAAAAAAAA',
  mode: 'test' as const,
  actor_id: 'usr_AAAAAAAAAAAAAAAAAAAAAAAA',
  actor_email: 'Ada@Example.com',
  action: 'console.key.created',
  target_id: 'key_AAAAAAAAAAAAAAAAAAAAAAAA',
  details: { scopes: 'applicants:read', live: false, n: 2, none: null },
};

describe('console users: validation', () => {
  it('addresses are trimmed and lower-cased; anything else is refused', () => {
    assert.equal(normalizeEmail('  Ada.Lovelace@Example.COM '), 'ada.lovelace@example.com');
    for (const v of ['', 'ada', 'ada@', '@example.com', 'ada example@x.com', `${'a'.repeat(64)}@${'b'.repeat(190)}.com`, 5, null, undefined]) {
      assert.equal(normalizeEmail(v), null, String(v));
      assert.equal(paramOf(() => emailOf(v)), 'email');
    }
    assert.equal(normalizeEmail(`${'a'.repeat(60)}@${'b'.repeat(185)}.com`)?.length, 250);
  });

  it('roles are the four of CONSOLE_ROLES', () => {
    for (const r of ['owner', 'admin', 'developer', 'reviewer']) assert.equal(roleOf(r), r);
    for (const r of ['Owner', 'root', '', null]) assert.equal(paramOf(() => roleOf(r)), 'role');
  });

  it('a new password is 12 to 256 characters, counted as characters; the refusal never repeats it', () => {
    assert.equal(newPasswordOf('x'.repeat(12)), 'x'.repeat(12));
    assert.equal(newPasswordOf('😀'.repeat(256)), '😀'.repeat(256));
    for (const p of ['short-pass1', 'x'.repeat(257), 12345678901234, null]) {
      try {
        newPasswordOf(p);
        assert.fail('accepted');
      } catch (e) {
        assert.ok(e instanceof DomainError);
        assert.equal(e.param, 'password');
        assert.ok(!JSON.stringify(e.toData()).includes(String(p)), 'the password is not in the error');
      }
    }
    assert.equal(loginPasswordOf('x'), 'x');
    for (const p of ['', 'x'.repeat(257), undefined]) assert.equal(paramOf(() => loginPasswordOf(p)), 'password');
  });

  it('an activity entry: mode, actor, action, target and scalar details of at most 4 KiB', () => {
    const { org_id: _, ...expected } = ACTIVITY;
    assert.deepEqual(activityOf(ACTIVITY), { ...expected, actor_email: 'ada@example.com' });
    const none = activityOf({ ...ACTIVITY, mode: null, target_id: null, details: {} });
    assert.deepEqual([none.mode, none.target_id, none.details], [null, null, {}]);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ mode: 'prod' }, 'mode'],
      [{ actor_id: 'key_AAAAAAAAAAAAAAAAAAAAAAAA' }, 'actor_id'],
      [{ actor_email: 'nobody' }, 'actor_email'],
      [{ action: 'key.created' }, 'action'],
      [{ action: 'console.Key.Created' }, 'action'],
      [{ action: 'console.' + 'a'.repeat(100) }, 'action'],
      [{ target_id: 'not an id' }, 'target_id'],
      [{ details: [] }, 'details'],
      [{ details: null }, 'details'],
      [{ details: { nested: { a: 1 } } }, 'details'],
      [{ details: { list: [1] } }, 'details'],
      [{ details: { big: 'x'.repeat(4096) } }, 'details'],
    ];
    for (const [over, param] of cases) {
      assert.equal(paramOf(() => activityOf({ ...ACTIVITY, ...over } as typeof ACTIVITY)), param, JSON.stringify(over).slice(0, 80));
    }
  });
});

describe('console users: passwords', () => {
  it('Argon2id with m=19456, t=2, p=1 and a salt of its own; verifies the right password only', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(a, b, 'salted');
    assert.ok(!a.includes('correct horse'));
    assert.equal(await verifyPassword(a, 'correct horse battery'), true);
    assert.equal(await verifyPassword(a, 'correct horse batterY'), false);
    assert.equal(await verifyPassword('not a hash', 'correct horse battery'), false);
    await verifyNobody('correct horse battery');
  });
});

describe('console invitations: tokens', () => {
  it('256 random bits in base64url, kept as their SHA-256 only', () => {
    const [a, b] = [newInvitationToken(), newInvitationToken()];
    assert.notEqual(a, b);
    assert.ok(isInvitationToken(a));
    assert.equal(Buffer.from(a, 'base64url').length, 32);
    assert.equal(invitationTokenHash(a), invitationTokenHash(a), 'the same token finds the same row');
    assert.notEqual(invitationTokenHash(a), invitationTokenHash(b));
    assert.equal(invitationTokenHash('abc'), 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0', 'SHA-256, base64url');
    for (const bad of ['', 'a'.repeat(42), 'a'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}/`, null, 42]) assert.equal(isInvitationToken(bad), false, String(bad));
  });
});

describe('console two-factor sign-in: codes', () => {
  // RFC 6238, appendix B: the SHA-1 secret "12345678901234567890", eight digits; the last six are these codes'
  const RFC_SECRET = new Secret({ buffer: new TextEncoder().encode('12345678901234567890').buffer }).base32;
  const at = (seconds: number) => seconds * 1000;

  it('are the RFC 6238 codes, six digits, 30-second steps', () => {
    for (const [t, code] of [[59, '287082'], [1111111109, '081804'], [1234567890, '005924'], [2000000000, '279037']] as const) {
      assert.equal(totpStepOf(RFC_SECRET, code, at(t), null), stepOf(at(t)), String(t));
    }
  });

  it('take a code of the step before or after, not two steps away', () => {
    const now = at(1_800_000_015);
    const code = (step: number) => new TOTP({ secret: Secret.fromBase32(RFC_SECRET) }).generate({ timestamp: step * 30_000 });
    const s = stepOf(now);
    for (const d of [-1, 0, 1]) assert.equal(totpStepOf(RFC_SECRET, code(s + d), now, null), s + d, `step ${d}`);
    for (const d of [-2, 2]) assert.equal(totpStepOf(RFC_SECRET, code(s + d), now, null), null, `step ${d}`);
    assert.equal(totpStepOf(RFC_SECRET, '000000', now, null), null);
  });

  it('a code is good once: its step, or an earlier one, taken already refuses it', () => {
    const now = at(1_800_000_015);
    const s = stepOf(now);
    const code = new TOTP({ secret: Secret.fromBase32(RFC_SECRET) }).generate({ timestamp: now });
    assert.equal(totpStepOf(RFC_SECRET, code, now, s - 1), s);
    assert.equal(totpStepOf(RFC_SECRET, code, now, s), null, 'replayed within its window');
    assert.equal(totpStepOf(RFC_SECRET, code, now + 30_000, s), null, 'replayed in the next step');
    const previous = new TOTP({ secret: Secret.fromBase32(RFC_SECRET) }).generate({ timestamp: now - 30_000 });
    assert.equal(totpStepOf(RFC_SECRET, previous, now, s), null, 'an older code after a newer one');
  });

  it('secrets of 160 random bits; the otpauth link an app reads', () => {
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.notEqual(secret, newTotpSecret());
    const uri = new URL(totpUri(secret, 'Verity US', 'ada@example.com'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.ok(uri.href.startsWith('otpauth://totp/Verity%20US:ada%40example.com?'), uri.href);
    assert.deepEqual(Object.fromEntries(uri.searchParams), { issuer: 'Verity US', secret, algorithm: 'SHA1', digits: '6', period: '30' });
  });

  it('codes as typed: spaces and dashes dropped; recovery codes in any case, hashed as their 16 letters', () => {
    assert.equal(totpCodeOf(' 123 456 '), '123456');
    for (const bad of ['12345', '1234567', 'abcdef', '']) assert.equal(totpCodeOf(bad), null, bad);
    const codes = newRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    const [c] = codes as [string];
    assert.equal(recoveryCodeOf(c.toUpperCase().replace(/-/g, ' ')), c.replace(/-/g, ''));
    assert.equal(recoveryCodeHash(c.toUpperCase()), recoveryCodeHash(c.replace(/-/g, '')), 'one hash however typed');
    assert.ok(!recoveryCodeHash(c).includes(c.replace(/-/g, '')));
    assert.equal(recoveryCodeOf('abcd-efgh-ijkl-mno1'), null, 'not base32');
  });
});
