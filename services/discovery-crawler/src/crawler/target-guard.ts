import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export type AddressKind = 'public' | 'loopback' | 'private';

/** Whether an IP address is loopback, private/link-local/reserved, or public. */
export function classifyAddress(ip: string): AddressKind {
  const v = ip.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(v) === 6) {
    if (v === '::1') return 'loopback';
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
    if (mapped) return classifyAddress(mapped[1]!);
    if (v === '::' || /^f[cd]/.test(v) || /^fe[89ab]/.test(v)) return 'private';
    return 'public';
  }
  const [a = 0, b = 0] = v.split('.').map(Number);
  if (a === 127) return 'loopback';
  if (a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127) || a >= 224) {
    return 'private';
  }
  return 'public';
}

/**
 * Resolves the host and refuses loopback or private addresses unless allowed.
 * Returns the reason for a refusal, undefined when the target is fine.
 */
export async function refuseTarget(url: string, allow: { loopback: boolean; private: boolean }): Promise<string | undefined> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `the host ${host} does not resolve`;
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind === 'loopback' && !allow.loopback) return `${host} is a loopback address; this deployment does not allow crawling it (DISCOVERY_ALLOW_LOOPBACK)`;
    if (kind === 'private' && !allow.private) return `${host} is a private address; this deployment does not allow crawling it (DISCOVERY_ALLOW_PRIVATE)`;
  }
  return undefined;
}
