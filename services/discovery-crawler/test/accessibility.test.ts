import { contractValidator } from '@assay/contracts';
import { startShop, type Shop } from '../../../tests/fixtures/shop/server.js';
import { startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

// Issue 27: discovery with `accessibility: true` scans each crawled page with the axe scan of
// assert_accessible and lists the violations per page; without it, no page is scanned.
jest.setTimeout(180_000);

let h: DiscoveryHarness;
let t: Tenant;
let shop: Shop;
beforeAll(async () => {
  [h, shop] = await Promise.all([startDiscoveryHarness(), startShop()]);
  t = await h.tenant();
});
afterAll(async () => {
  await h?.close();
  await shop?.close();
});

async function crawl(body: Record<string, unknown>) {
  const id = await t.start({ target_url: `${shop.url}/newsletter`, max_depth: 1, include_patterns: ['/newsletter', '/about'], ...body });
  await t.waitFor(id, 'completed', 150_000);
  return (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body;
}

describe('discovery with accessibility: true', () => {
  it('lists each crawled page’s WCAG 2 A/AA violations, rule, impact, help URL and nodes', async () => {
    const results = await crawl({ accessibility: true });
    expect(contractValidator().validate('DiscoveryResults', results)).toEqual([]);
    const page = results.pages.find((p: { url: string }) => p.url.endsWith('/newsletter'));
    const rules = page.accessibility.violations.map((v: { rule: string; impact: string; nodes: string[] }) => [v.rule, v.impact, v.nodes]);
    expect(rules).toEqual(expect.arrayContaining([['label', 'critical', ['#newsletter-email']], ['color-contrast', 'serious', ['#newsletter-note']]]));
    expect(page.accessibility.violations[0].help_url).toMatch(/^https:\/\/dequeuniversity\.com\/rules\/axe\//);
    // Every HTML page crawled was scanned.
    expect(results.pages.filter((p: { content_type: string }) => p.content_type.startsWith('text/html')).every((p: { accessibility?: unknown }) => p.accessibility)).toBe(true);
  });

  it('scans nothing without it', async () => {
    const results = await crawl({ max_depth: 0 });
    expect(results.pages.map((p: { accessibility?: unknown }) => p.accessibility)).toEqual([undefined]);
  });
});
