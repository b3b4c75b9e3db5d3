import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { catalogueSpecimen, photograph, renderSpecimen, selfie, type PhotoOptions } from '@verity/specimens';
import sharp from 'sharp';
import {
  ANALYSIS_SIZE,
  StepClock,
  THRESHOLDS,
  assessFrame,
  collectSignals,
  edgeScore,
  fitWithin,
  formFactor,
  guideInFrame,
  headlessSigns,
  laplacianVariance,
  meanLuminance,
  scaleRect,
  toGray,
  type DeviceFacts,
  type Gray,
} from '../browser/analysis.js';

/** A grey image from a function of the pixel. */
function gray(width: number, height: number, f: (x: number, y: number) => number): Gray {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = f(x, y);
  return { data, width, height };
}

/** What the page computes from a photo: the grey copy at ANALYSIS_SIZE (canvas scaling ≈ linear). */
async function grayOf(jpeg: Buffer): Promise<Gray> {
  const m = await sharp(jpeg).metadata();
  const size = fitWithin(m.width, m.height, ANALYSIS_SIZE);
  const raw = await sharp(jpeg).resize(size.width, size.height, { kernel: 'linear' }).ensureAlpha().raw().toBuffer();
  return toGray(raw, size.width, size.height);
}

/** The guide of the document steps over a 1920 × 1080 frame, in the grey copy's pixels (as the page maps it). */
function documentGuide(g: Gray) {
  const frame = { width: 1920, height: 1080 };
  const inFrame = guideInFrame(frame, { width: 400, height: 300 }, { x: 0.07, y: 0.21, width: 0.86, height: 0.58 });
  return scaleRect(inFrame, frame, g);
}

describe('image measures', () => {
  it('toGray weighs the channels as Rec. 709 and refuses short input', () => {
    const g = toGray([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255], 2, 2);
    assert.deepEqual([...g.data].map((v) => Math.round(v * 100) / 100), [54.21, 182.38, 18.41, 255]);
    assert.throws(() => toGray([0, 0, 0], 1, 1), RangeError);
  });

  it('mean luminance of a whole image and of a part', () => {
    const g = gray(10, 10, (x) => (x < 5 ? 0 : 200));
    assert.equal(meanLuminance(g), 100);
    assert.equal(meanLuminance(g, { x: 5, y: 0, width: 5, height: 10 }), 200);
    // a rectangle reaching out of the image is clipped to it
    assert.equal(meanLuminance(g, { x: 8, y: -5, width: 50, height: 50 }), 200);
  });

  it('the Laplacian variance is zero on flat or linear images and large on a checkerboard', () => {
    assert.equal(laplacianVariance(gray(20, 20, () => 128)), 0);
    assert.equal(laplacianVariance(gray(20, 20, (x, y) => 3 * x + 2 * y)), 0);
    const checker = laplacianVariance(gray(20, 20, (x, y) => ((x + y) % 2 === 0 ? 0 : 255)));
    assert.ok(checker > 100_000, String(checker));
  });

  it('blurring lowers the Laplacian variance', () => {
    const sharpEdges = gray(64, 64, (x, y) => ((Math.floor(x / 4) + Math.floor(y / 4)) % 2 === 0 ? 40 : 220));
    const soft = gray(64, 64, (x, y) => 130 + 90 * Math.sin(x / 6) * Math.sin(y / 6));
    assert.ok(laplacianVariance(sharpEdges) > 20 * laplacianVariance(soft));
  });

  it('edge score: the share of strong gradients inside a rectangle', () => {
    const card = gray(100, 60, (x, y) => (x >= 20 && x < 80 && y >= 15 && y < 45 ? 230 : 60));
    const guide = { x: 10, y: 5, width: 80, height: 50 };
    const score = edgeScore(card, guide);
    assert.ok(score > 0.05 && score < 0.2, String(score));
    assert.equal(edgeScore(gray(100, 60, () => 90), guide), 0);
    // a faint outline is no edge
    assert.equal(edgeScore(gray(100, 60, (x) => (x < 50 ? 90 : 95)), guide), 0);
  });

  it('assessFrame: darkness wins over everything, then an empty guide, then blur', () => {
    const dark = gray(80, 60, (x, y) => ((x + y) % 2 ? 10 : 60));
    assert.deepEqual(assessFrame(dark, 'document').issues, ['dark']);
    const empty = gray(80, 60, () => 150);
    assert.deepEqual(assessFrame(empty, 'document').issues, ['no_document']);
    // the selfie has no document to find: a flat frame is only soft
    assert.deepEqual(assessFrame(empty, 'selfie').issues, ['blurry']);
    assert.equal(assessFrame(empty, 'selfie').measures.edges, null);
  });
});

