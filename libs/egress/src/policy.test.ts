import { readConfig } from '@assay/config';
import { classifyAddress, DEFAULT_EGRESS, EgressPolicy, egressSettingsProblems, normaliseHost, readEgressSettings } from './index.js';

const strict = new EgressPolicy();

describe('classifying addresses', () => {
  it('reads every spelling of IPv4 the URL parser and inet_aton accept', () => {
    for (const spelling of ['127.0.0.1', '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '127.1', '0177.1']) {
      expect({ spelling, category: classifyAddress(spelling).category }).toEqual({ spelling, category: 'loopback' });
    }
    expect(classifyAddress('0xa9.0xfe.0xa9.0xfe').category).toBe('metadata');
    expect(classifyAddress('2852039166').category).toBe('metadata');
  });

  it('sees the IPv4 address inside mapped, compatible, NAT64 and 6to4 IPv6 forms', () => {
    expect(classifyAddress('::ffff:169.254.169.254')).toMatchObject({ category: 'metadata', embedded: { ipv4: '169.254.169.254', form: 'IPv4-mapped' } });
    expect(classifyAddress('[::ffff:a9fe:a9fe]')).toMatchObject({ category: 'metadata' });
    expect(classifyAddress('::ffff:10.0.0.5')).toMatchObject({ category: 'private', embedded: { form: 'IPv4-mapped' } });
    expect(classifyAddress('::a00:5')).toMatchObject({ category: 'private', embedded: { ipv4: '10.0.0.5', form: 'IPv4-compatible' } });
    // ipaddr.js reads this dotted tail as mapped: either way it reaches 10.0.0.5.
    expect(classifyAddress('::10.0.0.5')).toMatchObject({ category: 'private', embedded: { ipv4: '10.0.0.5' } });
    expect(classifyAddress('64:ff9b::10.0.0.5')).toMatchObject({ category: 'private', embedded: { form: 'NAT64' } });
    expect(classifyAddress('2002:a9fe:a9fe::1')).toMatchObject({ category: 'metadata', embedded: { form: '6to4' } });
    expect(classifyAddress('::ffff:8.8.8.8').category).toBe('public');
    // :: and ::1 are not IPv4-compatible forms of 0.0.0.0 and 0.0.0.1.
    expect(classifyAddress('::').category).toBe('unspecified');
    expect(classifyAddress('::1').category).toBe('loopback');
  });

  it('puts each special-purpose range in its class', () => {
    const cases: Array<[string, string]> = [
      ['169.254.169.254', 'metadata'],
      ['169.254.170.2', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['169.254.1.1', 'link_local'],
      ['fe80::1', 'link_local'],
      ['fe80::1%eth0', 'link_local'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['10.0.0.5', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.5', 'private'],
      ['100.64.0.5', 'private'],
      ['100.127.255.255', 'private'],
      ['198.18.0.1', 'private'],
      ['fd00::5', 'private'],
      ['fc00::1', 'private'],
      ['127.255.255.254', 'loopback'],
      ['224.0.0.1', 'multicast'],
      ['ff02::1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['240.0.0.1', 'reserved'],
      ['192.0.2.1', 'reserved'],
      ['2001:db8::1', 'reserved'],
      ['8.8.8.8', 'public'],
      ['172.32.0.1', 'public'],
      ['100.128.0.1', 'public'],
      ['2606:4700::1111', 'public'],
    ];
    expect(cases.map(([ip]) => [ip, classifyAddress(ip).category])).toEqual(cases);
  });
});

describe('normalising hosts', () => {
  it('lower-cases, strips brackets and trailing dots, and turns IDN into ASCII', () => {
    expect(normaliseHost('METADATA.Google.Internal.')).toBe('metadata.google.internal');
    expect(normaliseHost('[::1]')).toBe('::1');
    expect(normaliseHost('bücher.example')).toBe('xn--bcher-kva.example');
  });
});

describe('the policy', () => {
  it('refuses metadata, link-local, private, loopback and reserved addresses by default and names why', async () => {
    const refused: Array<[string, RegExp]> = [
      ['169.254.169.254', /^cloud metadata address 169\.254\.169\.254$/],
      ['[::ffff:169.254.169.254]', /^cloud metadata address ::ffff:a9fe:a9fe \(IPv4-mapped 169\.254\.169\.254\)$/],
      ['2130706433', /^loopback address 127\.0\.0\.1$/],
      ['10.0.0.5', /^private address 10\.0\.0\.5$/],
      ['[::ffff:10.0.0.5]', /private address/],
      ['0.0.0.0', /unspecified/],
      ['[::]', /unspecified/],
      ['metadata.google.internal.', /cloud metadata name/],
      ['METADATA', /cloud metadata name/],
      ['localhost', /loopback/],
      ['app.localhost', /loopback/],
      ['anything.invalid', /does not resolve/],
      ['224.0.0.251', /multicast/],
    ];
    for (const [host, reason] of refused) {
      const v = await strict.checkHost(host);
      expect({ host, allowed: v.allowed, reason: v.allowed ? '' : v.reason }).toEqual({ host, allowed: false, reason: expect.stringMatching(reason) });
    }
    expect(await strict.checkHost('93.184.216.34')).toEqual({ allowed: true, addresses: ['93.184.216.34'] });
  });

  it('lets loopback and private through only when the deployment says so, and metadata never by those switches', async () => {
    const open = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true, allowPrivate: true });
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '10.0.0.5', '[::ffff:192.168.1.5]', '100.64.0.5', '[fd00::5]']) {
      expect({ host, v: (await open.checkHost(host)).allowed }).toEqual({ host, v: true });
    }
    for (const host of ['169.254.169.254', '100.100.100.200', '[fd00:ec2::254]', '169.254.1.1', '0.0.0.0']) {
      expect({ host, v: (await open.checkHost(host)).allowed }).toEqual({ host, v: false });
    }
  });

  it('allows named networks, lets a deny list override everything, and needs a narrow entry to reach metadata', () => {
    const p = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true, allowCidrs: ['10.20.0.0/16', '169.254.169.254/32', '100.96.0.0/11'], denyCidrs: ['10.20.5.0/24', '127.0.0.2/32'] });
    expect(p.checkAddress('10.20.1.1').allowed).toBe(true);
    expect(p.checkAddress('::ffff:10.20.1.1').allowed).toBe(true);
    expect(p.checkAddress('10.21.1.1').allowed).toBe(false);
    expect(p.checkAddress('10.20.5.9')).toMatchObject({ allowed: false, reason: expect.stringMatching(/EGRESS_DENY_CIDRS/) });
    expect(p.checkAddress('127.0.0.2')).toMatchObject({ allowed: false, reason: expect.stringMatching(/EGRESS_DENY_CIDRS/) });
    expect(p.checkAddress('127.0.0.1').allowed).toBe(true);
    expect(p.checkAddress('169.254.169.254').allowed).toBe(true);
    // 100.96.0.0/11 covers Alibaba's metadata address, but is far broader than naming it.
    expect(p.checkAddress('100.100.100.200').allowed).toBe(false);
    expect(p.checkAddress('100.96.0.1').allowed).toBe(true);
  });

  it('checks URLs by scheme and host', async () => {
    expect(await strict.checkUrl('file:///etc/passwd')).toMatchObject({ allowed: false, reason: 'the file scheme is not allowed' });
    expect(await strict.checkUrl('not a url')).toMatchObject({ allowed: false });
    expect(await strict.checkUrl('http://[::ffff:169.254.169.254]/latest/meta-data/')).toMatchObject({ allowed: false, category: 'metadata' });
    expect(await strict.checkUrl('https://93.184.216.34/x')).toMatchObject({ allowed: true });
  });

  it('refuses a name when any of its addresses is refused, using the resolver it is given', async () => {
    const records: Record<string, string[]> = { 'mixed.example': ['93.184.216.34', '10.0.0.5'], 'public.example': ['93.184.216.34', '2606:4700::1111'] };
    // The resolver is the one edge here: a name's answers are what is under test.
    const p = new EgressPolicy(DEFAULT_EGRESS, { resolve: async (h) => records[h] ?? Promise.reject(new Error('ENOTFOUND')) });
    expect(await p.checkHost('mixed.example')).toMatchObject({ allowed: false, reason: 'mixed.example resolves to private address 10.0.0.5' });
    expect(await p.checkHost('public.example')).toEqual({ allowed: true, addresses: ['93.184.216.34', '2606:4700::1111'] });
    expect(await p.checkHost('nowhere.example')).toMatchObject({ allowed: false, category: 'unresolvable' });
  });

  it('gives net.connect a lookup that fails refused names and returns the checked addresses', async () => {
    const p = new EgressPolicy(DEFAULT_EGRESS, { resolve: async (h) => (h === 'rebound.example' ? ['10.0.0.5'] : ['93.184.216.34']) });
    const lookup = (host: string, all: boolean) =>
      new Promise((resolve, reject) => p.lookup(host, { all }, (err: Error | null, a: unknown, f?: number) => (err ? reject(err) : resolve(all ? a : [a, f]))));
    await expect(lookup('rebound.example', false)).rejects.toMatchObject({ code: 'EGRESS_DENIED', message: expect.stringMatching(/blocked by the egress policy \(rebound\.example resolves to private address 10\.0\.0\.5\)/) });
    expect(await lookup('ok.example', true)).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await lookup('ok.example', false)).toEqual(['93.184.216.34', 4]);
  });
});

