import { EventEmitter } from 'node:events';
import type { Page } from 'playwright-core';
import type { EgressProxy } from '@assay/egress';
import { BlockedRequestLog } from './blocked-requests.js';

type Refusal = { host: string; port: number; reason: string };

function setup() {
  const page = new EventEmitter();
  let pending: Refusal[] = [];
  const proxy = { takeBlocked: () => [pending, (pending = [])][0] } as unknown as EgressProxy;
  const log = new BlockedRequestLog(page as unknown as Page, proxy);
  const fail = (url: string, errorText = 'net::ERR_SOCKS_CONNECTION_FAILED') =>
    page.emit('requestfailed', { url: () => url, method: () => 'GET', resourceType: () => 'fetch', failure: () => ({ errorText }) });
  const refuse = (r: Refusal) => pending.push(r);
  return { log, fail, refuse };
}

describe('blocked requests of a page', () => {
  it('gives each request the proxy’s reason, also when one refused connection failed two requests to the same host', () => {
    const { log, fail, refuse } = setup();
    refuse({ host: '127.0.0.2', port: 9000, reason: '127.0.0.2 is in EGRESS_DENY_CIDRS' });
    fail('http://127.0.0.2:9000/api/secrets');
    fail('http://127.0.0.2:9000/pixel.png');
    log.endStep('s1');
    expect(log.entries.map((e) => [e.url, e.reason, e.step_id])).toEqual([
      ['http://127.0.0.2:9000/api/secrets', '127.0.0.2 is in EGRESS_DENY_CIDRS', 's1'],
      ['http://127.0.0.2:9000/pixel.png', '127.0.0.2 is in EGRESS_DENY_CIDRS', 's1'],
    ]);
  });

  it('remembers a host’s reason for a request that fails in a later step, and ignores failures that are not refusals', () => {
    const { log, fail, refuse } = setup();
    refuse({ host: '127.0.0.2', port: 9000, reason: '127.0.0.2 is in EGRESS_DENY_CIDRS' });
    fail('http://127.0.0.2:9000/a');
    log.endStep('s1');
    fail('http://127.0.0.2:9000/b');
    fail('http://127.0.0.3:9000/c', 'net::ERR_CONNECTION_RESET');
    fail('http://[::1]:9001/d');
    log.endStep('s2');
    expect(log.entries.map((e) => [e.url, e.reason, e.step_id])).toEqual([
      ['http://127.0.0.2:9000/a', '127.0.0.2 is in EGRESS_DENY_CIDRS', 's1'],
      ['http://127.0.0.2:9000/b', '127.0.0.2 is in EGRESS_DENY_CIDRS', 's2'],
      ['http://[::1]:9001/d', 'refused by the egress policy', 's2'],
    ]);
  });

  it('files a refusal no request of the page matched under its host and port', () => {
    const { log, refuse } = setup();
    refuse({ host: 'internal.example', port: 443, reason: 'internal.example resolves to private address 10.0.0.5' });
    log.endStep('s1');
    expect(log.entries).toEqual([{ step_id: 's1', url: 'internal.example:443', reason: 'internal.example resolves to private address 10.0.0.5' }]);
  });
});