describe('instant feedback on specimen photographs (the thresholds)', () => {
  const shot = async (kind: 'td1' | 'td3' | 'aamva', o: PhotoOptions = {}) => {
    const r = await renderSpecimen(catalogueSpecimen(kind, 1, '2026-01-01'));
    return photograph(r.front, { width: 1920, height: 1080, coverage: 0.6, seed: 7, ...o });
  };

  for (const kind of ['td1', 'td3', 'aamva'] as const) {
    it(`${kind}: a good photo passes; dark, σ 4 blurred and empty ones are told apart`, async () => {
      const good = await grayOf(await shot(kind));
      assert.deepEqual(assessFrame(good, 'document', documentGuide(good)).issues, []);
      // blur σ 2 px the reader still reads: no alarm
      const slight = await grayOf(await shot(kind, { blur: 2 }));
      assert.deepEqual(assessFrame(slight, 'document', documentGuide(slight)).issues, []);
      // a third of the light is dim, not dark
      const dimJpeg = await sharp(await shot(kind)).modulate({ brightness: 0.35 }).jpeg().toBuffer();
      const dim = await grayOf(dimJpeg);
      assert.deepEqual(assessFrame(dim, 'document', documentGuide(dim)).issues, []);

      const blurred = await grayOf(await shot(kind, { blur: 4 }));
      assert.deepEqual(assessFrame(blurred, 'document', documentGuide(blurred)).issues, ['blurry']);
      const darkJpeg = await sharp(await shot(kind)).modulate({ brightness: 0.2 }).jpeg().toBuffer();
      const dark = await grayOf(darkJpeg);
      assert.deepEqual(assessFrame(dark, 'document', documentGuide(dark)).issues, ['dark']);
    });
  }

  it('an empty, grainy surface has no document', async () => {
    const surface = await sharp({
      create: { width: 1920, height: 1080, channels: 3, background: '#8a7a68', noise: { type: 'gaussian', mean: 128, sigma: 20 } },
    })
      .blur(1.2)
      .jpeg()
      .toBuffer();
    const g = await grayOf(surface);
    const a = assessFrame(g, 'document', documentGuide(g));
    assert.deepEqual(a.issues, ['no_document']);
    assert.ok(a.measures.edges! < THRESHOLDS.edges);
  });

  it('a selfie passes; a dark one does not', async () => {
    const face = await grayOf(await selfie('hopper'));
    const oval = { x: 0.18 * face.width, y: 0.1 * face.height, width: 0.64 * face.width, height: 0.8 * face.height };
    assert.deepEqual(assessFrame(face, 'selfie', oval).issues, []);
    const dark = await grayOf(await sharp(await selfie('hopper')).modulate({ brightness: 0.25 }).jpeg().toBuffer());
    assert.deepEqual(assessFrame(dark, 'selfie', oval).issues, ['dark']);
  });
});

describe('geometry', () => {
  it('fitWithin scales down to the longest side and never up', () => {
    assert.deepEqual(fitWithin(4000, 3000, 2048), { width: 2048, height: 1536 });
    assert.deepEqual(fitWithin(1080, 1920, 2048), { width: 1080, height: 1920 });
    assert.deepEqual(fitWithin(3000, 4000, 768), { width: 576, height: 768 });
  });

  it('guideInFrame undoes object-fit: cover', () => {
    // a 16:9 frame shown in a 4:3 box: the sides are cut, the full height shows
    const r = guideInFrame({ width: 1920, height: 1080 }, { width: 400, height: 300 }, { x: 0.1, y: 0.2, width: 0.8, height: 0.6 });
    assert.deepEqual(r, { x: 240 + 0.1 * 1440, y: 216, width: 0.8 * 1440, height: 648 });
    // a portrait frame in a landscape box: top and bottom are cut
    const p = guideInFrame({ width: 1080, height: 1920 }, { width: 400, height: 300 }, { x: 0, y: 0, width: 1, height: 1 });
    assert.deepEqual(p, { x: 0, y: (1920 - 810) / 2, width: 1080, height: 810 });
  });

  it('scaleRect maps between two sizes of one image', () => {
    assert.deepEqual(scaleRect({ x: 100, y: 50, width: 200, height: 100 }, { width: 2000, height: 1000 }, { width: 500, height: 250 }), {
      x: 25,
      y: 12.5,
      width: 50,
      height: 25,
    });
  });
});

