// Recorded cases of the healing bench: a person's session on the old version
// replayed through Assay's own recorder (POST /api/v1/recordings and its
// inputs, as the console's Record screen sends them), so every selector is
// the one the recorder chose. The script names each element by hand (for the
// old version only) to find where to click; the recorder reads the element
// at that point and names it with the shared selector ranking. A mirror page
// in the bench's own Chromium, same viewport, receives the same inputs so the
// points stay right as the page changes.
import type { launchChromium } from '@assay/browser';

type Browser = Awaited<ReturnType<typeof launchChromium>>;

export interface ScriptAction {
  /** click, a text assertion, a visibility assertion, or typing into the element (a click into it, then the text). */
  do: 'click' | 'assert_text' | 'assert_visible' | 'type';
  /** The element in the OLD version, as a Playwright selector written by hand. */
  target: string;
  text?: string;
}

export interface ScriptCase {
  name: string;
  /** The path the recording starts on. */
  start: string;
  actions: ScriptAction[];
}

export interface Api {
  (method: string, route: string, body?: unknown): Promise<{ status: number; body: any }>;
}

const VIEW = { width: 1280, height: 720 };
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Records one scripted case on the app as it is now (the old version) and
 * saves it as a test case of the project; answers its id, or why the
 * recorder refused an input (the case is then not made).
 */
export async function recordCase(api: Api, browser: Browser, project: string, baseUrl: string, script: ScriptCase): Promise<{ id?: string; refused?: string }> {
  const context = await browser.newContext({ viewport: VIEW });
  const page = await context.newPage();
  const rec = await api('POST', '/api/v1/recordings', { project_id: project, start_path: script.start });
  if (rec.status !== 201) {
    await context.close();
    return { refused: `the recording did not open: ${rec.status} ${JSON.stringify(rec.body).slice(0, 200)}` };
  }
  const id = rec.body.id as string;
  const input = async (body: Record<string, unknown>) => {
    const r = await api('POST', `/api/v1/recordings/${id}/input`, body);
    if (r.status >= 400) throw new Error(`${body.type} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    return r.body;
  };
  try {
    await page.goto(new URL(script.start, baseUrl).toString(), { waitUntil: 'load' });
    await settle(1500);
    for (const a of script.actions) {
      const target = page.locator(a.target).first();
      await target.waitFor({ state: 'visible', timeout: 10_000 });
      let box = await target.boundingBox();
      if (!box) throw new Error(`${a.target}: no box in the mirror`);
      if (box.y < 0 || box.y + box.height > VIEW.height) {
        const delta = Math.round(box.y - 200);
        await input({ type: 'scroll', x: 640, y: 360, delta_y: delta });
        await page.mouse.move(640, 360);
        await page.mouse.wheel(0, delta);
        await settle(600);
        box = await target.boundingBox();
        if (!box) throw new Error(`${a.target}: no box after scrolling`);
      }
      const x = Math.round(box.x + Math.min(box.width / 2, 20));
      const y = Math.round(box.y + box.height / 2);
      if (a.do === 'assert_text' || a.do === 'assert_visible') {
        await input({ type: 'assert', x, y, mode: a.do === 'assert_text' ? 'text' : 'visible' });
        continue;
      }
      await input({ type: 'click', x, y });
      await page.mouse.click(x, y);
      if (a.do === 'type') {
        await input({ type: 'text', text: a.text ?? '' });
        await page.keyboard.type(a.text ?? '');
      }
      await settle(1000);
    }
    const stopped = await api('DELETE', `/api/v1/recordings/${id}`);
    // What the console saves: the steps without their ids and the recorder's alternative selectors.
    const steps = (stopped.body.steps as Array<Record<string, unknown>>).map(({ step_id: _id, alternatives: _alternatives, ...s }) => s);
    const made = await api('POST', '/api/v1/test-cases', { project_id: project, name: `${script.name} (recorded)`, steps });
    if (made.status !== 201) return { refused: `the case was not saved: ${made.status} ${JSON.stringify(made.body).slice(0, 200)}` };
    return { id: made.body.id as string };
  } catch (err) {
    await api('DELETE', `/api/v1/recordings/${id}`);
    return { refused: (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300) };
  } finally {
    await context.close();
  }
}
