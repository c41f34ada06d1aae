// Sites the panel builds from content of ours with the app's own generator
// (MkDocs, Sphinx, VitePress): built once per content into tests/.tmp, keyed
// by a hash of the sources, as the fixture SPA's build is.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PANEL_TMP } from './support.js';

const run = promisify(execFile);

async function hashInto(dir: string, h: ReturnType<typeof createHash>): Promise<void> {
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      h.update(`d ${entry.name}\n`);
      await hashInto(p, h);
    } else h.update(`f ${entry.name}\n`).update(await readFile(p));
  }
}

const building = new Map<string, Promise<string>>();

/**
 * Builds `source` once per content: copies it into a fresh folder, runs
 * `command` there (its output folder `outDir`, relative to the copy) and
 * answers the output folder.
 */
export function buildSite(name: string, source: string, command: string, args: string[], outDir: string): Promise<string> {
  const key = `${name} ${source}`;
  let b = building.get(key);
  if (!b) {
    b = (async () => {
      const h = createHash('sha256').update(`${command} ${args.join(' ')}\n`);
      await hashInto(source, h);
      const hash = h.digest('hex').slice(0, 16);
      const done = path.join(PANEL_TMP, `${name}-${hash}`);
      if ((await stat(path.join(done, outDir)).catch(() => undefined))?.isDirectory()) return path.join(done, outDir);
      await mkdir(PANEL_TMP, { recursive: true });
      const work = `${done}.building-${process.pid}`;
      await rm(work, { recursive: true, force: true });
      await cp(source, work, { recursive: true });
      await run(command, args, { cwd: work, timeout: 300_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }).catch(async (err: unknown) => {
        await rm(work, { recursive: true, force: true });
        throw err;
      });
      await rename(work, done).catch(async () => rm(work, { recursive: true, force: true }));
      return path.join(done, outDir);
    })();
    building.set(key, b);
    b.catch(() => building.delete(key));
  }
  return b;
}
