import { STEP_ACTIONS, type Step } from '@assay/contracts';
import { locatorFor, PLAYWRIGHT_ACTIONS, quote, specFilename, toPlaywrightSpec } from './playwright.js';

const step = (s: Omit<Step, 'step_id'>): Step => ({ step_id: 'x', ...s });
const spec = (steps: Array<Omit<Step, 'step_id'>>, extra: Partial<Parameters<typeof toPlaywrightSpec>[0]> = {}) =>
  toPlaywrightSpec({ title: 'Shop', baseUrl: 'http://shop.test', source: 'test plan "Shop"', projectName: 'Shop', describe: false, cases: [{ name: 'Case', steps: steps.map(step) }], ...extra });

describe('Playwright export', () => {
  it('has one entry for each of the step actions', () => {
    expect(Object.keys(PLAYWRIGHT_ACTIONS).sort()).toEqual(Object.keys(STEP_ACTIONS).sort());
  });

  it('uses test id, placeholder, label, alt, title, role and text locators where the selector says exactly that', () => {
    expect(locatorFor('[data-testid="cart-item-1"]')).toBe("page.getByTestId('cart-item-1').first()");
    expect(locatorFor("[data-testid='x']")).toBe("page.getByTestId('x').first()");
    expect(locatorFor('data-testid=buy')).toBe("page.getByTestId('buy').first()");
    expect(locatorFor('[placeholder="Search"]')).toBe("page.getByPlaceholder('Search', { exact: true }).first()");
    expect(locatorFor('[aria-label="Close dialog"]')).toBe("page.getByLabel('Close dialog', { exact: true }).first()");
    expect(locatorFor('[alt="Logo"]')).toBe("page.getByAltText('Logo', { exact: true }).first()");
    expect(locatorFor('[title="Help"]')).toBe("page.getByTitle('Help', { exact: true }).first()");
    expect(locatorFor('role=button[name="Sign in"]')).toBe("page.getByRole('button', { name: 'Sign in' }).first()");
    expect(locatorFor('role=link[name="Home"s]')).toBe("page.getByRole('link', { name: 'Home', exact: true }).first()");
    expect(locatorFor('text="Add to cart"')).toBe("page.getByText('Add to cart', { exact: true }).first()");
    expect(locatorFor('text=Welcome')).toBe("page.getByText('Welcome').first()");
  });

  it('keeps every other selector as a CSS locator, escaped', () => {
    expect(locatorFor('#q')).toBe("page.locator('#q').first()");
    expect(locatorFor('input[name=q]')).toBe("page.locator('input[name=q]').first()");
    expect(locatorFor("a[href='/x']")).toBe("page.locator('a[href=\\'/x\\']').first()");
    // A tag or another attribute narrows the element: no semantic locator says that.
    expect(locatorFor('button[data-testid="buy"]')).toBe('page.locator(\'button[data-testid="buy"]\').first()');
    expect(locatorFor('[data-testid="a\\"b"]')).toBe('page.locator(\'[data-testid="a\\\\"b"]\').first()');
  });

  it('writes each action as the runner performs it', () => {
    const text = spec([
      { action: 'navigate', value: '/products' },
      { action: 'fill', selector: '#q', value: 'shoes' },
      { action: 'type', selector: '#q', value: 'hat' },
      { action: 'select', selector: '#country', value: 'Germany' },
      { action: 'check', selector: '#terms' },
      { action: 'uncheck', selector: '#terms' },
      { action: 'hover', selector: '#menu' },
      { action: 'click', selector: '#buy' },
      { action: 'wait', selector: '#late', timeout: 3000 },
      { action: 'assert_visible', selector: '#title' },
      { action: 'assert_text', selector: '#total', value: 'Total:\n  $20' },
      { action: 'assert_value', selector: '#q', value: 'hat' },
      { action: 'screenshot' },
      { action: 'screenshot', selector: '#cart', description: 'the cart' },
    ]);
    expect(text).toContain("await open(page, '/products');");
    expect(text).toContain("await page.locator('#q').first().fill('shoes');");
    expect(text).toContain("await page.locator('#q').first().fill('');\n  await page.locator('#q').first().pressSequentially('hat', { delay: 10 });");
    expect(text).toContain("selectOption([{ value: 'Germany' }, { label: 'Germany' }]);");
    expect(text).toContain("await page.locator('#terms').first().check();");
    expect(text).toContain("await page.locator('#terms').first().uncheck();");
    expect(text).toContain("await page.locator('#menu').first().hover();");
    expect(text).toContain("await expect(page.locator('#late').first()).toBeVisible({ timeout: 3000 });");
    expect(text).toContain("await expect(page.locator('#title').first()).toBeVisible();");
    expect(text).toContain("await expect(page.locator('#total').first()).toContainText('Total: $20', { useInnerText: true });");
    expect(text).toContain("await expect(page.locator('#q').first()).toHaveValue('hat');");
    expect(text).toContain("await test.info().attach('screenshot', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });");
    expect(text).toContain("// the cart\n  await test.info().attach('the cart', { body: await page.locator('#cart').first().screenshot(), contentType: 'image/png' });");
    expect(text).toContain("const BASE_URL = process.env.BASE_URL ?? 'http://shop.test';");
    expect(text).toContain('async function open(page: Page, path: string)');
  });

  it('writes the newer actions with the helpers they need, and only those', () => {
    const text = spec([
      { action: 'dblclick', selector: '#cell' },
      { action: 'press', selector: '#q', value: 'Enter' },
      { action: 'press', value: 'Escape' },
      { action: 'assert_hidden', selector: '.spinner' },
      { action: 'assert_count', selector: 'li.item', value: '3' },
      { action: 'assert_attribute', selector: '#buy', value: 'class~=primary' },
      { action: 'assert_url', value: '/\\/orders\\/\\d+$/' },
      { action: 'go_back' },
      { action: 'go_forward' },
      { action: 'reload' },
      { action: 'upload', selector: 'input[type=file]', value: '0b8f4c1e-3c57-4f0e-9a77-7f4d2f1b6c20' },
      { action: 'drag', selector: '#card', value: '[data-testid="done"]' },
      { action: 'assert_text', selector: '#code', value: '/^A-\\d{4}$/' },
      { action: 'assert_text', selector: '#empty', value: '' },
    ]);
    expect(text).toContain("await page.locator('#cell').first().dblclick();");
    expect(text).toContain("await page.locator('#q').first().press('Enter');");
    expect(text).toContain("await page.keyboard.press('Escape');");
    expect(text).toContain("await expect(page.locator('.spinner').filter({ visible: true })).toHaveCount(0);");
    expect(text).toContain("await expect(page.locator('li.item')).toHaveCount(Number('3'));");
    expect(text).toContain("await expectAttribute(page.locator('#buy').first(), 'class~=primary');");
    expect(text).toContain('await expect(page).toHaveURL(pattern(');
    expect(text).toContain('expect((await page.goBack())?.status() ?? 200).toBeLessThan(400);');
    expect(text).toContain('expect((await page.goForward())?.status() ?? 200).toBeLessThan(400);');
    expect(text).toContain('expect((await page.reload())?.status() ?? 200).toBeLessThan(400);');
    expect(text).toContain("await page.locator('input[type=file]').first().setInputFiles(upload('0b8f4c1e-3c57-4f0e-9a77-7f4d2f1b6c20'));");
    expect(text).toContain("await page.locator('#card').first().dragTo(page.getByTestId('done').first());");
    expect(text).toContain("toHaveText(pattern('/^A-\\\\d{4}$/'), { useInnerText: true });");
    expect(text).toContain("await expect(page.locator('#empty').first()).toHaveText('', { useInnerText: true });");
    for (const helper of ['function pattern(', 'async function expectAttribute(', 'function upload(']) expect(text).toContain(helper);
    expect(text).toMatch(/import \{[^}]*type Locator[^}]*\} from '@playwright\/test';/);
    const plain = spec([{ action: 'dblclick', selector: '#cell' }]);
    for (const helper of ['function pattern(', 'function expectAttribute(', 'function upload(', 'type Locator']) expect(plain).not.toContain(helper);
  });

  it('reads {{variables}} from ASSAY_VAR_ environment variables', () => {
    const text = spec([{ action: 'fill', selector: '#email', value: '{{user}}@{{ domain }}' }]);
    expect(text).toContain("fill(`${variable('user')}@${variable('domain')}`);");
    expect(text).toContain('function variable(name: string): string');
    expect(spec([{ action: 'click', selector: '#x' }])).not.toContain('function variable');
  });

  it('escapes names and values that would break the file, and makes repeated names unique', () => {
    const text = toPlaywrightSpec({
      title: "It's a plan",
      baseUrl: 'http://shop.test',
      source: 'test plan',
      projectName: 'P',
      describe: true,
      cases: [
        { name: "Bob's `test` ${x}", steps: [step({ action: 'assert_text', selector: '#x', value: "it's\\here" })] },
        { name: 'Same', tags: ['smoke', 'two words'], steps: [step({ action: 'click', selector: '#a' })] },
        { name: 'Same', description: 'line one\nline two', steps: [step({ action: 'click', selector: '#b' })] },
      ],
    });
    expect(text).toContain("test.describe('It\\'s a plan', () => {");
    expect(text).toContain("test('Bob\\'s `test` ${x}', async ({ page }) => {");
    expect(text).toContain("toContainText('it\\'s\\\\here'");
    expect(text).toContain("test('Same', { tag: ['@smoke', '@two-words'] }, async");
    expect(text).toContain("  // line one\n  // line two\n  test('Same (2)', async");
    expect(text).not.toContain('type Page'); // no navigate: no helper
  });

  it('keeps names and descriptions with line separators inside comments and strings', () => {
    const text = toPlaywrightSpec({
      title: 'Plan\u2028process.exit(1)',
      baseUrl: 'http://shop.test',
      source: 'test plan "x\u2029require(1)"',
      projectName: 'P\u2028globalThis.pwned = 1',
      describe: true,
      cases: [{ name: 'C\u2028x()', description: 'd\u2029y()', steps: [step({ action: 'click', selector: '#a', description: 'one\u2028two()' })] }],
    });
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toContain('// globalThis.pwned = 1');
    expect(text).toContain('  // y()');
    expect(text).toContain('    // two()');
    expect(text).toContain("test.describe('Plan\\u2028process.exit(1)'");
  });

  it('quotes line separators and names files from titles', () => {
    expect(quote('a\u2028b\nc')).toBe("'a\\u2028b\\nc'");
    expect(specFilename('Checkout — Café flow!')).toBe('checkout-cafe-flow.spec.ts');
    expect(specFilename('???')).toBe('assay.spec.ts');
    expect(specFilename('Plan', '.json')).toBe('plan.json');
  });
});
