import { PNG } from 'pngjs';
import { baselineKey, compareScreenshots, percent } from './visual.js';

/** A w x h PNG of one colour, with the given rectangles painted in other colours. */
function image(w: number, h: number, fill: [number, number, number], rects: Array<{ x: number; y: number; w: number; h: number; rgb: [number, number, number] }> = []): Buffer {
  const png = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const r = rects.find((q) => x >= q.x && x < q.x + q.w && y >= q.y && y < q.y + q.h);
      png.data.set([...(r?.rgb ?? fill), 255], (y * w + x) * 4);
    }
  }
  return PNG.sync.write(png, { filterType: 1 });
}

const WHITE: [number, number, number] = [255, 255, 255];
const defaults = { threshold: 0.1, maxDiffRatio: 0 };

describe('compareScreenshots', () => {
  it('matches identical images with no differing pixel and no region', () => {
    const a = image(200, 100, WHITE, [{ x: 10, y: 10, w: 50, h: 20, rgb: [20, 90, 200] }]);
    // Equal bytes take the fast path; an equal image encoded differently is decoded and compared.
    expect(compareScreenshots(a, Buffer.from(a), defaults)).toEqual({ matches: true, diffPixels: 0, totalPixels: 20_000, diffRatio: 0, regions: [] });
    const cmp = compareScreenshots(a, PNG.sync.write(PNG.sync.read(a), { filterType: 4 }), defaults);
    expect({ matches: cmp.matches, diffPixels: cmp.diffPixels, totalPixels: cmp.totalPixels, regions: cmp.regions, sizeChanged: cmp.sizeChanged }).toEqual({
      matches: true,
      diffPixels: 0,
      totalPixels: 20_000,
      regions: [],
      sizeChanged: undefined,
    });
  });

  it('counts a recoloured block and boxes it exactly, and writes a diff PNG of the same size', () => {
    const a = image(200, 100, WHITE, [{ x: 30, y: 40, w: 20, h: 10, rgb: [0, 0, 200] }]);
    const b = image(200, 100, WHITE, [{ x: 30, y: 40, w: 20, h: 10, rgb: [200, 0, 0] }]);
    const cmp = compareScreenshots(a, b, defaults);
    expect(cmp.matches).toBe(false);
    expect(cmp.diffPixels).toBe(200);
    expect(cmp.diffRatio).toBeCloseTo(0.01, 6);
    expect(cmp.regions).toEqual([{ x: 30, y: 40, width: 20, height: 10, pixels: 200 }]);
    const diff = PNG.sync.read(cmp.diffPng!);
    expect([diff.width, diff.height]).toEqual([200, 100]);
    // The changed pixel is red in the diff, an unchanged one is not.
    const at = (x: number, y: number) => [...diff.data.subarray((y * 200 + x) * 4, (y * 200 + x) * 4 + 3)];
    expect(at(35, 45)).toEqual([255, 0, 0]);
    expect(at(5, 5)).not.toEqual([255, 0, 0]);
  });

  it('keeps distant changes as separate regions, largest first, and joins touching ones', () => {
    const a = image(300, 200, WHITE);
    const b = image(300, 200, WHITE, [
      { x: 0, y: 0, w: 10, h: 10, rgb: [0, 0, 0] },
      { x: 200, y: 150, w: 40, h: 30, rgb: [0, 0, 0] },
      // Touches the previous block's cells: the same region.
      { x: 245, y: 150, w: 5, h: 5, rgb: [0, 0, 0] },
    ]);
    const cmp = compareScreenshots(a, b, defaults);
    expect(cmp.regions).toEqual([
      { x: 200, y: 150, width: 50, height: 30, pixels: 1225 },
      { x: 0, y: 0, width: 10, height: 10, pixels: 100 },
    ]);
  });

  it('treats a changed size as a mismatch, counting what only one image covers, even on a white page', () => {
    const a = image(100, 50, WHITE);
    const b = image(100, 60, WHITE);
    const cmp = compareScreenshots(a, b, { threshold: 0.1, maxDiffRatio: 0.5 });
    expect(cmp.sizeChanged).toEqual({ expected: '100x50', actual: '100x60' });
    expect(cmp.diffPixels).toBe(1000);
    expect(cmp.matches).toBe(false);
    expect(cmp.regions).toEqual([{ x: 0, y: 50, width: 100, height: 10, pixels: 1000 }]);
  });

  it('passes within max_diff_ratio and ignores colour changes below the threshold', () => {
    const a = image(100, 100, WHITE);
    const b = image(100, 100, WHITE, [{ x: 0, y: 0, w: 5, h: 2, rgb: [0, 0, 0] }]);
    expect(compareScreenshots(a, b, { threshold: 0.1, maxDiffRatio: 0.001 })).toMatchObject({ matches: true, diffPixels: 10 });
    expect(compareScreenshots(a, b, { threshold: 0.1, maxDiffRatio: 0.0009 })).toMatchObject({ matches: false, diffPixels: 10 });
    const faint = image(100, 100, [250, 250, 250]);
    expect(compareScreenshots(a, faint, defaults)).toMatchObject({ matches: true, diffPixels: 0 });
    expect(compareScreenshots(a, faint, { threshold: 0, maxDiffRatio: 0 })).toMatchObject({ matches: false, diffPixels: 10_000 });
  });

  it('refuses a buffer that is not a PNG', () => {
    expect(() => compareScreenshots(Buffer.from('not a png'), image(2, 2, WHITE), defaults)).toThrow();
    expect(() => compareScreenshots(Buffer.from('not a png'), Buffer.from('not a png'), defaults)).toThrow('not a PNG');
  });
});

describe('baselineKey', () => {
  const key = { testCaseId: 'c1', stepId: 's1', browser: 'chromium', viewport: '1280x720' };

  it('is one per case, step, browser and viewport', () => {
    expect(baselineKey(key)).toBe('c1/s1/chromium/1280x720');
    const others = [{ testCaseId: 'c2' }, { stepId: 's2' }, { browser: 'firefox' }, { viewport: '375x667' }].map((d) => baselineKey({ ...key, ...d }));
    expect(new Set([baselineKey(key), ...others]).size).toBe(5);
  });

  it('refuses empty parts, slashes and a viewport that is not WIDTHxHEIGHT', () => {
    expect(() => baselineKey({ ...key, stepId: '' })).toThrow(/stepId/);
    expect(() => baselineKey({ ...key, testCaseId: 'a/b' })).toThrow(/testCaseId/);
    expect(() => baselineKey({ ...key, viewport: 'wide' })).toThrow(/WIDTHxHEIGHT/);
  });
});

it('writes shares of pixels as percentages', () => {
  expect([percent(0), percent(0.0231), percent(0.00001), percent(1)]).toEqual(['0.00%', '2.31%', '<0.01%', '100.00%']);
});
