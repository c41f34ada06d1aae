import { sql } from 'kysely';
import { contractValidator } from '@assay/contracts';
import { eventually } from '@assay/testing';
import { readStream, startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

jest.setTimeout(120_000);

let h: DiscoveryHarness;
let t: Tenant;

beforeAll(async () => {
  h = await startDiscoveryHarness();
  t = await h.tenant();
});
afterAll(() => h?.close());

const progress = async (id: string) => (await t.dc('GET', `/api/v1/discovery/${id}/progress`)).body;
/** Pages the session reported to auth (`discovery.pages.crawled`, in batches). */
const metered = async (id: string) => (await h.events('discovery.pages.crawled')).filter((e) => e.data.session_id === id).reduce((sum, e) => sum + e.data.pages, 0);
const pageRows = (id: string) => h.database.db.selectFrom('pages').select(['url', 'state']).where('session_id', '=', id).execute();

describe('controlling a discovery session', () => {
  it('never requests pages faster than request_delay_ms', async () => {
    h.site.requests.length = 0;
    const id = await t.start({ max_pages: 5, request_delay_ms: 300 });
    await t.waitFor(id, 'completed');
    const times = h.site.requests.map((r) => r.at);
    expect(times).toHaveLength(5);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(300);
  });

  it('pauses with the frontier kept in Postgres and resumes it after the crawler restarted', async () => {
    h.site.requests.length = 0;
    const id = await t.start({ max_pages: 14, request_delay_ms: 250 });
    await eventually(async () => (await progress(id)).progress.pages_crawled >= 3, 30_000, 50);
    const paused = await t.dc('POST', `/api/v1/discovery/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(contractValidator().validate('DiscoveryPaused', paused.body)).toEqual([]);
    expect(paused.body).toMatchObject({ session_id: id, status: 'paused' });
    expect((await t.dc('POST', `/api/v1/discovery/${id}/pause`)).status).toBe(409);

    // The crawler process goes away while the session is paused; a new one starts.
    await h.stopCrawlers();
    const requestsAtStop = h.site.requests.length;
    const frozen = await progress(id);
    expect(frozen.status).toBe('paused');
    expect(frozen.progress.pages_pending).toBeGreaterThan(0);
    expect((await pageRows(id)).filter((p) => p.state === 'pending').length).toBe(frozen.progress.pages_pending);
    await new Promise((r) => setTimeout(r, 600));
    expect(h.site.requests.length).toBe(requestsAtStop);
    expect((await progress(id)).progress.pages_crawled).toBe(frozen.progress.pages_crawled);
    // The crawler reported every page it crawled before it stopped, though fewer than a batch.
    expect(await metered(id)).toBe(frozen.progress.pages_crawled);

    h.startCrawler();
    const resumed = await t.dc('POST', `/api/v1/discovery/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ session_id: id, status: 'running', resumed_at: expect.any(String) });
    expect((await t.dc('POST', `/api/v1/discovery/${id}/resume`)).body).toMatchObject({ error: 'conflict', details: { status: 'running' } });
    const done = await t.waitFor(id, 'completed');
    expect(done.progress.pages_crawled).toBe(14);
    // Across both crawlers each page was fetched once, except those in flight at the pause (at most one per tab), fetched again on resume.
    const fetched = h.site.requests.map((r) => r.path);
    expect(new Set(fetched).size).toBe(14);
    expect(fetched.length - 14).toBeLessThanOrEqual(3);
    const rows = await pageRows(id);
    expect(rows.filter((p) => p.state === 'crawled')).toHaveLength(14);
    expect(await metered(id)).toBe(14);
  });

  it('takes a started or resumed session at once, not at its next poll', async () => {
    // A crawler that polls only once a minute: what wakes it is the notification of the start and of the resume.
    await h.stopCrawlers();
    h.startCrawler({ pollMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300)); // past its first look, which found nothing
    const id = await t.start({ max_pages: 3, request_delay_ms: 300 });
    await eventually(async () => (await progress(id)).progress.pages_crawled >= 1, 10_000, 50);
    expect((await t.dc('POST', `/api/v1/discovery/${id}/pause`)).status).toBe(200);
    await eventually(async () => (await progress(id)).status === 'paused', 10_000, 50);
    await new Promise((r) => setTimeout(r, 500)); // the crawler lets the paused session go
    expect((await t.dc('POST', `/api/v1/discovery/${id}/resume`)).status).toBe(200);
    const done = await t.waitFor(id, 'completed');
    expect(done.progress.pages_crawled).toBe(3);
    await h.stopCrawlers();
    h.startCrawler();
  });

  it('cancels within seconds, ends the stream, and refuses a second cancel', async () => {
    const id = await t.start({ max_pages: 40, request_delay_ms: 400 });
    await eventually(async () => (await progress(id)).progress.pages_crawled >= 1, 30_000, 50);
    const stream = readStream(`${h.url}/api/v1/discovery/${id}/stream`, await t.headers());
    const cancelled = await t.dc('DELETE', `/api/v1/discovery/${id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ session_id: id, status: 'cancelled', cancelled_at: expect.any(String), pages_crawled: expect.any(Number) });
    const count = h.site.requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.site.requests.length).toBeLessThanOrEqual(count + 1);
    const { events } = await stream;
    expect(events[events.length - 1]).toMatchObject({ event: 'completion', data: { status: 'cancelled' } });
    expect((await t.dc('DELETE', `/api/v1/discovery/${id}`)).status).toBe(409);
    expect((await t.dc('POST', `/api/v1/discovery/${id}/resume`)).status).toBe(409);
    expect((await progress(id)).status).toBe('cancelled');
    // Each page crawled before the cancel is reported once, when the crawler let the session go.
    const crawled = (await progress(id)).progress.pages_crawled;
    await eventually(async () => (await metered(id)) === crawled, 10_000, 100);
  });

  it('streams with keep-alives and a reconnect with Last-Event-ID misses nothing', async () => {
    const id = await t.start({ max_pages: 12, request_delay_ms: 250 });
    const headers = await t.headers();
    const first = await readStream(`${h.url}/api/v1/discovery/${id}/stream`, headers, (ev) => ev.length >= 3);
    const lastId = first.events[2]!.id;
    const rest = await readStream(`${h.url}/api/v1/discovery/${id}/stream`, { ...headers, 'last-event-id': lastId });
    const replay = await readStream(`${h.url}/api/v1/discovery/${id}/stream`, headers);
    const joined = [...first.events, ...rest.events];
    expect(joined.map((e) => e.id)).toEqual(replay.events.map((e) => e.id));
    expect(joined.filter((e) => e.event === 'page_discovered')).toHaveLength(12);
    expect(joined[joined.length - 1]!.event).toBe('completion');
    expect([...first.comments, ...rest.comments]).toContain(': keep-alive');
    expect(first.events[0]).toMatchObject({ event: 'page_discovered', data: { url: `${h.site.url}/`, depth: 0, status_code: 200 } });
  });

  it('takes over a session whose crawler died, and fails it with a reason after repeated deaths', async () => {
    // No crawler runs while the sessions are set up: a crawler that died holds an expired lease, one attempt so far.
    await h.stopCrawlers();
    const orphan = await t.start({ max_pages: 3 });
    await h.database.db.updateTable('sessions').set({ lease_owner: 'dead-crawler', lease_expires_at: sql<Date>`now() - interval '1 second'`, attempts: 1 }).where('id', '=', orphan).execute();
    const doomed = await t.start({ max_pages: 3 });
    await h.database.db.updateTable('sessions').set({ lease_owner: 'dead-crawler', lease_expires_at: sql<Date>`now() - interval '1 second'`, attempts: 3 }).where('id', '=', doomed).execute();
    h.startCrawler();
    const done = await t.waitFor(orphan, 'completed');
    const pages = (await t.dc('GET', `/api/v1/discovery/${orphan}/results`)).body.pages;
    expect(pages.map((p: any) => [p.depth, p.status_code])).toEqual([[0, 200], [1, 200], [1, 200]]);
    expect(done.progress.pages_crawled).toBe(3);
    const failed = await t.waitFor(doomed, 'failed');
    expect(failed.error).toMatch(/stopped 3 times/);
    const { events } = await readStream(`${h.url}/api/v1/discovery/${doomed}/stream`, await t.headers());
    expect(events[events.length - 1]).toMatchObject({ event: 'completion', data: { status: 'failed' } });
  });
});
