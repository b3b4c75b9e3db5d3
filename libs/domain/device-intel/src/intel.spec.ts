import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FIXED_FIELDS } from '@verity/screening-engine';
import { deviceIntel, parseAddressList, parseSignals, UNCOMPUTED_FRAUD_FIELDS, type DeviceIntelInput, type Signals } from './index.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36';

const HUMAN: Signals = parseSignals({
  paste_count: 0,
  step_seconds: { consent: 6.2, document_front: 14.1, document_back: 9.7, selfie: 8 },
  webdriver: false,
  headless: false,
  touch_points: 5,
  form_factor: 'mobile',
  time_zone: 'Europe/Paris',
});

/** A verification with everything known and nothing suspicious. */
function base(over: Partial<DeviceIntelInput> = {}): DeviceIntelInput {
  return {
    signals: HUMAN,
    connection: { start: { ip: '192.0.2.10', user_agent: CHROME }, submit: { ip: '192.0.2.77', user_agent: CHROME } },
    device_id: 'dev_7f3a9c',
    deviceSessions: 1,
    deviceDistinctIps: 1,
    priorApplicantsWithDocument: 0,
    ring: { size: 1, truncated: false },
    email: 'ada.lovelace@example.com',
    addressCountry: 'FR',
    documentIssuingCountry: 'FR',
    lists: { torExits: parseAddressList('203.0.113.5\n'), badNetworks: parseAddressList('198.51.100.0/24\n') },
    ...over,
  };
}

function fraud(input: DeviceIntelInput, key: string): unknown {
  const f = deviceIntel(input).fraud;
  return Object.hasOwn(f, key) ? f[key] : undefined;
}

function behavior(input: DeviceIntelInput): Record<string, unknown> {
  return { ...deviceIntel(input).device.behavior };
}

describe('deviceIntel: the clean, fully known case', () => {
  it('computes every computable field, in catalogue order', () => {
    const r = deviceIntel(base());
    assert.deepEqual(r, {
      fraud: {
        botScore: 100,
        ipReputation: false,
        ipIsTorExit: false,
        repeatApplicant: false,
        emailDisposable: false,
        emailDomainDga: false,
        emailUsernameGrammarInvalid: false,
        geoTimezoneMismatch: false,
        deviceTouchPointMismatch: false,
        countryMismatch: false,
        ringSize: 1,
        ringTruncated: false,
        captureAbsent: false,
        networkContextChanged: false,
      },
      device: {
        velocity: { distinctIps: 1, sessionCount: 1 },
        behavior: { pasteCount: 0, totalSeconds: 38, minStepSeconds: 6.2, headless: false, collectionAbsent: false },
      },
    });
    const order = [...FIXED_FIELDS.keys()].filter((k) => k.startsWith('fraud.')).map((k) => k.slice(6));
    const keys = Object.keys(r.fraud);
    assert.deepEqual(
      keys,
      order.filter((k) => keys.includes(k)),
    );
  });

  it('every field it sets is in the engine catalogue with the catalogue type', () => {
    const r = deviceIntel(base());
    for (const [k, v] of Object.entries(r.fraud)) assert.equal(typeof v, FIXED_FIELDS.get(`fraud.${k}`)?.type, k);
    for (const group of ['velocity', 'behavior'] as const) {
      for (const [k, v] of Object.entries(r.device[group])) assert.equal(typeof v, FIXED_FIELDS.get(`device.${group}.${k}`)?.type, `${group}.${k}`);
    }
  });

  it('never sets a field that needs outside data', () => {
    const r = deviceIntel(base({ connection: { start: { ip: '203.0.113.5', user_agent: HEADLESS }, submit: { ip: '2001:db8::1', user_agent: HEADLESS } } }));
    for (const k of UNCOMPUTED_FRAUD_FIELDS) assert.equal(Object.hasOwn(r.fraud, k), false, k);
    assert.ok(UNCOMPUTED_FRAUD_FIELDS.every((k) => FIXED_FIELDS.has(`fraud.${k}`)));
  });

  it('an empty input computes only the absence fields', () => {
    assert.deepEqual(deviceIntel({}), {
      fraud: { captureAbsent: true },
      device: { velocity: {}, behavior: { collectionAbsent: true } },
    });
  });

  it('is deterministic: the same input gives equal output, members in the same order', () => {
    const a = deviceIntel(base({ email: 'x8k2q9@qwrtplkmnz.com' }));
    const b = deviceIntel(base({ email: 'x8k2q9@qwrtplkmnz.com' }));
    assert.deepEqual(a, b);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });

  it('does not modify its input', () => {
    const input = base();
    const before = JSON.stringify(input);
    deviceIntel(input);
    assert.equal(JSON.stringify(input), before);
  });
});

