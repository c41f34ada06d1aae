import { ImportFileError, parseImportFile } from './import.parser.js';
import { toSelector } from './import.side.js';

const cmd = (command: string, target = '', value = '', targets: string[][] = []) => ({ id: `c-${command}`, comment: '', command, target, targets, value });

/** A project as Selenium IDE 3 saves it. */
const SIDE_PROJECT = {
  id: '8f6f3a2e-1b7c-4a8e-9d0f-2f4b6a1c9e11',
  version: '2.0',
  name: 'Shop',
  url: 'http://127.0.0.1:3000',
  tests: [
    {
      id: 't1',
      name: 'Search finds shoes',
      commands: [
        cmd('open', '/products'),
        cmd('setWindowSize', '1280x800'),
        cmd('click', 'id=q', '', [['id=q', 'id'], ['name=q', 'name'], ['css=#q', 'css:finder'], ["xpath=//input[@id='q']", 'xpath:attributes']]),
        cmd('type', 'id=q', 'shoes'),
        cmd('click', 'css=#search-button'),
        cmd('waitForElementVisible', 'css=ul#product-list[data-loaded="true"]', '5000'),
        cmd('assertText', 'xpath=//ul[@id="product-list"]', 'Red Shoes'),
        cmd('//click', 'id=disabled-in-the-ide'),
      ],
    },
    {
      id: 't2',
      name: 'Checkout form',
      commands: [
        cmd('open', 'http://127.0.0.1:3000/checkout'),
        cmd('select', 'id=country', 'label=Germany'),
        cmd('check', 'name=terms'),
        cmd('mouseOver', 'linkText=Home'),
        cmd('assertValue', 'id=name', 'Jane'),
        cmd('verifyElementPresent', 'partialLinkText=Check'),
        cmd('sendKeys', 'id=address', 'Main St'),
      ],
    },
    {
      id: 't3',
      name: 'Uses commands with no action',
      commands: [cmd('open', '/'), cmd('runScript', 'window.scrollTo(0,0)'), cmd('sendKeys', 'id=q', 'a${KEY_ENTER}'), cmd('storeText', 'id=x', 'v'), cmd('click', 'dom=document.forms[0]')],
    },
  ],
  suites: [{ id: 's1', name: 'Default Suite', persistSession: false, parallel: false, timeout: 300, tests: ['t1', 't2', 't3'] }],
  urls: ['http://127.0.0.1:3000/'],
  plugins: [],
};

const parseSide = (value: unknown, filename = 'shop.side') => parseImportFile(Buffer.from(JSON.stringify(value)), { filename });