describe('signals', () => {
  const facts: DeviceFacts = {
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    webdriver: false,
    maxTouchPoints: 0,
    uaMobile: false,
    plugins: 5,
    languages: 2,
    outerWidth: 1280,
    hasChromeObject: true,
    timeZone: 'Europe/Berlin',
  };

  it('collectSignals answers exactly the keys of docs/capture.md, with their types', () => {
    const s = collectSignals(facts, 2, { consent: 3.2, document_front: 10 });
    assert.deepEqual(Object.keys(s).sort(), ['form_factor', 'headless', 'paste_count', 'step_seconds', 'time_zone', 'touch_points', 'webdriver']);
    assert.deepEqual(s, {
      paste_count: 2,
      step_seconds: { consent: 3.2, document_front: 10 },
      webdriver: false,
      headless: false,
      touch_points: 0,
      form_factor: 'desktop',
      time_zone: 'Europe/Berlin',
    });
  });

  it('collectSignals never sends a wrong type', () => {
    const s = collectSignals({ ...facts, webdriver: undefined, maxTouchPoints: undefined, timeZone: undefined }, -1.5, {});
    assert.equal(s.webdriver, false);
    assert.equal(s.touch_points, 0);
    assert.equal(s.paste_count, 0);
    assert.equal('time_zone' in s, false);
    assert.equal(collectSignals({ ...facts, webdriver: true }, 0, {}).webdriver, true);
  });

  it('form factor from client hints and user agents', () => {
    const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';
    const ipadAsMac = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15';
    const androidPhone = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36';
    const androidTablet = 'Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
    assert.equal(formFactor({ userAgent: iphone, uaMobile: undefined, maxTouchPoints: 5 }), 'mobile');
    assert.equal(formFactor({ userAgent: ipadAsMac, uaMobile: undefined, maxTouchPoints: 5 }), 'tablet');
    assert.equal(formFactor({ userAgent: ipadAsMac, uaMobile: undefined, maxTouchPoints: 0 }), 'desktop');
    assert.equal(formFactor({ userAgent: androidPhone, uaMobile: true, maxTouchPoints: 5 }), 'mobile');
    assert.equal(formFactor({ userAgent: androidTablet, uaMobile: false, maxTouchPoints: 5 }), 'tablet');
    assert.equal(formFactor({ userAgent: facts.userAgent, uaMobile: false, maxTouchPoints: 0 }), 'desktop');
  });

  it('headless signs', () => {
    assert.equal(headlessSigns(facts), false);
    assert.equal(headlessSigns({ ...facts, userAgent: facts.userAgent.replace('Chrome/', 'HeadlessChrome/') }), true);
    assert.equal(headlessSigns({ ...facts, hasChromeObject: false }), true);
    assert.equal(headlessSigns({ ...facts, outerWidth: 0 }), true);
    assert.equal(headlessSigns({ ...facts, languages: 0 }), true);
    // Firefox has no window.chrome and is not headless for that
    const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
    assert.equal(headlessSigns({ ...facts, userAgent: firefox, hasChromeObject: false }), false);
  });

  it('StepClock adds up time per step, a revisit included', () => {
    const c = new StepClock();
    c.enter('consent', 0);
    c.enter('document_front', 4_000);
    c.enter('consent', 10_000);
    c.enter('document_front', 11_000);
    c.leave(12_340);
    assert.deepEqual(c.seconds(99_000), { consent: 5, document_front: 7.3 });
    c.enter('selfie', 20_000);
    assert.deepEqual(c.seconds(21_050), { consent: 5, document_front: 7.3, selfie: 1.1 });
  });
});