describe('EGRESS_* settings', () => {
  const read = (env: Record<string, string>) => readConfig(env, (r) => readEgressSettings(r, { loopback: 'DISCOVERY_ALLOW_LOOPBACK' }));

  it('reads the four variables, defaulting to refuse', () => {
    expect(read({})).toEqual(DEFAULT_EGRESS);
    expect(read({ EGRESS_ALLOW_LOOPBACK: 'true', EGRESS_ALLOW_PRIVATE: '1', EGRESS_ALLOW_CIDRS: '10.1.0.0/16, fd00:1::/64', EGRESS_DENY_CIDRS: '10.1.2.0/24' })).toEqual({
      allowLoopback: true,
      allowPrivate: true,
      allowCidrs: ['10.1.0.0/16', 'fd00:1::/64'],
      denyCidrs: ['10.1.2.0/24'],
    });
  });

  it('honours an older per-service switch only while the EGRESS_ one is unset', () => {
    expect(read({ DISCOVERY_ALLOW_LOOPBACK: 'true' }).allowLoopback).toBe(true);
    expect(read({ DISCOVERY_ALLOW_LOOPBACK: 'true', EGRESS_ALLOW_LOOPBACK: 'false' }).allowLoopback).toBe(false);
  });

  it('refuses unparsable and world-wide CIDRs, naming the variable', () => {
    expect(() => read({ EGRESS_ALLOW_CIDRS: '10.0.0.0/33' })).toThrow(/EGRESS_ALLOW_CIDRS has "10\.0\.0\.0\/33", which is not a CIDR/);
    expect(() => read({ EGRESS_ALLOW_CIDRS: '0.0.0.0/0' })).toThrow(/broader than \/8/);
    expect(() => read({ EGRESS_DENY_CIDRS: 'nope' })).toThrow(/EGRESS_DENY_CIDRS/);
    expect(egressSettingsProblems({ ...DEFAULT_EGRESS, allowCidrs: ['::/0'] })).toEqual([expect.stringMatching(/broader than \/16/)]);
  });
});
