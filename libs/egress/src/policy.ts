import { lookup as dnsLookup } from 'node:dns/promises';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** What an address is, from the policy's point of view. */
export type AddressCategory = 'metadata' | 'link_local' | 'unspecified' | 'multicast' | 'reserved' | 'private' | 'loopback' | 'public';

/** The deployment's choices (EGRESS_* variables). */
export interface EgressSettings {
  /** 127.0.0.0/8, ::1 and `localhost` (EGRESS_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  /** 10/8, 172.16/12, 192.168/16, 100.64/10, 198.18/15, fc00::/7 (EGRESS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Networks reachable whatever their category (EGRESS_ALLOW_CIDRS). */
  allowCidrs: string[];
  /** Networks never reachable, over every allowance (EGRESS_DENY_CIDRS). */
  denyCidrs: string[];
}

export const DEFAULT_EGRESS: EgressSettings = { allowLoopback: false, allowPrivate: false, allowCidrs: [], denyCidrs: [] };

/** The outcome of a check: allowed with the addresses to use, or refused with a reason a person can read. */
export type Verdict =
  | { allowed: true; addresses: string[] }
  | { allowed: false; reason: string; category: AddressCategory | 'name' | 'scheme' | 'unresolvable'; address?: string };

/** Thrown (or passed to a callback) where a connection is refused. */
export class EgressDeniedError extends Error {
  readonly code = 'EGRESS_DENIED';
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`${target} blocked by the egress policy (${reason})`);
    this.name = 'EgressDeniedError';
  }
}

interface Range {
  cidr: [Address, number];
  category: AddressCategory;
  label: string;
}

const range = (cidr: string, category: AddressCategory, label: string): Range => ({ cidr: ipaddr.parseCIDR(cidr), category, label });

/**
 * Known cloud metadata endpoints (AWS/GCP/Azure/OpenStack/DigitalOcean share
 * 169.254.169.254; AWS ECS task metadata; AWS IPv6; Alibaba). Checked first.
 */
const METADATA: Range[] = [
  range('169.254.169.254/32', 'metadata', 'cloud metadata address'),
  range('169.254.170.2/32', 'metadata', 'cloud metadata address'),
  range('169.254.169.253/32', 'metadata', 'cloud metadata address'),
  range('fd00:ec2::254/128', 'metadata', 'cloud metadata address'),
  range('100.100.100.200/32', 'metadata', 'cloud metadata address'),
];

/** Every other special-purpose range (RFC 6890 and successors), most specific first where they overlap. */
const SPECIAL: Range[] = [
  range('127.0.0.0/8', 'loopback', 'loopback address'),
  range('::1/128', 'loopback', 'loopback address'),
  range('0.0.0.0/8', 'unspecified', 'unspecified address'),
  range('::/128', 'unspecified', 'unspecified address'),
  range('169.254.0.0/16', 'link_local', 'link-local address'),
  range('fe80::/10', 'link_local', 'link-local address'),
  range('10.0.0.0/8', 'private', 'private address'),
  range('172.16.0.0/12', 'private', 'private address'),
  range('192.168.0.0/16', 'private', 'private address'),
  range('100.64.0.0/10', 'private', 'private address (carrier-grade NAT)'),
  range('198.18.0.0/15', 'private', 'private address (benchmarking)'),
  range('fc00::/7', 'private', 'private address (unique local)'),
  range('fec0::/10', 'private', 'private address (site-local)'),
  range('224.0.0.0/4', 'multicast', 'multicast address'),
  range('ff00::/8', 'multicast', 'multicast address'),
  range('240.0.0.0/4', 'reserved', 'reserved address'),
  range('192.0.0.0/24', 'reserved', 'reserved address'),
  range('192.0.2.0/24', 'reserved', 'reserved address (documentation)'),
  range('198.51.100.0/24', 'reserved', 'reserved address (documentation)'),
  range('203.0.113.0/24', 'reserved', 'reserved address (documentation)'),
  range('192.88.99.0/24', 'reserved', 'reserved address'),
  range('2001:db8::/32', 'reserved', 'reserved address (documentation)'),
  range('100::/64', 'reserved', 'reserved address (discard)'),
  range('2001::/32', 'reserved', 'reserved address (Teredo)'),
  range('64:ff9b:1::/48', 'private', 'private address (local-use NAT64)'),
];

/** IPv6 forms that carry an IPv4 address: what they reach is decided by that address. */
const EMBEDDED_V4: Array<{ cidr: [Address, number]; form: string; at: number }> = [
  { cidr: ipaddr.parseCIDR('::ffff:0:0/96'), form: 'IPv4-mapped', at: 12 },
  { cidr: ipaddr.parseCIDR('::/96'), form: 'IPv4-compatible', at: 12 },
  { cidr: ipaddr.parseCIDR('64:ff9b::/96'), form: 'NAT64', at: 12 },
  { cidr: ipaddr.parseCIDR('2002::/16'), form: '6to4', at: 2 },
];