describe('device.behavior', () => {
  it('pasteCount: the measured count, absent when not measured', () => {
    assert.equal(behavior(base({ signals: parseSignals({ paste_count: 4 }) })).pasteCount, 4);
    assert.equal(behavior(base({ signals: parseSignals({ webdriver: false }) })).pasteCount, undefined);
  });

  it('totalSeconds and minStepSeconds: sum (to the millisecond) and minimum of the steps', () => {
    const b = behavior(base({ signals: parseSignals({ step_seconds: { a: 0.1, b: 0.2, c: 3 } }) }));
    assert.equal(b.totalSeconds, 3.3);
    assert.equal(b.minStepSeconds, 0.1);
  });

  it('totalSeconds and minStepSeconds: absent without steps, or with an empty step object', () => {
    for (const signals of [parseSignals({ paste_count: 1 }), parseSignals({ step_seconds: {} }), undefined]) {
      const b = behavior(base({ signals }));
      assert.equal(b.totalSeconds, undefined);
      assert.equal(b.minStepSeconds, undefined);
    }
  });

  it('headless: true from webdriver, from the headless flag, or from a headless user agent', () => {
    assert.equal(behavior(base({ signals: parseSignals({ webdriver: true }) })).headless, true);
    assert.equal(behavior(base({ signals: parseSignals({ headless: true, webdriver: false }) })).headless, true);
    const ua = { start: { ip: '192.0.2.1', user_agent: CHROME }, submit: { ip: '192.0.2.1', user_agent: HEADLESS } };
    assert.equal(behavior(base({ connection: ua })).headless, true);
    assert.equal(behavior(base({ connection: ua, signals: undefined })).headless, true);
  });

  it('headless: false only when the page measured the flags', () => {
    assert.equal(behavior(base()).headless, false);
    assert.equal(behavior(base({ signals: parseSignals({ webdriver: false }) })).headless, false);
  });

  it('headless: absent when nothing measured it and the user agent is ordinary', () => {
    assert.equal(behavior(base({ signals: undefined })).headless, undefined);
    assert.equal(behavior(base({ signals: parseSignals({ paste_count: 0 }) })).headless, undefined);
  });

  it('collectionAbsent: true without signals (undefined, null, absent, empty), false with any', () => {
    for (const signals of [undefined, null, parseSignals(undefined), parseSignals({}), parseSignals({ other: 1 })]) {
      assert.equal(behavior(base({ signals })).collectionAbsent, true);
    }
    assert.equal(behavior(base({ signals: parseSignals({ time_zone: 'UTC' }) })).collectionAbsent, false);
  });
});

describe('device.velocity', () => {
  it('from the history counts when the device cookie is known', () => {
    assert.deepEqual(deviceIntel(base({ deviceSessions: 7, deviceDistinctIps: 4 })).device.velocity, { distinctIps: 4, sessionCount: 7 });
  });

  it('absent without a device cookie, even if counts were passed', () => {
    for (const device_id of [null, undefined, '', '  ']) {
      assert.deepEqual(deviceIntel(base({ device_id, deviceSessions: 7, deviceDistinctIps: 4 })).device.velocity, {});
    }
  });

  it('a count not looked up (or not a count) is absent', () => {
    assert.deepEqual(deviceIntel(base({ deviceSessions: null, deviceDistinctIps: 2 })).device.velocity, { distinctIps: 2 });
    assert.deepEqual(deviceIntel(base({ deviceSessions: -1, deviceDistinctIps: 1.5 })).device.velocity, {});
  });
});

