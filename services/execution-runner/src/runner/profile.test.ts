import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PhaseProfile } from './profile.js';

describe('PhaseProfile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'assay-profile-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps nothing and writes nothing when off, and still runs and answers what it times', async () => {
    const profile = new PhaseProfile(undefined);
    expect(profile.enabled).toBe(false);
    await expect(profile.time('navigate', async () => 42)).resolves.toBe(42);
    await expect(profile.time('navigate', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    profile.add('fingerprint', 3);
    await profile.flush();
    expect(existsSync(path.join(dir, 'p.json'))).toBe(false);
  });

  it('writes each phase’s samples per flush, failures timed too, and starts over', async () => {
    const file = path.join(dir, 'p.json');
    const profile = new PhaseProfile(file);
    await profile.time('step click', () => new Promise((r) => setTimeout(r, 20)));
    await profile.time('step click', async () => Promise.reject(new Error('x'))).catch(() => undefined);
    profile.add('fingerprint', 1.26);
    await profile.flush();
    const first = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(first).sort()).toEqual(['fingerprint', 'step click']);
    expect(first['step click']).toHaveLength(2);
    expect(first['step click'][0]).toBeGreaterThanOrEqual(15);
    expect(first.fingerprint).toEqual([1.3]);
    profile.add('context create', 5);
    await profile.flush();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'context create': [5] });
  });
});
