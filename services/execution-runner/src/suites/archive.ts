import { gunzipSync, inflateRawSync } from 'node:zlib';
import { validationError } from '@assay/http';

/** Bounds of an uploaded suite archive (SUITE_ARCHIVE_MAX_BYTES and the rest). */
export interface ArchiveLimits {
  /** The archive as sent. */
  maxBytes: number;
  /** Every file unpacked, together. */
  maxUnpackedBytes: number;
  maxFiles: number;
}

export interface ArchiveFile {
  /** Relative, `/`-separated, no `.` or `..` segment. */
  path: string;
  data: Buffer;
}

export interface UnpackedArchive {
  format: 'tar.gz' | 'zip';
  files: ArchiveFile[];
}

const refuse = (message: string) => validationError([{ field: 'archive', message }]);

/**
 * A path inside the archive as a safe relative path: no absolute path, no
 * `..`, no NUL or control character, no backslash (a Windows separator
 * elsewhere). `./` prefixes and trailing slashes are dropped.
 * @throws AppError 400 naming the entry.
 */
export function safeEntryPath(raw: string): string {
  const path = raw.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (path.length > 1024) throw refuse(`an entry's path is longer than 1024 characters (${path.slice(0, 60)}…)`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) throw refuse(`entry ${JSON.stringify(path.slice(0, 200))} has a control character or a backslash in its path`);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw refuse(`entry ${JSON.stringify(path)} is an absolute path: paths must stay inside the archive`);
  if (path.split('/').some((s) => s === '..')) throw refuse(`entry ${JSON.stringify(path)} leaves the archive (..)`);
  return path.split('/').filter((s) => s !== '' && s !== '.').join('/');
}

/** Counts files and bytes as they are unpacked, refusing past the limits. */
class Budget {
  private bytes = 0;
  private count = 0;
  constructor(private readonly limits: ArchiveLimits) {}
  take(path: string, size: number): void {
    this.count += 1;
    this.bytes += size;
    if (this.count > this.limits.maxFiles) throw refuse(`holds more than ${this.limits.maxFiles} files`);
    if (this.bytes > this.limits.maxUnpackedBytes) throw refuse(`unpacks to more than ${this.limits.maxUnpackedBytes} bytes (at ${path})`);
  }
}

const TAR_TYPES: Record<string, string> = { '1': 'a hard link', '2': 'a symbolic link', '3': 'a character device', '4': 'a block device', '6': 'a FIFO' };

/** A NUL-terminated field of a tar header. */
const field = (b: Buffer, at: number, len: number) => {
  const s = b.subarray(at, at + len);
  const end = s.indexOf(0);
  return s.subarray(0, end === -1 ? len : end).toString('utf8');
};

/** Path records of a pax extended header (`path` is the only one that matters here). */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const len = Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isInteger(len) || len <= 0) throw refuse('has a malformed pax header');
    const record = data.subarray(space + 1, at + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') path = record.slice(eq + 1);
    at += len;
  }
  return path;
}

/** Reads a (ustar, pax or GNU) tar: regular files and directories only. */
function readTar(tar: Buffer, budget: Budget): ArchiveFile[] {
  const files: ArchiveFile[] = [];
  let at = 0;
  let longName: string | undefined;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) throw refuse('has a malformed tar header');
    const type = String.fromCharCode(header[156]!) || '0';
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const data = tar.subarray(at + 512, at + 512 + size);
    if (data.length < size) throw refuse('is truncated');
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      longName = paxPath(data);
      continue;
    }
    if (type === 'L') {
      longName = field(data, 0, data.length);
      continue;
    }
    if (type === 'g') continue;
    longName = undefined;
    if (TAR_TYPES[type]) throw refuse(`entry ${JSON.stringify(name)} is ${TAR_TYPES[type]}: only regular files and directories are taken`);
    const path = safeEntryPath(name);
    if (type === '5' || path === '') continue;
    if (type !== '0' && type !== '\0' && type !== '7') throw refuse(`entry ${JSON.stringify(name)} has tar type ${JSON.stringify(type)}: only regular files and directories are taken`);
    budget.take(path, size);
    files.push({ path, data: Buffer.from(data) });
  }
  return files;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** Reads a zip from its central directory: stored or deflated regular files and directories only. */