/** Host names of metadata services, refused before any lookup. */
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal', 'metadata.tencentyun.com']);

export interface Classified {
  category: AddressCategory;
  label: string;
  /** The IPv4 address an IPv6 form carries, when it carries one. */
  embedded?: { ipv4: string; form: string };
}

function matches(a: Address, cidr: [Address, number]): boolean {
  return a.kind() === cidr[0].kind() && (a as ipaddr.IPv4).match(cidr as [ipaddr.IPv4, number]);
}

/** Parses any spelling of an IP address (dotted, decimal, hex, octal, short IPv4; IPv6 with or without brackets or a zone). */
export function parseAddress(text: string): Address | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

function embeddedV4(a: Address): { ipv4: ipaddr.IPv4; form: string } | undefined {
  if (a.kind() !== 'ipv6') return undefined;
  const bytes = (a as ipaddr.IPv6).toByteArray();
  for (const e of EMBEDDED_V4) {
    if (!matches(a, e.cidr)) continue;
    const v4 = bytes.slice(e.at, e.at + 4);
    // `::` and `::1` sit inside ::/96 but are their own thing.
    if (e.form === 'IPv4-compatible' && v4[0] === 0 && v4[1] === 0 && v4[2] === 0 && v4[3]! <= 1) return undefined;
    return { ipv4: new ipaddr.IPv4(v4), form: e.form };
  }
  return undefined;
}

/** The category of an address; IPv6 forms carrying an IPv4 address take that address's category. */
export function classifyAddress(input: string | Address): Classified {
  const a = typeof input === 'string' ? parseAddress(input) : input;
  if (!a) return { category: 'reserved', label: 'not an IP address' };
  const inner = embeddedV4(a);
  if (inner) {
    const c = classifyAddress(inner.ipv4);
    return { ...c, embedded: { ipv4: inner.ipv4.toString(), form: inner.form } };
  }
  for (const r of METADATA) if (matches(a, r.cidr)) return { category: r.category, label: r.label };
  for (const r of SPECIAL) if (matches(a, r.cidr)) return { category: r.category, label: r.label };
  return { category: 'public', label: 'public address' };
}

/** Lower case, no brackets, no trailing dots, IDNA to ASCII. */
export function normaliseHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (parseAddress(h)) return h;
  return domainToASCII(h) || h;
}

const MIN_PREFIX = { ipv4: 8, ipv6: 16 };
/** An allow-list entry reaches a metadata address only when it is this narrow (it names it, not a whole world). */
const METADATA_MIN_PREFIX = { ipv4: 16, ipv6: 64 };

/**
 * Problems with EGRESS_* settings, one line each (an empty list when fine):
 * unparsable CIDRs, and allow-list entries broader than /8 (IPv4) or /16 (IPv6).
 */
export function egressSettingsProblems(s: EgressSettings): string[] {
  const problems: string[] = [];
  for (const [name, list] of [['EGRESS_ALLOW_CIDRS', s.allowCidrs], ['EGRESS_DENY_CIDRS', s.denyCidrs]] as const) {
    for (const c of list) {
      let parsed: [Address, number];
      try {
        parsed = ipaddr.parseCIDR(c);
      } catch {
        problems.push(`${name} has "${c}", which is not a CIDR such as 10.1.0.0/16 or fd00:1::/64`);
        continue;
      }
      if (name === 'EGRESS_ALLOW_CIDRS' && parsed[1] < MIN_PREFIX[parsed[0].kind()]) {
        problems.push(`${name} has "${c}", broader than /${MIN_PREFIX[parsed[0].kind()]}: allow whole classes with EGRESS_ALLOW_PRIVATE or EGRESS_ALLOW_LOOPBACK`);
      }
    }
  }
  return problems;
}

export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface EgressPolicyOptions {
  /**
   * Name resolution; default the system resolver (getaddrinfo, as every
   * connection of this process uses). Only for a process that resolves in
   * another way itself.
   */
  resolve?: Resolve;
}

/**
 * One egress policy (DESIGN.md, Egress): decides whether a destination may be
 * reached. Every service that fetches a customer's URL asks it before the
 * request and again for the address it actually connects to.
 */
export class EgressPolicy {
  private readonly allow: Array<[Address, number]>;
  private readonly deny: Array<[Address, number]>;
  private readonly resolveName: Resolve;

