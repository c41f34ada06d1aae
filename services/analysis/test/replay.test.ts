import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { createSilentLogger } from '@assay/logger';
import { captureFailureEvidence, type Step } from '@assay/steps';
import type { Fingerprint } from '../src/relocation/fingerprint.js';
import { replay, type ReplayOptions } from '../src/verify/replay.js';
import { Verifier } from '../src/verify/verifier.js';
import { startConnectionTrap, type ConnectionTrap } from '@assay/testing';

jest.setTimeout(60_000);

// The verification re-run replays through the runner's step engine (@assay/steps): every action, its grammars and its wording.
const PAGE = `<!doctype html><title>Todos</title>
<input id="q"><p id="said"></p>
<ul><li>a</li><li>b</li><li>c</li></ul>
<a id="tab" class="filter selected" href="/two">two</a>
<div id="gone" style="display:none">hidden</div>
<span id="cell">cell</span><span id="empty"></span>
<div id="card" draggable="true">card</div><div id="done" style="width:80px;height:80px">done</div>
<input id="file" type="file">
<script>
  q.addEventListener('keydown', (e) => { if (e.key === 'Enter') said.textContent = 'entered ' + q.value; });
  cell.addEventListener('dblclick', () => { cell.textContent = 'editing'; });
  card.addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', 'card'));
  done.addEventListener('dragover', (e) => e.preventDefault());
  done.addEventListener('drop', (e) => { e.preventDefault(); done.textContent = 'dropped ' + e.dataTransfer.getData('text/plain'); });
</script>`;

// 127.0.0.2 stands in for a forbidden network (EGRESS_DENY_CIDRS), as in the runner's egress tests; a trap there counts every connection it gets.
let server: Server;
let base: string;
let trap: ConnectionTrap;
let pool: BrowserPool;
let context: BrowserContext;

beforeAll(async () => {
  trap = await startConnectionTrap();
  server = createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: `http://127.0.0.2:${trap.port}/latest/meta-data/` }).end();
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/two' ? '<!doctype html><title>Two</title><h1>two</h1>' : PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const policy = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true, denyCidrs: ['127.0.0.2/32'] });
  pool = new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, createSilentLogger(), policy);
});

afterAll(async () => {
  await pool?.close();
  await new Promise((r) => server?.close(r));
  await trap?.close();
});

beforeEach(async () => {
  context = (await pool.newContext()).context;
});
afterEach(() => context.close());

const options = (): ReplayOptions => ({ baseUrl: base, variables: {}, stepTimeoutMs: 1500, navigationTimeoutMs: 10_000 });
let n = 0;
const steps = (list: Array<Omit<Step, 'step_id'>>): Step[] => list.map((s) => ({ step_id: `s${++n}`, ...s }));

