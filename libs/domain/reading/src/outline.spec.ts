import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { barcodeFits, intersect, mrzFits, orderQuad, placement, plausibleQuad, quadFromPolygon, quadSize, ratioFits, turnQuad, type Quad } from './index.js';

describe('quadrilaterals', () => {
  it('orders corners clockwise from the top left, whichever way round and wherever they start', () => {
    const q: Quad = [[100, 120], [500, 100], [520, 360], [90, 380]];
    assert.deepEqual(orderQuad([q[2], q[3], q[0], q[1]]), q);
    assert.deepEqual(orderQuad([...q].reverse()), q);
    assert.deepEqual(turnQuad(q), [q[2], q[3], q[0], q[1]]);
  });

  it('measures a slanted card by its longer opposite sides', () => {
    // a card 856 × 540 seen with its top 6 % shorter on each side
    const q: Quad = [[51, 0], [805, 0], [856, 540], [0, 540]];
    const s = quadSize(q);
    assert.equal(s.width, 856);
    assert.ok(Math.abs(s.width / s.height - 856 / 540) < 0.01 * (856 / 540), `${s.width / s.height}`);
  });

  it('accepts a convex quadrilateral with corners near square, refuses a bow tie and a sliver', () => {
    assert.equal(plausibleQuad([[0, 0], [100, 5], [105, 70], [-3, 66]]), true);
    assert.equal(plausibleQuad([[0, 0], [100, 70], [100, 0], [0, 70]]), false);
    assert.equal(plausibleQuad([[0, 0], [100, 0], [160, 10], [60, 10]]), false);
  });

  it('crosses lines, and rebuilds a corner the frame cut off from the sides that remain', () => {
    assert.deepEqual(intersect([0, 0], [10, 10], [0, 10], [10, 0]), [5, 5]);
    assert.equal(intersect([0, 0], [10, 0], [0, 5], [10, 5]), null);
    // a 1000 × 800 frame; the card's top right corner, at (1100, 100), is outside it: the outline runs along the
    // frame's right edge from (1000, 91) to (1000, 400)
    const poly: [number, number][] = [[100, 10], [1000, 91], [1000, 400], [900, 700], [50, 600]];
    const q = quadFromPolygon(poly, 1001, 801)!;
    assert.ok(q, 'a quadrilateral');
    assert.deepEqual(q[0], [100, 10]);
    assert.ok(Math.abs(q[1][0] - 1100) < 2 && Math.abs(q[1][1] - 100) < 2, `${q[1]}`);
    assert.equal(quadFromPolygon([[0, 0], [10, 0], [10, 10], [5, 12], [0, 10], [-1, 5]], 100, 100), null);
  });
});

describe('ICAO 9303 layouts', () => {
  it('tells ID-1 from A4 by its proportions, not ID-3 from A4', () => {
    assert.equal(ratioFits('ID-1', 85.6 / 53.98), true);
    assert.equal(ratioFits('ID-1', 297 / 210), false);
    assert.equal(ratioFits('ID-3', 297 / 210), true);
    assert.equal(ratioFits('ID-3', 4 / 3), false);
  });

  it('a TD3 zone spans about 89 % of the page at its foot; on A4 at its real size it spans 38 %, stretched it is not at the foot', () => {
    const passport = placement({ left: 60, top: 876, width: 1336, height: 110 }, 1500, 1056);
    assert.equal(mrzFits('TD3', passport), true);
    assert.equal(mrzFits('TD3', placement({ left: 925, top: 1200, width: 1335, height: 110 }, 3564, 2520)), false);
    assert.equal(mrzFits('TD3', placement({ left: 178, top: 1100, width: 3208, height: 240 }, 3564, 2520)), false);
    assert.equal(mrzFits('TD1', placement({ left: 56, top: 448, width: 913, height: 170 }, 1027, 648)), true);
  });

  it('a licence’s barcode lies inside the card, across most of it', () => {
    assert.equal(barcodeFits(placement({ left: 40, top: 200, width: 940, height: 300 }, 1027, 648)), true);
    assert.equal(barcodeFits(placement({ left: 300, top: 200, width: 300, height: 100 }, 1027, 648)), false);
  });
});
