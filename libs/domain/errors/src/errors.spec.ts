import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, ERROR_CATALOGUE, toEnvelope } from './index.js';

describe('error envelope', () => {
  it('carries type, doc_url and request_id on every error, param and details only when set', () => {
    const env = toEnvelope(new DomainError('resource_not_found').toData(), 'req_1', 'https://docs.example');
    assert.deepEqual(env, {
      error: {
        code: 'resource_not_found',
        message: ERROR_CATALOGUE.resource_not_found.message,
        type: 'invalid_request_error',
        doc_url: 'https://docs.example/errors#resource_not_found',
        request_id: 'req_1',
      },
    });
  });

  it('validation errors take param from the first path segment', () => {
    const err = DomainError.validation([{ code: 'custom', message: 'bad', path: ['metadata', 'amount'] }]);
    assert.equal(err.param, 'metadata');
    assert.deepEqual(err.details, { issues: [{ code: 'custom', message: 'bad', path: ['metadata', 'amount'] }] });
  });

  it('an unknown code crossing the wire becomes internal_error', () => {
    const err = DomainError.fromData({ code: 'nope' as never, message: 'x' });
    assert.equal(err.code, 'internal_error');
  });
});