  /** @throws Error when a CIDR cannot be parsed (see egressSettingsProblems). */
  constructor(
    readonly settings: EgressSettings = DEFAULT_EGRESS,
    options: EgressPolicyOptions = {},
  ) {
    const problems = egressSettingsProblems(settings).filter((p) => !p.includes('broader than'));
    if (problems.length) throw new Error(problems.join('; '));
    this.allow = settings.allowCidrs.map((c) => ipaddr.parseCIDR(c));
    this.deny = settings.denyCidrs.map((c) => ipaddr.parseCIDR(c));
    this.resolveName = options.resolve ?? systemResolve;
  }

  /** Whether one IP address may be connected to. Synchronous: no lookup. */
  checkAddress(ip: string): Verdict {
    const a = parseAddress(ip);
    if (!a) return { allowed: false, reason: `${ip} is not an IP address`, category: 'reserved' };
    const shown = a.toString();
    const c = classifyAddress(a);
    const inner = c.embedded ? ipaddr.parse(c.embedded.ipv4) : undefined;
    const candidates = inner ? [a, inner] : [a];
    const describe = c.embedded ? `${shown} (${c.embedded.form} ${c.embedded.ipv4})` : shown;
    if (candidates.some((x) => this.deny.some((d) => matches(x, d)))) {
      return { allowed: false, reason: `${describe} is in EGRESS_DENY_CIDRS`, category: c.category, address: shown };
    }
    const allowedBy = this.allow.find((r) => candidates.some((x) => matches(x, r)));
    if (allowedBy && (c.category !== 'metadata' || allowedBy[1] >= METADATA_MIN_PREFIX[allowedBy[0].kind()])) return { allowed: true, addresses: [shown] };
    const ok = c.category === 'public' || (c.category === 'loopback' && this.settings.allowLoopback) || (c.category === 'private' && this.settings.allowPrivate);
    if (ok) return { allowed: true, addresses: [shown] };
    return { allowed: false, reason: `${c.label} ${describe}`, category: c.category, address: shown };
  }

  /**
   * Whether a host (name or IP literal in any spelling) may be reached:
   * names are resolved and every address must pass, so a name that also
   * resolves to a private address is refused.
   */
  async checkHost(rawHost: string): Promise<Verdict> {
    const host = normaliseHost(rawHost);
    if (!host) return { allowed: false, reason: 'no host', category: 'unresolvable' };
    if (parseAddress(host)) return this.checkAddress(host);
    if (METADATA_NAMES.has(host)) return { allowed: false, reason: `${host} is a cloud metadata name`, category: 'name' };
    if (host === 'localhost' || host.endsWith('.localhost')) {
      // RFC 6761: always loopback, never asked of DNS.
      return this.settings.allowLoopback ? { allowed: true, addresses: ['127.0.0.1', '::1'] } : { allowed: false, reason: `loopback address (${host})`, category: 'loopback' };
    }
    if (host.endsWith('.invalid')) return { allowed: false, reason: `${host} does not resolve`, category: 'unresolvable' };
    let addresses: string[];
    try {
      addresses = await this.resolveName(host);
    } catch {
      return { allowed: false, reason: `${host} does not resolve`, category: 'unresolvable' };
    }
    if (addresses.length === 0) return { allowed: false, reason: `${host} does not resolve`, category: 'unresolvable' };
    for (const address of addresses) {
      const v = this.checkAddress(address);
      if (!v.allowed) return { ...v, reason: `${host} resolves to ${v.reason}` };
    }
    return { allowed: true, addresses };
  }

  /**
   * Whether a URL may be fetched: its scheme is one of `schemes` (default
   * http and https) and its host passes `checkHost`.
   */
  async checkUrl(url: string, schemes: readonly string[] = ['http:', 'https:']): Promise<Verdict> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return { allowed: false, reason: 'not an absolute URL', category: 'scheme' };
    }
    if (!schemes.includes(u.protocol)) return { allowed: false, reason: `the ${u.protocol.replace(/:$/, '')} scheme is not allowed`, category: 'scheme' };
    return this.checkHost(u.hostname);
  }

  /**
   * A `lookup` for `net.connect`/`tls.connect` (and undici's `connect`
   * option): resolves like the system does and fails with
   * EgressDeniedError unless every address passes, so the address a socket
   * connects to is the one that was checked (no DNS rebinding in between).
   */
  readonly lookup = (hostname: string, options: { all?: boolean; family?: number } | number, callback: (...args: any[]) => void): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    this.checkHost(hostname).then(
      (v) => {
        if (!v.allowed) return callback(new EgressDeniedError(hostname, v.reason));
        const list = v.addresses
          .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
          .filter((a) => !opts.family || a.family === opts.family);
        if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${opts.family} address`), { code: 'ENOTFOUND' }));
        if (opts.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
      (err) => callback(err),
    );
  };
}