describe('verification replay', () => {
  it('passes a test that uses every newer action the way the runner runs them', async () => {
    const page = await context.newPage();
    const result = await replay(
      page,
      steps([
        { action: 'navigate', value: '/' },
        { action: 'fill', selector: '#q', value: 'milk' },
        { action: 'press', selector: '#q', value: 'Enter' },
        { action: 'assert_text', selector: '#said', value: 'entered milk' },
        { action: 'press', value: 'Tab' },
        { action: 'dblclick', selector: '#cell' },
        { action: 'assert_text', selector: '#cell', value: '/^edit/' },
        { action: 'assert_text', selector: '#empty', value: '' },
        { action: 'assert_hidden', selector: '#gone' },
        { action: 'assert_count', selector: 'li', value: '3' },
        { action: 'assert_attribute', selector: '#tab', value: 'class~=selected' },
        { action: 'drag', selector: '#card', value: '#done' },
        { action: 'assert_text', selector: '#done', value: 'dropped card' },
        { action: 'click', selector: '#tab' },
        { action: 'assert_url', value: '/two' },
        { action: 'go_back' },
        { action: 'assert_url', value: '/\\/$/' },
        { action: 'go_forward' },
        { action: 'reload' },
        { action: 'assert_text', selector: 'h1', value: 'two' },
      ]),
      options(),
    );
    expect(result).toEqual({ status: 'passed', steps: 20 });
  });

  it('fails on the step that does not hold, with the runner’s message', async () => {
    const page = await context.newPage();
    const counted = steps([
      { action: 'navigate', value: '/' },
      { action: 'assert_count', selector: 'li', value: '2' },
    ]);
    expect(await replay(page, counted, options())).toEqual({ status: 'failed', step: 2, step_id: counted[1]!.step_id, error: 'Expected 2 elements matching "li", found 3' });
    const shown = steps([{ action: 'assert_hidden', selector: '#cell' }]);
    expect(await replay(page, shown, options())).toMatchObject({ status: 'failed', error: 'Expected #cell to be hidden, but it is visible (waited 1500 ms)' });
    const attr = steps([{ action: 'assert_attribute', selector: '#tab', value: 'class~=active' }]);
    expect(await replay(page, attr, options())).toMatchObject({ status: 'failed', error: 'Expected attribute "class" of #tab to contain "active", but found "filter selected"' });
    expect(await replay(await context.newPage(), steps([{ action: 'go_back' }]), options())).toMatchObject({ status: 'failed', error: 'Cannot go back from about:blank: the tab has no earlier page' });
  });

  it('calls an upload step, whose file only the runner has, inconclusive rather than failed', async () => {
    const page = await context.newPage();
    const result = await replay(page, steps([{ action: 'navigate', value: '/' }, { action: 'upload', selector: '#file', value: '0b8f4c1e-3c57-4f0e-9a77-7f4d2f1b6c20' }]), options());
    expect(result).toEqual({ status: 'inconclusive', step: 2, reason: 'An upload step cannot run here: its file is one of the run’s uploads, which only the runner reads' });
  });

  it('calls an action the engine does not know inconclusive, without running the steps after it', async () => {
    const page = await context.newPage();
    const unknown = [...steps([{ action: 'navigate', value: '/' }]), { step_id: 'x', action: 'teleport' } as unknown as Step, ...steps([{ action: 'click', selector: '#nowhere' }])];
    expect(await replay(page, unknown, options())).toEqual({ status: 'inconclusive', step: 2, reason: 'the replayer does not know the action "teleport"' });
  });
});

