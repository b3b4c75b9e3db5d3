import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { disposableDomainCount, domainLooksGenerated, emailParts, isDisposableDomain, labelLooksGenerated, usernameGrammarInvalid } from './index.js';

describe('emailParts', () => {
  it('splits at the last @, lowercases the domain and drops a trailing dot', () => {
    assert.deepEqual(emailParts('Ada.Lovelace@Example.COM.'), { local: 'Ada.Lovelace', domain: 'example.com' });
    assert.deepEqual(emailParts('"a@b"@example.org'), { local: '"a@b"', domain: 'example.org' });
  });

  it('an internationalized domain is compared in its ASCII form', () => {
    assert.equal(emailParts('jose@correo.españa.es')?.domain, 'correo.xn--espaa-rta.es');
  });

  it('nothing usable: undefined', () => {
    for (const e of [null, undefined, '', 'no-at-sign', '@example.com', 'ada@', 'ada@localhost', 'ada@exa mple.com', 'ada@-bad-.com']) {
      assert.equal(emailParts(e), undefined, String(e));
    }
  });
});

describe('disposable domains (disposable-email-domains-js, offline)', () => {
  it('the list is loaded from the package', () => {
    assert.ok(disposableDomainCount() > 1000);
  });

  it('listed domains and their subdomains are disposable', () => {
    assert.equal(isDisposableDomain('mailinator.com'), true);
    assert.equal(isDisposableDomain('yopmail.com'), true);
    assert.equal(isDisposableDomain('inbox.mailinator.com'), true);
  });

  it('ordinary providers are not, and a top-level label alone never matches', () => {
    for (const d of ['gmail.com', 'outlook.com', 'proton.me', 'example.co.uk', 'com']) assert.equal(isDisposableDomain(d), false, d);
  });
});

describe('emailDomainDga: machine-generated-looking domains', () => {
  const generated = [
    'qwrtplkmnz.com', // a run of 10 consonants
    'a8f3kd92lq.net', // digits mixed with letters
    'xjkq8wz3mp.info', // almost no vowels
    'kdjf83jd9s.top',
    'mail.x7k2p9q4w.com', // any label but the top-level one is judged
  ];
  const human = [
    'gmail.com',
    'hotmail.co.uk', // `co` is a registry label
    'sbcglobal.net',
    'hdfcbank.com',
    'schwarzkopf.de',
    'deutschland.de', // `sch` counts as one consonant
    'bundesrechtsanwaltskammer.de',
    'pricewaterhousecoopers.com',
    't-online.de',
    '163.com', // short labels are never judged
    'qq.com',
    'xn--espaa-rta.es', // IDNA labels are never judged
  ];
  for (const d of generated) it(`${d} looks generated`, () => assert.equal(domainLooksGenerated(d), true));
  for (const d of human) it(`${d} does not`, () => assert.equal(domainLooksGenerated(d), false));

  it('labels under 8 letters and digits are never judged', () => {
    assert.equal(labelLooksGenerated('xkcdqzt'), false);
    assert.equal(labelLooksGenerated('xkcdqztw'), true);
  });

  it('long, high-entropy, vowel-poor labels', () => {
    assert.equal(labelLooksGenerated('zk4wq2nbx7tr'), true);
  });
});

describe('emailUsernameGrammarInvalid: the part before @ does not read like a name', () => {
  const invalid = [
    '123456', // no letter
    '_._', // no letter
    'jo1985', // more digits than letters
    'a8f3k2m', // letters and digits switch 6 times
    'xkcdqzt', // a run of 7 consonants
    'bcdfghkl', // a word without vowels
    'aaaa', // one character 4 times
    'anna0000',
    'qwerty', // keyboard walks
    'asdf.smith',
    'zxcvbn',
    '5f4dcc3b5aa765d61d8327deb882cf99', // a hash
  ];
  const valid = [
    'ada.lovelace',
    'john1985', // as many digits as letters is fine
    'j.smith85',
    'first.last+newsletter123456', // the sub-address is dropped first
    'hirschberg',
    'albrechtsberger',
    'szczepanski',
    'chrzanowski',
    'nguyenvananh',
    'oluwaseun',
    'björn.ångström', // letters of any script count
    'мария.иванова',
    '李雷',
    'info',
    'x',
    '"ada lovelace"',
  ];
  for (const l of invalid) it(`${l} is invalid`, () => assert.equal(usernameGrammarInvalid(l), true));
  for (const l of valid) it(`${l} is fine`, () => assert.equal(usernameGrammarInvalid(l), false));
});
