import type { Reply } from './http.js';

/**
 * Polls a discovery session's progress through the gateway until it has `status`. Once a second: the
 * gateway counts every poll against the key's per-minute limit, so a crawl slowed by a loaded machine
 * must not turn a fast poll into 429s; a 429 waits the `Retry-After` it names. Throws with the last
 * answer when the session does not get there in time.
 */
export async function waitForSession(gw: (method: string, path: string) => Promise<Reply>, sessionId: string, status: string, timeoutMs = 240_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await gw('GET', `/api/v1/discovery/${sessionId}/progress`);
    if (res.status === 200 && res.body.status === status) return res.body;
    if (res.status === 200 && ['completed', 'failed', 'cancelled'].includes(res.body.status)) {
      throw new Error(`session ${sessionId} ended ${res.body.status}, not ${status}: ${JSON.stringify(res.body)}`);
    }
    if (res.status !== 200 && res.status !== 429) throw new Error(`progress answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (Date.now() > deadline) throw new Error(`session ${sessionId} not ${status} after ${timeoutMs} ms: ${res.status} ${JSON.stringify(res.body)}`);
    const wait = res.status === 429 ? Number(res.headers.get('retry-after') ?? 1) * 1000 : 1000;
    await new Promise((r) => setTimeout(r, wait));
  }
}