describe('fraud.botScore', () => {
  const score = (s: Record<string, unknown> | undefined, ua = CHROME): unknown =>
    fraud(base({ signals: parseSignals(s), connection: { start: { ip: '192.0.2.1', user_agent: ua }, submit: null } }), 'botScore');

  it('100 for a human-looking session', () => assert.equal(score({ webdriver: false, headless: false, paste_count: 0, step_seconds: { a: 8, b: 12 } }), 100));
  it('webdriver: -60', () => assert.equal(score({ webdriver: true }), 40));
  it('headless flag: -50', () => assert.equal(score({ headless: true }), 50));
  it('headless user agent: -50, even without signals', () => {
    assert.equal(score({ webdriver: false }, HEADLESS), 50);
    assert.equal(score(undefined, HEADLESS), 50);
  });
  it('the headless flag and user agent count once', () => assert.equal(score({ headless: true }, HEADLESS), 50));
  it('shortest step under 1 s: -30; under 2 s: -15', () => {
    assert.equal(score({ step_seconds: { a: 0.4, b: 9 } }), 70);
    assert.equal(score({ step_seconds: { a: 1.5, b: 9 } }), 85);
    assert.equal(score({ step_seconds: { a: 2, b: 9 } }), 100);
  });
  it('all steps under 5 s: -20 more', () => assert.equal(score({ step_seconds: { a: 0.5, b: 0.5, c: 0.5 } }), 50));
  it('pastes: -10 each, at most -30', () => {
    assert.equal(score({ paste_count: 1 }), 90);
    assert.equal(score({ paste_count: 3 }), 70);
    assert.equal(score({ paste_count: 40 }), 70);
  });
  it('floored at 0', () => assert.equal(score({ webdriver: true, headless: true, paste_count: 9, step_seconds: { a: 0 } }), 0));
  it('absent when nothing it reads was measured and the user agent is ordinary', () => {
    assert.equal(score(undefined), undefined);
    assert.equal(score({ time_zone: 'Europe/Paris', touch_points: 0 }), undefined);
    assert.equal(score({ step_seconds: {} }), undefined);
  });
});

describe('fraud.ipIsTorExit and fraud.ipReputation (operator lists)', () => {
  const at = (start: string | null, submit: string | null, lists: DeviceIntelInput['lists']) =>
    deviceIntel(base({ connection: { start: { ip: start }, submit: { ip: submit } }, lists })).fraud;
  const both = { torExits: parseAddressList('203.0.113.5\n2001:db8::/32\n'), badNetworks: parseAddressList('198.51.100.0/24\n') };

  it('a Tor exit at start or at submit', () => {
    assert.equal(at('203.0.113.5', '192.0.2.1', both).ipIsTorExit, true);
    assert.equal(at('192.0.2.1', '2001:db8:1::9', both).ipIsTorExit, true);
    assert.equal(at('192.0.2.1', '192.0.2.2', both).ipIsTorExit, false);
  });

  it('a bad network makes the reputation poor; so does a Tor exit', () => {
    assert.equal(at('198.51.100.9', '192.0.2.1', both).ipReputation, true);
    assert.equal(at('203.0.113.5', null, both).ipReputation, true);
    assert.equal(at('192.0.2.1', null, both).ipReputation, false);
  });

  it('no list loaded: both absent', () => {
    const f = at('203.0.113.5', '198.51.100.9', {});
    assert.equal(Object.hasOwn(f, 'ipIsTorExit'), false);
    assert.equal(Object.hasOwn(f, 'ipReputation'), false);
    assert.equal(Object.hasOwn(at('203.0.113.5', null, null), 'ipIsTorExit'), false);
  });

  it('only the Tor list: ipReputation is true on an exit and absent otherwise', () => {
    const tor = { torExits: both.torExits };
    assert.equal(at('203.0.113.5', null, tor).ipReputation, true);
    assert.equal(Object.hasOwn(at('192.0.2.1', null, tor), 'ipReputation'), false);
    assert.equal(Object.hasOwn(at('192.0.2.1', null, { badNetworks: both.badNetworks }), 'ipIsTorExit'), false);
  });

  it('no address seen: both absent', () => {
    const f = at(null, null, both);
    assert.equal(Object.hasOwn(f, 'ipIsTorExit'), false);
    assert.equal(Object.hasOwn(f, 'ipReputation'), false);
  });
});

