import { AssayClient, ok } from '@assay/client';

/**
 * Test cases against the fixture shop that use all 13 actions and the
 * selector forms the Playwright export turns into semantic locators
 * (test id, role, placeholder-free CSS...). All pass on the shop.
 */
export const PASSING_CASES: Record<string, unknown[]> = {
  'Search finds shoes': [
    { action: 'navigate', value: '/products' },
    { action: 'fill', selector: '#q', value: 'shoes', description: 'Search for shoes' },
    { action: 'click', selector: '#search-button' },
    { action: 'wait', selector: 'ul#product-list[data-loaded="true"]', timeout: 5000 },
    { action: 'assert_text', selector: '#product-list', value: 'Red Shoes' },
    { action: 'assert_value', selector: '#q', value: 'shoes' },
    { action: 'screenshot' },
  ],
  'Profile form saves': [
    { action: 'navigate', value: '/form' },
    { action: 'type', selector: '#full-name', value: 'Jane Doe' },
    { action: 'select', selector: '#plan', value: 'Growth' },
    { action: 'check', selector: '#newsletter' },
    { action: 'uncheck', selector: '#newsletter' },
    { action: 'check', selector: '#newsletter' },
    { action: 'click', selector: '#save' },
    { action: 'assert_text', selector: '#saved', value: 'Saved: Jane Doe / growth / newsletter on' },
  ],
  'Menu opens on hover': [
    { action: 'navigate', value: '/menu' },
    { action: 'hover', selector: '#menu' },
    { action: 'assert_visible', selector: '#submenu-item' },
    { action: 'screenshot', selector: '#menu' },
  ],
  'Product page by test id and role': [
    { action: 'navigate', value: '/products' },
    { action: 'assert_visible', selector: '[data-testid="product-1"]' },
    { action: 'navigate', value: '/products/1' },
    { action: 'assert_text', selector: '#price', value: '$20.00' },
    { action: 'navigate', value: '/about' },
    { action: 'assert_visible', selector: 'role=link[name="Manual (PDF)"]' },
  ],
};

export const FAILING_CASE = {
  'Wrong price': [
    { action: 'navigate', value: '/products/1' },
    { action: 'assert_text', selector: '#price', value: '$99.00' },
  ],
};

/** A prod service key (Pro: 120 calls a minute) made with the bootstrap key, and a client with it. */
export async function clientFor(gatewayUrl: string, bootstrapKey: string): Promise<{ client: AssayClient; key: string }> {
  const bootstrap = new AssayClient({ baseUrl: gatewayUrl, apiKey: bootstrapKey });
  const created = ok(await bootstrap.api.POST('/api/service-keys', { body: { name: 'e2e clients', environment: 'prod' } }));
  return { client: new AssayClient({ baseUrl: gatewayUrl, apiKey: created.key }), key: created.key };
}

/** A project on `baseUrl` with one plan per entry of `plans`; returns their ids. */
export async function seed(client: AssayClient, baseUrl: string, plans: Record<string, Record<string, unknown[]>>) {
  const project = ok(await client.api.POST('/api/v1/projects', { body: { name: 'Shop', base_url: baseUrl } }));
  const planIds: Record<string, string> = {};
  for (const [planName, cases] of Object.entries(plans)) {
    const ids: string[] = [];
    for (const [name, steps] of Object.entries(cases)) {
      ids.push(ok(await client.api.POST('/api/v1/test-cases', { body: { project_id: project.id, name, steps: steps as never } })).id);
    }
    planIds[planName] = ok(await client.api.POST('/api/v1/test-plans', { body: { project_id: project.id, name: planName, test_case_ids: ids } })).id;
  }
  return { projectId: project.id, planIds };
}
