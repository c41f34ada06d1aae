import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/**
 * What identifies a screenshot baseline: the test case, its step, the browser
 * and the viewport. A changed viewport (or browser) is another key, so it
 * never compares against another one's baseline.
 */
export interface BaselineKey {
  testCaseId: string;
  stepId: string;
  /** The browser's name (`chromium`): not its version, which changes under every baseline. */
  browser: string;
  /** `WIDTHxHEIGHT` of the page's viewport. */
  viewport: string;
}

/** The key as one string (`case/step/chromium/1280x720`), for maps and logs. */
export function baselineKey(k: BaselineKey): string {
  for (const [name, part] of Object.entries(k)) {
    if (typeof part !== 'string' || part === '' || part.includes('/')) throw new Error(`baseline key part ${name} must be a non-empty string without "/"`);
  }
  if (!/^\d+x\d+$/.test(k.viewport)) throw new Error(`baseline key viewport must be WIDTHxHEIGHT, not "${k.viewport}"`);
  return `${k.testCaseId}/${k.stepId}/${k.browser}/${k.viewport}`;
}

/** A rectangle of differing pixels, in the captured image's pixels. */
export interface DiffRegion {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Differing pixels inside it. */
  pixels: number;
}

export interface ComparisonOptions {
  /** Per-pixel colour distance (pixelmatch's YIQ threshold, 0..1) below which pixels are equal. */
  threshold: number;
  /** Share of pixels (0..1) that may differ and still match. */
  maxDiffRatio: number;
}

export interface Comparison {
  matches: boolean;
  diffPixels: number;
  /** Pixels compared: the larger width times the larger height. */
  totalPixels: number;
  /** diffPixels / totalPixels. */
  diffRatio: number;
  /** Bounding boxes of the differing areas, largest first (at most MAX_REGIONS). */
  regions: DiffRegion[];
  /** Set when the two images are not the same size: `1280x300` against `1280x320`. */
  sizeChanged?: { expected: string; actual: string };
  /** The diff image (PNG), when pixels differ: differing pixels red over a faded copy of the expected image. */
  diffPng?: Buffer;
}

export const MAX_REGIONS = 10;
/** Differing pixels closer than this (in pixels) fall into one region. */
const CELL = 16;
const RED: [number, number, number] = [255, 0, 0];

/** Pads an image to w x h with transparent pixels. */
function padded(png: PNG, w: number, h: number): Buffer {
  if (png.width === w && png.height === h) return png.data;
  const out = Buffer.alloc(w * h * 4);
  for (let y = 0; y < png.height; y++) png.data.copy(out, y * w * 4, y * png.width * 4, (y + 1) * png.width * 4);
  return out;
}

/**
 * Compares two PNGs with pixelmatch (anti-aliased pixels ignored). Images of
 * different sizes are compared on the larger canvas: the part only one of
 * them covers counts as differing.
 * @throws Error when a buffer is not a PNG.
 */
