import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inviteMessage, maskEmail } from './invite.js';

describe('email log recipient', () => {
  it('keeps the first letters and the top-level domain only', () => {
    assert.equal(maskEmail('jane.doe@example.com'), 'j***@e***.com');
    assert.equal(maskEmail('X@Mail.Example.CO.UK'), 'x***@m***.uk');
    assert.equal(maskEmail('a@localhost'), 'a***@l***');
    assert.equal(maskEmail('not-an-address'), '***');
  });

  it('never contains the local part or the domain name', () => {
    const m = maskEmail('secretperson@privatedomain.org');
    assert.ok(!m.includes('secretperson') && !m.includes('privatedomain'));
  });
});

describe('invitation', () => {
  it('carries the link and no applicant data', () => {
    const m = inviteMessage('https://verify.example/ses_1');
    assert.match(m.text, /https:\/\/verify\.example\/ses_1/);
    assert.ok(m.subject.length > 0);
  });
});
