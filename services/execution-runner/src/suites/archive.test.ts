import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { safeEntryPath, unpackArchive } from './archive.js';

const LIMITS = { maxBytes: 10 * 1024 * 1024, maxUnpackedBytes: 1024 * 1024, maxFiles: 50 };

/** Runs `build` in a fresh directory and returns the archive it wrote there as `out`. */
function archiveOf(build: (dir: string) => string[]): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'archive-test-'));
  try {
    const out = path.join(dir, 'out');
    const args = build(path.join(dir, 'src'));
    execFileSync(args[0]!, [...args.slice(1).map((a) => a.replace('OUT', out))], { cwd: path.join(dir, 'src') });
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tree = (files: Record<string, string>) => (dir: string) => {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
};

/** A zip written by Python's zipfile, entries as (name, text or `*<n>` for n bytes, unix mode). */
const zipOf = (entries: Array<[string, string, number]>) =>
  archiveOf((dir) => {
    mkdirSync(dir);
    const script = `import zipfile,sys,json\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\nfor n,t,m in json.loads(sys.argv[2]):\n  t='x'*int(t[1:]) if t.startswith('*') else t\n  i=zipfile.ZipInfo(n); i.external_attr=m<<16; i.create_system=3; z.writestr(i,t)\nz.close()`;
    return ['python3', '-c', script, 'OUT', JSON.stringify(entries)];
  });

describe('suite archives', () => {
  it('unpacks a .tar.gz and a .zip to the same files, dropping a single top folder', () => {
    const tgz = archiveOf((dir) => {
      tree({ 'suite/playwright.config.ts': 'export default {}', 'suite/tests/a.spec.ts': 'test' })(dir);
      return ['tar', 'czf', 'OUT', 'suite'];
    });
    const zip = zipOf([
      ['suite/playwright.config.ts', 'export default {}', 0o100644],
      ['suite/tests/a.spec.ts', 'test', 0o100644],
    ]);
    for (const [data, format] of [[tgz, 'tar.gz'], [zip, 'zip']] as const) {
      const u = unpackArchive(data, LIMITS);
      expect(u.format).toBe(format);
      expect(u.files.map((f) => [f.path, f.data.toString()]).sort()).toEqual([['playwright.config.ts', 'export default {}'], ['tests/a.spec.ts', 'test']]);
    }
  });

  it('refuses links, devices and paths that leave the archive', () => {
    const withLink = archiveOf((dir) => {
      tree({ 'a.spec.ts': 'x' })(dir);
      symlinkSync('/etc/passwd', path.join(dir, 'passwd'));
      return ['tar', 'czf', 'OUT', '.'];
    });
    expect(() => unpackArchive(withLink, LIMITS)).toThrow(/passwd" is a symbolic link/);
    const withHardLink = archiveOf((dir) => {
      tree({ 'a.spec.ts': 'x' })(dir);
      execFileSync('ln', [path.join(dir, 'a.spec.ts'), path.join(dir, 'b.spec.ts')]);
      return ['tar', 'czf', 'OUT', 'a.spec.ts', 'b.spec.ts'];
    });
    expect(() => unpackArchive(withHardLink, LIMITS)).toThrow(/is a hard link/);
    const withFifo = archiveOf((dir) => {
      tree({ 'a.spec.ts': 'x' })(dir);
      execFileSync('mkfifo', [path.join(dir, 'pipe')]);
      return ['tar', 'czf', 'OUT', '.'];
    });
    expect(() => unpackArchive(withFifo, LIMITS)).toThrow(/is a FIFO/);
    const escaping = archiveOf((dir) => {
      tree({ 'a.spec.ts': 'x' })(dir);
      return ['tar', 'czf', 'OUT', '--transform', 's,a.spec.ts,../../etc/cron.d/x,', 'a.spec.ts'];
    });
    expect(() => unpackArchive(escaping, LIMITS)).toThrow(/leaves the archive/);
    expect(() => unpackArchive(zipOf([['link', '/etc/passwd', 0o120777]]), LIMITS)).toThrow(/"link" is a symbolic link/);
    expect(() => unpackArchive(zipOf([['/etc/x', 'x', 0o100644]]), LIMITS)).toThrow(/absolute path/);
    expect(() => safeEntryPath('a/../../b')).toThrow(/leaves the archive/);
    expect(safeEntryPath('./tests/a.spec.ts')).toBe('tests/a.spec.ts');
  });

  it('refuses what unpacks past its caps, and what is no archive', () => {
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024));
    expect(() => unpackArchive(bomb, LIMITS)).toThrow(/unpacks to more than 1048576 bytes/);
    const many = zipOf(Array.from({ length: 51 }, (_, i) => [`f${i}.ts`, 'x', 0o100644] as [string, string, number]));
    expect(() => unpackArchive(many, LIMITS)).toThrow(/more than 50 files/);
    const big = zipOf(Array.from({ length: 20 }, (_, i) => [`big${i}.ts`, `*${60 * 1024}`, 0o100644] as [string, string, number]));
    expect(() => unpackArchive(big, LIMITS)).toThrow(/unpacks to more than 1048576 bytes/);
    expect(() => unpackArchive(Buffer.from('not an archive at all'), LIMITS)).toThrow(/neither a .tar.gz nor a .zip/);
    expect(() => unpackArchive(gzipSync(Buffer.from('x'.repeat(600))), LIMITS)).toThrow(/malformed tar header|truncated|holds no file/);
  });
});