// What the verifier gained by replaying through the engine: before, it waited out a bad selector, let the browser try a refused address and called a refused redirect a plain failed load.
describe('a verification re-run, as the runner runs steps', () => {
  const verifier = () => new Verifier(pool, { stepTimeoutMs: 5000, navigationTimeoutMs: 10_000 });

  it('fails a step with a selector Playwright cannot parse at once, as "Invalid selector"', async () => {
    const t0 = Date.now();
    const result = await verifier().rerun(steps([{ action: 'navigate', value: '/' }, { action: 'click', selector: 'li[' }]), base, {});
    expect(result).toEqual({ status: 'failed', reason: 'step 2 failed', failed_step: 2, error: 'Invalid selector: li[' });
    // Not after the 5 s step timeout, as a missing element would.
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('refuses a navigation the egress policy denies before the browser tries it, with the reason', async () => {
    const hits = trap.hits;
    const url = `http://127.0.0.2:${trap.port}/latest/meta-data/`;
    const result = await verifier().rerun(steps([{ action: 'navigate', value: url }, { action: 'assert_text', selector: 'body', value: 'ami-id' }]), base, {});
    expect(result).toEqual({ status: 'failed', reason: 'step 1 failed', failed_step: 1, error: `Navigation to ${url} blocked by the egress policy (127.0.0.2 is in EGRESS_DENY_CIDRS)` });
    expect(trap.hits).toBe(hits);
  });

  it('names the egress proxy’s refusal when a redirect leads to a denied address', async () => {
    const hits = trap.hits;
    const result = await verifier().rerun(steps([{ action: 'navigate', value: '/redirect' }]), base, {});
    expect(result).toEqual({
      status: 'failed',
      reason: 'step 1 failed',
      failed_step: 1,
      error: `Navigation to ${base}/redirect blocked by the egress policy (127.0.0.2:${trap.port}: 127.0.0.2 is in EGRESS_DENY_CIDRS)`,
    });
    expect(trap.hits).toBe(hits);
  });

  it('re-runs a flow on a real third-party app (TodoMVC from npm): green as written, failed with the runner’s messages when a selector is stale or invalid', async () => {
    // The `todomvc` package: TodoMVC's reference apps with their own express server, started here on loopback.
    const todomvc = createRequire(import.meta.url)('todomvc') as { listen(port: number, host: string, cb: () => void): Server };
    const app = await new Promise<Server>((resolve) => {
      const s = todomvc.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const appBase = `http://127.0.0.1:${(app.address() as AddressInfo).port}/examples/vanillajs`;
      const flow = (toggle: string) =>
        steps([
          { action: 'navigate', value: '/index.html' },
          { action: 'fill', selector: '#new-todo', value: 'milk' },
          { action: 'press', selector: '#new-todo', value: 'Enter' },
          { action: 'fill', selector: '#new-todo', value: 'bread' },
          { action: 'press', selector: '#new-todo', value: 'Enter' },
          { action: 'assert_count', selector: '#todo-list li', value: '2' },
          { action: 'check', selector: toggle },
          { action: 'assert_text', selector: '#todo-count', value: '1 item left' },
          { action: 'click', selector: 'a[href="#/completed"]' },
          { action: 'assert_url', value: '#/completed' },
          { action: 'assert_attribute', selector: '#todo-list li', value: 'class~=completed' },
        ]);
      const fast = new Verifier(pool, { stepTimeoutMs: 1500, navigationTimeoutMs: 10_000 });
      expect(await verifier().rerun(flow('#todo-list li:first-child .toggle'), appBase, {})).toEqual({ status: 'passed', reason: 'all 11 steps passed' });
      expect(await fast.rerun(flow('#todo-list li .toggle-old'), appBase, {})).toEqual({
        status: 'failed',
        reason: 'step 7 failed',
        failed_step: 7,
        error: 'Element not found: #todo-list li .toggle-old (waited 1500 ms)',
      });
      expect(await fast.rerun(flow('#todo-list li:first( .toggle'), appBase, {})).toMatchObject({ status: 'failed', failed_step: 7, error: 'Invalid selector: #todo-list li:first( .toggle' });
    } finally {
      await new Promise((r) => app.close(r));
    }
  });

  it('passes a re-run whose steps hold, through the same egress proxy', async () => {
    const result = await verifier().rerun(steps([{ action: 'navigate', value: '/' }, { action: 'click', selector: '#tab' }, { action: 'assert_text', selector: 'h1', value: 'two' }]), base, {});
    expect(result).toEqual({ status: 'passed', reason: 'all 3 steps passed' });
  });
});

// The snapshot is the live page's HTML parsed again: the parser can put a node elsewhere than the live DOM had it.
describe('the snapshot check', () => {
  const verifier = () => new Verifier(pool, { stepTimeoutMs: 5000, navigationTimeoutMs: 10_000 });
  // A script appends a row's button to the table itself: the live DOM has table > button, a parser fosters it out before the table.
  const LIVE = `<!doctype html><title>Rows</title><p>Rows</p>
<table id="rows"><tr><td>Alpha</td></tr></table><button>Other</button>
<script>const b = document.createElement('button'); b.textContent = 'Save row'; document.getElementById('rows').appendChild(b);</script>`;

  it('finds the element a re-parse of the page moved (a table fix-up) by its identity, and its selector picks it alone', async () => {
    const page = await context.newPage();
    await page.setContent(LIVE);
    const { candidates } = await captureFailureEvidence(page, undefined);
    const save = candidates.find((c) => c.text === 'Save row')!;
    expect(save.xpath).toBe('/html[1]/body[1]/table[1]/button[1]');
    const html = await page.content();
    const check = await verifier().checkSnapshot(html, save as unknown as Fingerprint, 'click');
    expect(check).toMatchObject({ status: 'passed', selector: 'role=button[name="Save row"]' });
    // The other button, where the parser left it, is still found at its place.
    const other = candidates.find((c) => c.text === 'Other')!;
    expect(await verifier().checkSnapshot(html, other as unknown as Fingerprint, 'click')).toMatchObject({ status: 'passed' });
  });

  it('does not take another node of the tag at the old place, nor one of several alike', async () => {
    const page = await context.newPage();
    await page.setContent(LIVE);
    const { candidates } = await captureFailureEvidence(page, undefined);
    const save = candidates.find((c) => c.text === 'Save row')!;
    // Gone from the snapshot: a button with other words sits where the path now leads.
    const gone = `<!doctype html><table id="rows"><tr><td>Alpha</td></tr><tr><td><button>Delete row</button></td></tr></table>`;
    expect(await verifier().checkSnapshot(gone, { ...save, xpath: '/html[1]/body[1]/table[1]/tbody[1]/tr[2]/td[1]/button[1]' } as unknown as Fingerprint, 'click')).toMatchObject({ status: 'failed' });
    // Two of them after the re-parse: no guess.
    const twice = `<!doctype html><button>Save row</button><button>Save row</button><table id="rows"><tr><td>Alpha</td></tr></table>`;
    expect(await verifier().checkSnapshot(twice, save as unknown as Fingerprint, 'click')).toMatchObject({ status: 'failed' });
  });

  it('finds an element whose shown text differs from its source text (CSS upper case, blocks on lines of their own)', async () => {
    const page = await context.newPage();
    await page.setContent(`<!doctype html><style>.up { text-transform: uppercase } .b { display: block }</style>
<main><button class="up">Save draft</button><a href="/p"><span class="b">Price</span><span class="b">list</span></a><button>Cancel</button></main>`);
    const { candidates } = await captureFailureEvidence(page, undefined);
    const html = await page.content();
    const save = candidates.find((c) => c.tag === 'button' && /save/i.test(c.text ?? ''))!;
    expect(save.text).toBe('SAVE DRAFT');
    expect(await verifier().checkSnapshot(html, save as unknown as Fingerprint, 'click')).toMatchObject({ status: 'passed' });
    const link = candidates.find((c) => c.tag === 'a')!;
    expect(link.text).toBe('Price list');
    expect(await verifier().checkSnapshot(html, link as unknown as Fingerprint, 'click')).toMatchObject({ status: 'passed' });
  });

  it('hangs an element with nothing unique of its own from an attribute around it, before a positional path', async () => {
    const page = await context.newPage();
    // A data grid's column headers, each with the same nameless menu button: only the column's field tells them apart.
    await page.setContent(`<!doctype html><div class="grid" tabindex="0"><div class="head">
<div class="col" role="columnheader" data-field="title" aria-sort="none"><span>Title</span><span class="menu-button">⋮</span></div>
<div class="col" role="columnheader" data-field="price" aria-sort="none"><span>Price</span><span class="menu-button">⋮</span></div>
</div></div>`);
    const { candidates } = await captureFailureEvidence(page, undefined);
    const price = candidates.filter((c) => c.tag === 'span' && (c.classes ?? []).includes('menu-button'))[1]!;
    const check = await verifier().checkSnapshot(await page.content(), price as unknown as Fingerprint, 'click');
    // Not the element's path (/html/body/div/div/div[2]/span[2]), nor a state attribute (aria-sort, tabindex).
    expect(check).toMatchObject({ status: 'passed', selector: 'div[data-field="price"] span.menu-button' });
  });

  it('takes the live reading of visibility where the snapshot hides what a stylesheet showed, and picks the role selector among hidden nodes', async () => {
    const page = await context.newPage();
    // The page hides its UI until its stylesheet applies (here a constructed sheet, which page.content() does not
    // serialise, as a linked sheet the snapshot cannot load).
    await page.setContent(`<!doctype html><div class="ui" style="visibility: hidden"><div role="menubar"><button role="menuitem">Edit</button><button role="menuitem">Help</button></div></div>
<script>const s = new CSSStyleSheet(); s.replaceSync('.ui { visibility: visible !important }'); document.adoptedStyleSheets = [s];</script>`);
    const { candidates } = await captureFailureEvidence(page, undefined);
    const edit = candidates.find((c) => c.role === 'menuitem' && c.text === 'Edit')!;
    expect(edit.visible).toBe(true);
    const html = await page.content();
    expect(await verifier().checkSnapshot(html, edit as unknown as Fingerprint, 'click')).toMatchObject({ status: 'passed', selector: 'role=menuitem[name="Edit"]' });
    // A node the live page did not show stays refused.
    expect(await verifier().checkSnapshot(html, { ...edit, visible: false } as unknown as Fingerprint, 'click')).toMatchObject({ status: 'failed', reason: 'the element is not visible in the snapshot' });
  });
});