export function compareScreenshots(expectedPng: Buffer, actualPng: Buffer, o: ComparisonOptions): Comparison {
  // Chromium encodes equal pixels to equal bytes: the unchanged page needs no decoding.
  if (expectedPng.equals(actualPng)) {
    if (expectedPng.length < 24 || expectedPng.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
    return { matches: true, diffPixels: 0, totalPixels: expectedPng.readUInt32BE(16) * expectedPng.readUInt32BE(20), diffRatio: 0, regions: [] };
  }
  const expected = PNG.sync.read(expectedPng);
  const actual = PNG.sync.read(actualPng);
  const w = Math.max(expected.width, actual.width);
  const h = Math.max(expected.height, actual.height);
  const diff = new PNG({ width: w, height: h });
  let diffPixels = pixelmatch(padded(expected, w, h), padded(actual, w, h), diff.data, w, h, { threshold: o.threshold, includeAA: false, diffColor: RED, alpha: 0.2 });
  // pixelmatch blends transparency over white, so padding would equal a white page: what only one image covers differs.
  const commonW = Math.min(expected.width, actual.width);
  const commonH = Math.min(expected.height, actual.height);
  for (let y = 0; y < h; y++) {
    for (let x = y < commonH ? commonW : 0; x < w; x++) {
      const i = (y * w + x) * 4;
      if (isDiff(diff.data, i)) continue;
      diff.data.set([...RED, 255], i);
      diffPixels++;
    }
  }
  const totalPixels = w * h;
  const diffRatio = totalPixels === 0 ? 0 : diffPixels / totalPixels;
  const sizeChanged = expected.width !== actual.width || expected.height !== actual.height ? { expected: `${expected.width}x${expected.height}`, actual: `${actual.width}x${actual.height}` } : undefined;
  return {
    matches: diffPixels === 0 || (!sizeChanged && diffRatio <= o.maxDiffRatio),
    diffPixels,
    totalPixels,
    diffRatio,
    regions: diffPixels === 0 ? [] : diffRegions(diff.data, w, h),
    ...(sizeChanged ? { sizeChanged } : {}),
    // Sub filtering: the adaptive default costs 100x the time for a few kB less.
    ...(diffPixels > 0 ? { diffPng: PNG.sync.write(diff, { filterType: 1 }) } : {}),
  };
}

/** True where pixelmatch painted a differing pixel (pure red: the faded background is grey, anti-aliasing yellow). */
const isDiff = (data: Buffer, i: number) => data[i] === 255 && data[i + 1] === 0 && data[i + 2] === 0;

/**
 * The bounding boxes of the differing areas of a pixelmatch output: pixels
 * are binned into 16-px cells, touching cells (8 neighbours) are one region.
 */
export function diffRegions(data: Buffer, w: number, h: number): DiffRegion[] {
  const cw = Math.ceil(w / CELL);
  const ch = Math.ceil(h / CELL);
  // Per cell: differing pixels and their box (minX, minY, maxX, maxY).
  const count = new Int32Array(cw * ch);
  const box = new Int32Array(cw * ch * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!isDiff(data, (y * w + x) * 4)) continue;
      const c = Math.floor(y / CELL) * cw + Math.floor(x / CELL);
      count[c] = count[c]! + 1;
      if (count[c] === 1) box.set([x, y, x, y], c * 4);
      else {
        box[c * 4] = Math.min(box[c * 4]!, x);
        box[c * 4 + 1] = Math.min(box[c * 4 + 1]!, y);
        box[c * 4 + 2] = Math.max(box[c * 4 + 2]!, x);
        box[c * 4 + 3] = Math.max(box[c * 4 + 3]!, y);
      }
    }
  }
  const seen = new Uint8Array(cw * ch);
  const regions: DiffRegion[] = [];
  for (let start = 0; start < count.length; start++) {
    if (!count[start] || seen[start]) continue;
    let [x0, y0, x1, y1, pixels] = [Infinity, Infinity, -1, -1, 0];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const c = stack.pop()!;
      pixels += count[c]!;
      x0 = Math.min(x0, box[c * 4]!);
      y0 = Math.min(y0, box[c * 4 + 1]!);
      x1 = Math.max(x1, box[c * 4 + 2]!);
      y1 = Math.max(y1, box[c * 4 + 3]!);
      const cx = c % cw;
      const cy = Math.floor(c / cw);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cw || ny >= ch) continue;
          const n = ny * cw + nx;
          if (count[n] && !seen[n]) {
            seen[n] = 1;
            stack.push(n);
          }
        }
      }
    }
    regions.push({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1, pixels });
  }
  return regions.sort((a, b) => b.pixels - a.pixels).slice(0, MAX_REGIONS);
}

/** `2.31%` (`<0.01%` for a few pixels of a large image). */
export function percent(ratio: number): string {
  if (ratio > 0 && ratio < 0.0001) return '<0.01%';
  return `${(ratio * 100).toFixed(2)}%`;
}
