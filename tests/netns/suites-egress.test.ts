import { readlinkSync } from 'node:fs';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { useHarness } from '@assay/testing';
import { packSuite, startSuitesHarness } from '../../services/execution-runner/test/suites-harness.js';

/**
 * A Playwright suite that tries to reach the cloud metadata service and
 * private addresses, run in its box by a shard runner, inside the private
 * network namespace tests/netns/run.sh made (the addresses exist only on its
 * loopback, each with a trap). The page the suite is given goes through the
 * egress proxy, which refuses them; anything else the suite starts has no
 * network at all. No trap may see a connection.
 */
const outer = process.env.ASSAY_OUTER_NETNS;
if (!outer || outer === readlinkSync('/proc/self/ns/net') || Object.keys(networkInterfaces()).some((name) => name !== 'lo')) {
  throw new Error('tests/netns must run inside the private network namespace made by tests/netns/run.sh');
}

jest.setTimeout(240_000);

const TRAPPED = ['169.254.169.254', '10.0.0.5', '192.168.1.5'];
/** The suite's port (egress.test.ts traps 80 and 443 in the same namespace, at the same time). */
const TRAP_PORT = 8081;
const hits: string[] = [];
const traps: net.Server[] = [];

beforeAll(async () => {
  for (const address of TRAPPED) {
    const server = net.createServer((s) => {
      hits.push(`${address} <- ${s.remoteAddress}`);
      s.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n<h1>ami-id i-secret AccessKeyId</h1>');
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(TRAP_PORT, address, resolve));
    traps.push(server);
  }
});
afterAll(async () => {
  for (const s of traps) await new Promise((r) => s.close(r));
});

describe('a suite in its box, against metadata and private addresses', () => {
  const h = useHarness(() => startSuitesHarness());

  it('is refused every one of them, through its page and outside it, and no trap is reached', async () => {
    const t = h.tenant();
    const projectId = await t.project();
    const up = await t.upload({ project_id: projectId, name: 'egress' }, packSuite('egress'));
    expect(up.status).toBe(201);
    const run = await t.ex('POST', '/api/v1/executions', { project_id: projectId, suite_id: up.body.id });
    expect(run.body).toMatchObject({ status: 'completed', total_tests: 5 });
    const lines = run.body.results.test_results.flatMap((r: any) => String(r.suite_test.stdout).split('\n'));
    const gotos = lines.filter((l: string) => l.startsWith('GOTO ')).map((l: string) => JSON.parse(l.slice(5)));
    expect(gotos).toHaveLength(4);
    // The proxy refuses each before connecting: Chromium reports the refused tunnel.
    for (const g of gotos) expect(g.outcome).toMatch(/ERR_(SOCKS_CONNECTION_FAILED|PROXY_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED|ACCESS_DENIED)/);
    const fetchLine = lines.find((l: string) => l.startsWith('FETCH '));
    const fetched = JSON.parse(fetchLine.slice(6));
    expect(fetched.fromPage).not.toMatch(/^OK/);
    // Node in the box has no network but loopback: the address is unreachable there.
    expect(fetched.fromNode).toMatch(/ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|unreachable/i);
    expect(JSON.stringify(run.body)).not.toContain('AccessKeyId');
    expect(hits).toEqual([]);
  });
});
