import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { availableImages, isServedArtifact } from './artifacts.js';

describe('served artifacts', () => {
  it('are portrait, front and selfie; back and anything else are not served', () => {
    for (const a of ['portrait', 'front', 'selfie']) assert.equal(isServedArtifact(a), true, a);
    for (const a of ['back', 'Front', 'front ', '', 'portrait.jpg', '../front', 'selfie%00', undefined, 1, null]) {
      assert.equal(isServedArtifact(a), false, String(a));
    }
  });

  it('available images: portrait, front, selfie order, never back, no duplicates', () => {
    assert.deepEqual(availableImages(['selfie', 'back', 'front', 'portrait']), ['portrait', 'front', 'selfie']);
    assert.deepEqual(availableImages(['back']), []);
    assert.deepEqual(availableImages(['front', 'selfie']), ['front', 'selfie']);
    assert.deepEqual(availableImages(['front', 'front']), ['front']);
    assert.deepEqual(availableImages([]), []);
  });
});