describe('Selenium IDE (.side) import', () => {
  it('maps commands and locators to steps, skipping recorder bookkeeping and disabled commands', () => {
    const parsed = parseSide(SIDE_PROJECT);
    expect(parsed.format).toBe('side');
    expect(parsed.rows[0]).toEqual({
      ok: true,
      candidate: {
        row: 1,
        name: 'Search finds shoes',
        steps: [
          { action: 'navigate', value: '/products' },
          { action: 'click', selector: '#q' },
          { action: 'fill', selector: '#q', value: 'shoes' },
          { action: 'click', selector: '#search-button' },
          { action: 'wait', selector: 'ul#product-list[data-loaded="true"]', timeout: 5000 },
          { action: 'assert_text', selector: 'xpath=//ul[@id="product-list"]', value: 'Red Shoes' },
        ],
      },
    });
    expect(parsed.rows[1]).toEqual({
      ok: true,
      candidate: {
        row: 2,
        name: 'Checkout form',
        steps: [
          { action: 'navigate', value: 'http://127.0.0.1:3000/checkout' },
          { action: 'select', selector: '#country', value: 'Germany' },
          { action: 'check', selector: '[name="terms"]' },
          { action: 'hover', selector: 'xpath=//a[normalize-space(.)="Home"]' },
          { action: 'assert_value', selector: '#name', value: 'Jane' },
          { action: 'assert_visible', selector: 'xpath=//a[contains(normalize-space(.), "Check")]' },
          { action: 'type', selector: '#address', value: 'Main St' },
        ],
      },
    });
  });

  it('reports every command with no action on its row and does not import that test', () => {
    const row = parseSide(SIDE_PROJECT).rows[2]!;
    expect(row.ok).toBe(false);
    expect(!row.ok && row.error).toBe(
      'row 3: command 2 "runScript" has no Assay action; command 3 "sendKeys" mixes text and special keys (a${KEY_ENTER}): split it into a "type" and a "press" step; command 4 "storeText" has no Assay action; and 1 more',
    );
  });

  it('maps key presses, double clicks, drag and drop and "not present" checks to their actions', () => {
    const rows = parseSide({
      ...SIDE_PROJECT,
      tests: [
        {
          name: 'New actions',
          commands: [
            cmd('sendKeys', 'id=q', '${KEY_ENTER}'),
            cmd('sendKeys', 'css=body', '${KEY_ESC}'),
            cmd('doubleClick', 'id=cell'),
            cmd('doubleClickAt', 'css=.row', '10,10'),
            cmd('dragAndDropToObject', 'id=card', 'css=.done'),
            cmd('assertElementNotPresent', 'id=spinner'),
            cmd('verifyElementNotPresent', 'css=.error'),
            cmd('assertNotVisible', 'id=modal'),
            cmd('waitForElementNotVisible', 'id=toast', '3000'),
            cmd('waitForElementNotPresent', 'id=overlay'),
          ],
        },
        { name: 'Unknown key', commands: [cmd('sendKeys', 'id=q', '${KEY_NOPE}')] },
        { name: 'Bad drop', commands: [cmd('dragAndDropToObject', 'id=card', 'dom=document.x')] },
      ],
    }).rows;
    expect(rows[0]).toEqual({
      ok: true,
      candidate: {
        row: 1,
        name: 'New actions',
        steps: [
          { action: 'press', selector: '#q', value: 'Enter' },
          { action: 'press', selector: 'body', value: 'Escape' },
          { action: 'dblclick', selector: '#cell' },
          { action: 'dblclick', selector: '.row' },
          { action: 'drag', selector: '#card', value: '.done' },
          { action: 'assert_hidden', selector: '#spinner' },
          { action: 'assert_hidden', selector: '.error' },
          { action: 'assert_hidden', selector: '#modal' },
          { action: 'assert_hidden', selector: '#toast' },
          { action: 'assert_hidden', selector: '#overlay' },
        ],
      },
    });
    expect(rows[1]).toMatchObject({ ok: false, error: expect.stringContaining('sends the key ${KEY_NOPE}, which has no name Assay knows') });
    expect(rows[2]).toMatchObject({ ok: false, error: expect.stringContaining('drops on a locator Assay cannot use (dom=document.x)') });
  });

  it('falls back to a recorded alternative when the target locator cannot be used', () => {
    const rows = parseSide({ ...SIDE_PROJECT, tests: [{ name: 'Alt', commands: [cmd('click', 'dom=document.x', '', [['dom=document.x', 'dom'], ['css=.buy', 'css:finder']])] }] }).rows;
    expect(rows[0]).toEqual({ ok: true, candidate: { row: 1, name: 'Alt', steps: [{ action: 'click', selector: '.buy' }] } });
  });

  it('names the command when a mapped step is invalid, and requires a name', () => {
    const rows = parseSide({ ...SIDE_PROJECT, tests: [{ name: '', commands: [cmd('open', '/'), cmd('sendKeys', 'id=q', '')] }] }).rows;
    expect(rows[0]).toEqual({ ok: false, row: 1, name: null, error: 'row 1: name is required; command 2 "sendKeys": value must not be empty for action "type"' });
  });

  it('detects a .side project sent with a .json name, and refuses a .side file that is not one', () => {
    expect(parseSide(SIDE_PROJECT, 'export.json').format).toBe('side');
    expect(() => parseSide([{ name: 'x', steps: [] }])).toThrow(ImportFileError);
    expect(() => parseSide({ tests: 'no' })).toThrow(/not a Selenium IDE project/);
  });

  it('turns each Selenium locator into a selector the runner accepts', () => {
    expect(toSelector('id=main')).toBe('#main');
    expect(toSelector('id=user.name')).toBe('[id="user.name"]');
    expect(toSelector('name=q')).toBe('[name="q"]');
    expect(toSelector('identifier=q')).toBe('[id="q"], [name="q"]');
    expect(toSelector('css=div > a')).toBe('div > a');
    expect(toSelector('xpath=//a[1]')).toBe('xpath=//a[1]');
    expect(toSelector('//button[@type="submit"]')).toBe('xpath=//button[@type="submit"]');
    expect(toSelector("linkText=Say \"hi\"")).toBe("xpath=//a[normalize-space(.)='Say \"hi\"']");
    expect(toSelector('linkText=both \' and "')).toBeUndefined();
    expect(toSelector('dom=document.body')).toBeUndefined();
    expect(toSelector('plain')).toBeUndefined();
  });
});
