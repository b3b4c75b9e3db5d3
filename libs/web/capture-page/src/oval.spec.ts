import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaceGuide, GUIDE_TIMING, GUIDE_WORDS, OVAL_FIT, fitFace, fromLetterbox, heldStill, letterbox, shutterEnabled } from '../browser/oval.js';

/** The selfie oval of a 720 × 960 picture shown whole in the 3:4 viewfinder: 64 % of its width and height, centred. */
const OVAL = { x: 129.6, y: 172.8, width: 460.8, height: 614.4 };
/** BlazeFace's box of the specimen selfie (libs/testing/specimens `selfie('hopper')`, 720 × 960), as the page measures it. */
const CENTRED = { x: 195, y: 249, width: 362, height: 362 };
const moved = (r: typeof CENTRED, dx: number, dy: number, scale = 1) => {
  const width = r.width * scale;
  const height = r.height * scale;
  return { x: r.x + r.width / 2 + dx - width / 2, y: r.y + r.height / 2 + dy - height / 2, width, height };
};

describe('a face against the oval', () => {
  it('a centred face of a sensible size is inside', () => {
    assert.equal(fitFace(CENTRED, OVAL), 'inside');
    // a little off centre, as people stand, still is
    assert.equal(fitFace(moved(CENTRED, 25, -20), OVAL), 'inside');
  });

  it('a face above, below or beside the oval is outside; none found is no face', () => {
    assert.equal(fitFace(moved(CENTRED, 0, -220), OVAL), 'outside');
    assert.equal(fitFace(moved(CENTRED, 0, 200), OVAL), 'outside');
    assert.equal(fitFace(moved(CENTRED, 160, 0), OVAL), 'outside');
    assert.equal(fitFace(moved(CENTRED, -160, 0), OVAL), 'outside');
    assert.equal(fitFace(null, OVAL), 'no_face');
  });

  it('a small face is too far, a large one too close', () => {
    assert.equal(fitFace(moved(CENTRED, 0, 0, 0.5), OVAL), 'too_far');
    assert.equal(fitFace(moved(CENTRED, 0, 0, 1.3), OVAL), 'too_close');
    // the size bounds, as shares of the oval's width
    assert.equal(fitFace(moved(CENTRED, 0, 0, ((OVAL_FIT.minWidth + 0.01) * OVAL.width) / CENTRED.width), OVAL), 'inside');
    assert.equal(fitFace(moved(CENTRED, 0, 0, ((OVAL_FIT.maxWidth - 0.01) * OVAL.width) / CENTRED.width), OVAL), 'inside');
    // a small face past the oval's edge is told to move into it first; a small one within it, high, to come closer
    assert.equal(fitFace(moved(CENTRED, 0, -220, 0.5), OVAL), 'outside');
    assert.equal(fitFace(moved(CENTRED, 0, -180, 0.5), OVAL), 'too_far');
    // at a sensible size, the same height is off the oval's middle
    assert.equal(fitFace(moved(CENTRED, 0, -150), OVAL), 'outside');
  });

  it('holding still: a few pixels of jitter are, a step aside or towards the camera is not', () => {
    assert.equal(heldStill(CENTRED, moved(CENTRED, 4, -3), OVAL), true);
    assert.equal(heldStill(CENTRED, moved(CENTRED, 40, 0), OVAL), false);
    assert.equal(heldStill(CENTRED, moved(CENTRED, 0, 0, 1.2), OVAL), false);
  });
});

describe('the guide over a camera session', () => {
  it('enables the shutter once the face has held still inside the oval for a moment, and says what to do before', () => {
    const g = new FaceGuide();
    assert.equal(g.look(moved(CENTRED, 0, -220), OVAL, 0), 'outside');
    assert.equal(g.look(moved(CENTRED, 0, 0, 0.5), OVAL, 250), 'too_far');
    assert.equal(g.look(CENTRED, OVAL, 500), 'steady');
    assert.equal(g.look(moved(CENTRED, 3, 2), OVAL, 750), 'steady');
    // moving resets the moment
    assert.equal(g.look(moved(CENTRED, 35, 0), OVAL, 1000), 'steady');
    assert.equal(g.look(moved(CENTRED, 37, 0), OVAL, 1000 + OVAL_FIT.steadyMs - 1), 'steady');
    assert.equal(g.look(moved(CENTRED, 37, 1), OVAL, 1000 + OVAL_FIT.steadyMs), 'ready');
    // ready stays while the face stays inside, moving or not
    assert.equal(g.look(moved(CENTRED, 20, 0), OVAL, 2000), 'ready');
  });

  it('a single look that misses the face keeps the shutter; two take it away', () => {
    const g = new FaceGuide();
    g.look(CENTRED, OVAL, 0);
    assert.equal(g.look(CENTRED, OVAL, OVAL_FIT.steadyMs), 'ready');
    assert.equal(g.look(null, OVAL, 1000), 'ready');
    assert.equal(g.look(CENTRED, OVAL, 1250), 'ready');
    assert.equal(g.look(null, OVAL, 1500), 'ready');
    assert.equal(g.look(moved(CENTRED, 0, -220), OVAL, 1750), 'outside');
    assert.equal(g.look(CENTRED, OVAL, 2000), 'steady');
  });

  it('the shutter: enabled when ready; otherwise held back, but not for longer than giveUpMs (nobody is locked out)', () => {
    assert.equal(shutterEnabled('ready', 0), true);
    for (const state of ['no_face', 'outside', 'too_far', 'too_close', 'steady'] as const) {
      assert.equal(shutterEnabled(state, GUIDE_TIMING.giveUpMs - 1), false, state);
      assert.equal(shutterEnabled(state, GUIDE_TIMING.giveUpMs), true, state);
    }
    assert.equal(GUIDE_TIMING.giveUpMs, 30_000);
  });

  it('has plain words for every state', () => {
    assert.deepEqual(GUIDE_WORDS, {
      no_face: 'Move your face into the oval',
      outside: 'Move your face into the oval',
      too_far: 'Move closer',
      too_close: 'Move back',
      steady: 'Hold still',
      ready: 'Hold still and take the photo',
    });
  });
});

describe("the detector's square", () => {
  it('a 3:4 part is drawn whole in the middle of the square, and boxes found there map back to the picture', () => {
    const crop = { x: 280, y: 0, width: 540, height: 720 };
    const placed = letterbox(crop, 256);
    assert.deepEqual(placed, { x: 32, y: 0, width: 192, height: 256, scale: 256 / 720 });
    const back = fromLetterbox({ x: 32 + 96, y: 128, width: 64, height: 64 }, crop, placed);
    assert.deepEqual(back, { x: 280 + 270, y: 360, width: 180, height: 180 });
  });
});