function readZip(zip: Buffer, budget: Budget): ArchiveFile[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1 || eocd + 22 > zip.length) throw refuse('is not a readable zip (no end of central directory)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files: ArchiveFile[] = [];
  for (let i = 0; i < entries; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw refuse('has a malformed zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const madeBy = zip.readUInt16LE(at + 4) >> 8;
    const mode = madeBy === 3 ? zip.readUInt32LE(at + 38) >>> 16 : 0;
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    at += 46 + nameLen + extraLen + commentLen;
    const kind = mode & S_IFMT;
    if (kind !== 0 && kind !== S_IFREG && kind !== S_IFDIR) throw refuse(`entry ${JSON.stringify(name)} is ${kind === 0o120000 ? 'a symbolic link' : 'not a regular file'}: only regular files and directories are taken`);
    const path = safeEntryPath(name);
    if (name.endsWith('/') || kind === S_IFDIR || path === '') continue;
    if (compressed === 0xffffffff || size === 0xffffffff) throw refuse('uses zip64, which is not read: send a .tar.gz');
    budget.take(path, size);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) throw refuse(`entry ${JSON.stringify(name)} has no local header`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    let data: Buffer;
    try {
      data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw, { maxOutputLength: Math.max(1, size) }) : Buffer.alloc(0);
    } catch {
      throw refuse(`entry ${JSON.stringify(name)} does not inflate to the size it declares`);
    }
    if (method !== 0 && method !== 8) throw refuse(`entry ${JSON.stringify(name)} uses zip method ${method}: only stored and deflated entries are read`);
    if (data.length !== size) throw refuse(`entry ${JSON.stringify(name)} does not inflate to the size it declares`);
    files.push({ path, data });
  }
  return files;
}

/**
 * Unpacks a suite archive (`.tar.gz` or `.zip`, told apart by their magic
 * bytes) in memory within `limits`: only regular files and directories,
 * every path inside the archive. A single top folder holding everything is
 * dropped, so `my-suite/playwright.config.ts` lands at the root.
 * @throws AppError 400 (validation_error, field `archive`) naming what is refused.
 */
export function unpackArchive(data: Buffer, limits: ArchiveLimits): UnpackedArchive {
  const budget = new Budget(limits);
  let unpacked: UnpackedArchive;
  if (data[0] === 0x1f && data[1] === 0x8b) {
    let tar: Buffer;
    try {
      tar = gunzipSync(data, { maxOutputLength: limits.maxUnpackedBytes + 1024 * 1024 });
    } catch (err) {
      throw refuse((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? `unpacks to more than ${limits.maxUnpackedBytes} bytes` : 'is not a readable gzip');
    }
    unpacked = { format: 'tar.gz', files: readTar(tar, budget) };
  } else if (data.readUInt32LE(0) === 0x04034b50 || data.readUInt32LE(0) === 0x06054b50) {
    unpacked = { format: 'zip', files: readZip(data, budget) };
  } else {
    throw refuse('is neither a .tar.gz nor a .zip');
  }
  const seen = new Set<string>();
  for (const f of unpacked.files) {
    if (seen.has(f.path)) throw refuse(`holds ${JSON.stringify(f.path)} twice`);
    seen.add(f.path);
  }
  const tops = new Set(unpacked.files.map((f) => f.path.split('/')[0]));
  const [top] = tops;
  if (tops.size === 1 && unpacked.files.every((f) => f.path.includes('/'))) {
    unpacked.files = unpacked.files.map((f) => ({ ...f, path: f.path.slice(top!.length + 1) }));
  }
  if (unpacked.files.length === 0) throw refuse('holds no file');
  return unpacked;
}
