import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '@assay/browser';
import { replay, type ReplayOptions } from '../src/verify/replay.js';

// The verification re-run replays every step action the runner knows, with the runner's grammars.
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

let server: Server;
let base: string;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(req.url === '/two' ? '<!doctype html><title>Two</title><h1>two</h1>' : PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

beforeEach(async () => {
  context = await browser.newContext();
});
afterEach(() => context.close());

const options = (): ReplayOptions => ({ baseUrl: base, variables: {}, stepTimeoutMs: 1500, navigationTimeoutMs: 10_000 });
let n = 0;
const steps = (list: Array<{ action: string; selector?: string; value?: string }>) => list.map((s) => ({ step_id: `s${++n}`, ...s }));

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

  it('fails on the step that does not hold, with the runner’s kind of message', async () => {
    const page = await context.newPage();
    const counted = steps([
      { action: 'navigate', value: '/' },
      { action: 'assert_count', selector: 'li', value: '2' },
    ]);
    expect(await replay(page, counted, options())).toEqual({ status: 'failed', step: 2, step_id: counted[1]!.step_id, error: 'Expected 2 elements matching "li", found 3' });
    const shown = steps([{ action: 'assert_hidden', selector: '#cell' }]);
    expect(await replay(page, shown, options())).toMatchObject({ status: 'failed', error: 'Expected #cell to be hidden' });
    const attr = steps([{ action: 'assert_attribute', selector: '#tab', value: 'class~=active' }]);
    expect(await replay(page, attr, options())).toMatchObject({ status: 'failed', error: expect.stringContaining('Expected attribute "class" of #tab to match class~=active, but found "filter selected"') });
    expect(await replay(await context.newPage(), steps([{ action: 'go_back' }]), options())).toMatchObject({ status: 'failed', error: expect.stringContaining('Cannot go back') });
  });

  it('calls an upload step, whose file only the runner has, inconclusive rather than failed', async () => {
    const page = await context.newPage();
    const result = await replay(page, steps([{ action: 'navigate', value: '/' }, { action: 'upload', selector: '#file', value: '0b8f4c1e-3c57-4f0e-9a77-7f4d2f1b6c20' }]), options());
    expect(result).toEqual({ status: 'inconclusive', step: 2, reason: 'an upload step cannot be replayed outside the runner' });
  });
});