describe('fraud.repeatApplicant', () => {
  it('true when another applicant of the organization had the same document', () => assert.equal(fraud(base({ priorApplicantsWithDocument: 2 }), 'repeatApplicant'), true));
  it('false when none had', () => assert.equal(fraud(base({ priorApplicantsWithDocument: 0 }), 'repeatApplicant'), false));
  it('absent when not looked up', () => {
    assert.equal(fraud(base({ priorApplicantsWithDocument: null }), 'repeatApplicant'), undefined);
    assert.equal(fraud(base({ priorApplicantsWithDocument: undefined }), 'repeatApplicant'), undefined);
  });
});

describe('email fields', () => {
  it('emailDisposable', () => {
    assert.equal(fraud(base({ email: 'ada@mailinator.com' }), 'emailDisposable'), true);
    assert.equal(fraud(base({ email: 'ada@gmail.com' }), 'emailDisposable'), false);
  });

  it('emailDomainDga', () => {
    assert.equal(fraud(base({ email: 'ada@qwrtplkmnz.com' }), 'emailDomainDga'), true);
    assert.equal(fraud(base({ email: 'ada@gmail.com' }), 'emailDomainDga'), false);
  });

  it('emailUsernameGrammarInvalid', () => {
    assert.equal(fraud(base({ email: 'a8f3k2m9@gmail.com' }), 'emailUsernameGrammarInvalid'), true);
    assert.equal(fraud(base({ email: 'ada.lovelace@gmail.com' }), 'emailUsernameGrammarInvalid'), false);
  });

  it('all three absent without a usable address', () => {
    for (const email of [null, undefined, '', 'not-an-address']) {
      const f = deviceIntel(base({ email })).fraud;
      for (const k of ['emailDisposable', 'emailDomainDga', 'emailUsernameGrammarInvalid']) assert.equal(Object.hasOwn(f, k), false, `${k} ${email}`);
    }
  });
});

describe('fraud.geoTimezoneMismatch', () => {
  const tz = (time_zone: string, addressCountry: string | null) => fraud(base({ signals: parseSignals({ time_zone }), addressCountry }), 'geoTimezoneMismatch');

  it('true when the zone is not used in the address country', () => {
    assert.equal(tz('America/New_York', 'FR'), true);
    assert.equal(tz('Asia/Kolkata', 'GB'), true);
  });

  it('false when it is, aliases included', () => {
    assert.equal(tz('Europe/Paris', 'FR'), false);
    assert.equal(tz('Europe/Zurich', 'LI'), false); // a zone shared by several countries
    assert.equal(tz('Asia/Calcutta', 'IN'), false);
    assert.equal(tz('Europe/Kyiv', 'UA'), false);
    assert.equal(tz('US/Eastern', 'US'), false);
    assert.equal(tz('Europe/Paris', 'fr'), false); // country code case
  });

  it('absent: a zone of no country, an unknown country, no country, no zone', () => {
    assert.equal(tz('UTC', 'FR'), undefined);
    assert.equal(tz('Etc/GMT+3', 'BR'), undefined);
    assert.equal(tz('Europe/Belgrade', 'XK'), undefined);
    assert.equal(tz('Europe/Paris', null), undefined);
    assert.equal(tz('Europe/Paris', 'FRA'), undefined);
    assert.equal(fraud(base({ signals: parseSignals({ paste_count: 0 }) }), 'geoTimezoneMismatch'), undefined);
  });
});

