import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AssayClient } from '@assay/client';

/** A mistake in the command line: exit code 2 with the message and a hint. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Ctrl-C: the command's cleanup (cancel the run, say). */
  onInterrupt(handler: () => void): () => void;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export const CREDENTIAL_OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** parseArgs with strict options; unknown options and missing values are UsageErrors. */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...CREDENTIAL_OPTIONS, ...options }, allowPositionals: positionals > 0, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}"`);
  return parsed;
}

/**
 * The client for the gateway named by --url / ASSAY_URL (or the ASSAY_GATEWAY_URL
 * that `make run` prints), with the key of --api-key / ASSAY_API_KEY (or
 * ASSAY_SERVICE_KEY). The key is never printed.
 */
export function clientFrom(values: { url?: string | undefined; 'api-key'?: string | undefined }, io: Io): AssayClient {
  const baseUrl = values.url ?? io.env.ASSAY_URL ?? io.env.ASSAY_GATEWAY_URL ?? 'http://localhost:8080';
  const apiKey = values['api-key'] ?? io.env.ASSAY_API_KEY ?? io.env.ASSAY_SERVICE_KEY;
  if (!apiKey) throw new UsageError('No API key: set ASSAY_API_KEY (a service key or an sk_live_ key) or pass --api-key');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--url / ASSAY_URL must be an http(s) URL, not "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url / ASSAY_URL must be an http(s) URL, not "${baseUrl}"`);
  return new AssayClient({ baseUrl: url.origin + url.pathname.replace(/\/+$/, ''), apiKey, userAgent: 'assay-cli' });
}

/** `--var name=value` pairs as an object. */
export function readVariables(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--var must be name=value, not "${pair}"`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** A whole number option within bounds. */
export function readInt(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return Number(value);
}

export function need(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Plain text on a TTY is styled; in CI and pipes it is not. */
export function styles(tty: boolean) {
  const wrap = (open: number, close: number) => (s: string) => (tty ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export const write = (stream: NodeJS.WritableStream, text: string) => void stream.write(text);