describe('fraud.deviceTouchPointMismatch', () => {
  const touch = (s: Record<string, unknown>) => fraud(base({ signals: parseSignals(s) }), 'deviceTouchPointMismatch');

  it('true: mobile or tablet without touch', () => {
    assert.equal(touch({ form_factor: 'mobile', touch_points: 0 }), true);
    assert.equal(touch({ form_factor: 'tablet', touch_points: 0 }), true);
  });

  it('false: mobile with touch, desktop with or without', () => {
    assert.equal(touch({ form_factor: 'mobile', touch_points: 5 }), false);
    assert.equal(touch({ form_factor: 'desktop', touch_points: 0 }), false);
    assert.equal(touch({ form_factor: 'desktop', touch_points: 10 }), false);
  });

  it('absent unless both were measured', () => {
    assert.equal(touch({ form_factor: 'mobile' }), undefined);
    assert.equal(touch({ touch_points: 0 }), undefined);
  });
});

describe('fraud.countryMismatch', () => {
  it('true when the address and the document disagree', () => assert.equal(fraud(base({ addressCountry: 'FR', documentIssuingCountry: 'DE' }), 'countryMismatch'), true));
  it('false when they agree, whatever the case', () => assert.equal(fraud(base({ addressCountry: 'fr', documentIssuingCountry: 'FR' }), 'countryMismatch'), false));
  it('absent when either is missing or not alpha-2', () => {
    assert.equal(fraud(base({ addressCountry: null }), 'countryMismatch'), undefined);
    assert.equal(fraud(base({ documentIssuingCountry: null }), 'countryMismatch'), undefined);
    assert.equal(fraud(base({ documentIssuingCountry: 'FRA' }), 'countryMismatch'), undefined);
  });
});

describe('fraud.networkContextChanged and fraud.captureAbsent', () => {
  const conn = (start: DeviceIntelInput['connection']) => deviceIntel(base({ connection: start })).fraud;

  it('networkContextChanged: another /24 or /48 at submit', () => {
    assert.equal(conn({ start: { ip: '192.0.2.1' }, submit: { ip: '198.51.100.1' } }).networkContextChanged, true);
    assert.equal(conn({ start: { ip: '2001:db8:1::1' }, submit: { ip: '2001:db8:2::1' } }).networkContextChanged, true);
    assert.equal(conn({ start: { ip: '192.0.2.1' }, submit: { ip: '192.0.2.254' } }).networkContextChanged, false);
  });

  it('networkContextChanged: absent with one address, or two families', () => {
    assert.equal(Object.hasOwn(conn({ start: { ip: '192.0.2.1' }, submit: null }), 'networkContextChanged'), false);
    assert.equal(Object.hasOwn(conn({ start: { ip: '192.0.2.1' }, submit: { ip: '2001:db8::1' } }), 'networkContextChanged'), false);
  });

  it('captureAbsent: true with no connection context at all', () => {
    for (const c of [undefined, null, {}, { start: null, submit: null }, { start: { ip: '', user_agent: null }, submit: {} }]) {
      assert.equal(conn(c).captureAbsent, true, JSON.stringify(c));
    }
  });

  it('captureAbsent: false with an address or a user agent at either moment', () => {
    assert.equal(conn({ start: null, submit: { ip: '192.0.2.1' } }).captureAbsent, false);
    assert.equal(conn({ start: { user_agent: CHROME }, submit: null }).captureAbsent, false);
  });
});

describe('fraud.ringSize and fraud.ringTruncated', () => {
  it('from the caller walk', () => {
    const f = deviceIntel(base({ ring: { size: 12, truncated: true } })).fraud;
    assert.equal(f.ringSize, 12);
    assert.equal(f.ringTruncated, true);
  });

  it('absent when not walked, or malformed', () => {
    for (const ring of [null, undefined, { size: -1, truncated: false }, { size: 2.5, truncated: false }]) {
      const f = deviceIntel(base({ ring })).fraud;
      assert.equal(Object.hasOwn(f, 'ringSize'), false);
      assert.equal(Object.hasOwn(f, 'ringTruncated'), false);
    }
  });
});
