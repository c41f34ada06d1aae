import type { BrowserContext, CDPSession, ElementHandle, Page } from 'playwright-core';
import { VIEWPORT, type BrowserPool } from '@assay/browser';
import type { EgressPolicy, EgressProxy } from '@assay/egress';
import { ANCESTOR_ATTRIBUTES, selectorCandidates, stabilityOf, type SelectorCandidate, type Stability } from '@assay/selectors';
import { FINGERPRINT, navigationError, resolveUrl, type ElementFingerprint } from '@assay/steps';

/** A selector that names the recorded element, with how stable its kind is and how many elements it matches now. */
export interface SelectorAlternative {
  selector: string;
  kind: SelectorCandidate['kind'];
  stability: Stability;
  reason: string;
  /** Elements it matches in the page at the moment of recording (1: the element alone). */
  matches: number;
}

/** A step as recorded: a test case step, plus the selectors it could have used. */
export interface RecordedStep {
  action: string;
  selector?: string;
  value?: string;
  description?: string;
  alternatives?: SelectorAlternative[];
}

/** What one input does: the step it recorded (or updated), or the element it picked. */
export interface InputResult {
  recorded?: { index: number; step: RecordedStep; updated: boolean };
  element?: { tag: string; text: string; selector?: string; alternatives: SelectorAlternative[]; options?: Array<{ value: string; label: string }> };
  url: string;
  steps: number;
}

export type RecordingInput =
  | { type: 'click'; x: number; y: number; click_count?: number }
  | { type: 'assert'; x: number; y: number; mode: 'visible' | 'text' }
  | { type: 'pick'; x: number; y: number }
  | { type: 'select'; x: number; y: number; value: string }
  | { type: 'text'; text: string }
  | { type: 'key'; key: string }
  | { type: 'scroll'; x: number; y: number; delta_y: number }
  | { type: 'navigate'; url: string }
  | { type: 'back' }
  | { type: 'reload' };

export type RecordingEvent =
  | { type: 'frame'; data: { data: string; width: number; height: number } }
  | { type: 'step'; data: { index: number; step: RecordedStep; updated: boolean } }
  | { type: 'url'; data: { url: string } }
  | { type: 'ended'; data: { reason: string } };

/** A step refused by the page (nothing there, an input that cannot be recorded): answered as a 400 by the routes. */
export class RecordingInputError extends Error {}

/** Keys recorded as `press` steps; the others (editing keys) only change the field a `fill` step records. */
const PRESS_KEYS = new Set(['Enter', 'Escape', 'Tab']);
export const ALLOWED_KEYS = new Set([...PRESS_KEYS, 'Backspace', 'Delete', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown', 'Space']);
/** Selectors tried per element (each is one or two round trips), and alternatives kept. */
const MAX_TRIED = 14;
const MAX_ALTERNATIVES = 6;

/** What a user acts on as one control; `ACT` adds the fields and labels a click may land on. */
const CONTROL = 'a[href], button, summary, [role=button], [role=link], [role=tab], [role=menuitem], [role=option], [role=checkbox], [role=radio], [role=switch]';
const ACT = `${CONTROL}, input, select, textarea, label, option, [contenteditable=""], [contenteditable=true]`;

// In-page helpers, compiled from source so no transpiler helper leaks into the page (as in fingerprint.ts).
const ELEMENT_AT = new Function(
  'arg',
  `let el = document.elementFromPoint(arg.x, arg.y);
  if (!el) return null;
  // An assertion or a pick means what the user sees there: the topmost element with text of its own
  // (a transparent overlay, such as a full-width list laid over a footer, does not count); a click hits the topmost.
  if (!arg.act) {
    const ownText = (n) => Array.from(n.childNodes).some((c) => c.nodeType === 3 && c.nodeValue.trim());
    const seen = document.elementsFromPoint(arg.x, arg.y).find((n) => ownText(n) || ['img', 'input', 'select', 'textarea', 'button'].includes(n.tagName.toLowerCase()));
    if (seen) el = seen;
  }
  const INSPECT = 'a[href], button, label, summary, h1, h2, h3, h4, h5, h6, [role=button], [role=link], [role=heading]';
  return el.closest(arg.act ? ${JSON.stringify(ACT)} : INSPECT) || el;`,
) as (arg: { x: number; y: number; act: boolean }) => unknown;
/** The control around a control, if any (an icon button inside a labelled role=button). */
const OUTER_CONTROL = new Function('el', `return el.matches(${JSON.stringify(CONTROL)}) && el.parentElement ? el.parentElement.closest(${JSON.stringify(CONTROL)}) : null;`) as (el: unknown) => unknown;
const FOCUSED = new Function(
  `let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el && el !== document.body && el !== document.documentElement ? el : null;`,
) as () => unknown;
const ANCESTOR_IDS = new Function('el', 'const ids = []; for (let n = el.parentElement; n; n = n.parentElement) if (n.id) ids.push(n.id); return ids;') as (el: unknown) => string[];
const IS_SAME = new Function('el', 'target', 'return el === target;') as (el: unknown, target: unknown) => boolean;
const FIELD_STATE = new Function(
  'el',
  `const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || '').toLowerCase();
  return {
    tag, type,
    editable: (tag === 'input' && !['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'range', 'color'].includes(type)) || tag === 'textarea' || el.isContentEditable,
    value: tag === 'input' || tag === 'textarea' ? el.value : el.isContentEditable ? el.innerText : '',
    checked: !!el.checked,
    options: tag === 'select' ? Array.from(el.options).slice(0, 200).map((o) => ({ value: o.value, label: (o.label || o.text || '').trim() })) : undefined,
  };`,
) as (el: unknown) => { tag: string; type: string; editable: boolean; value: string; checked: boolean; options?: Array<{ value: string; label: string }> };

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * One recording: a browser context of its own (through its own egress proxy,
 * like a test case's), one page shown to the console as a CDP screencast, and
 * the steps the console's input turns into. Every input goes through here: the
 * element under the pointer (or focused) is read and named by the shared
 * selector ranking **before** the input is dispatched, so a click that
 * navigates away cannot race the reading.
 */
export class RecordingSession {
  readonly steps: RecordedStep[] = [];
  readonly createdAt = new Date();
  lastInputAt = Date.now();
  ended: string | undefined;
  private readonly listeners = new Set<(e: RecordingEvent) => void>();
  private lastFrame: RecordingEvent | undefined;
  /** Inputs run one at a time, in the order they came. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly id: string,
    readonly orgId: string,
    readonly projectId: string,
    readonly baseUrl: string,
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly cdp: CDPSession,
    readonly egress: EgressProxy,
    private readonly policy: EgressPolicy,
    private readonly navigationTimeoutMs: number,
  ) {}

  /**
   * Opens the context and page, starts the screencast and loads `startUrl`
   * (recorded as the first `navigate` step).
   * @throws Error when the browser cannot open a context.
   */
  static async open(pool: BrowserPool, o: { id: string; orgId: string; projectId: string; baseUrl: string; startPath: string; navigationTimeoutMs: number }): Promise<RecordingSession> {
    const { context, egress } = await pool.newContext({ viewport: VIEWPORT, ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      const session = new RecordingSession(o.id, o.orgId, o.projectId, o.baseUrl, context, page, cdp, egress, pool.egress, o.navigationTimeoutMs);
      await session.start();
      await session.run({ type: 'navigate', url: o.startPath });
      return session;
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  private async start(): Promise<void> {
    this.cdp.on('Page.screencastFrame', (f: { data: string; sessionId: number; metadata: { deviceWidth?: number; deviceHeight?: number } }) => {
      void this.cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
      this.emit({ type: 'frame', data: { data: f.data, width: f.metadata.deviceWidth ?? VIEWPORT.width, height: f.metadata.deviceHeight ?? VIEWPORT.height } });
    });
    this.page.on('framenavigated', (frame) => {
      if (frame === this.page.mainFrame()) this.emit({ type: 'url', data: { url: frame.url() } });
    });
    // Popups would leave the screencast: they are closed, and the page follows nothing else.
    this.context.on('page', (p) => {
      if (p !== this.page) void p.close().catch(() => undefined);
    });
    this.page.on('close', () => void this.close('the page closed'));
    await this.cdp.send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: VIEWPORT.width, maxHeight: VIEWPORT.height, everyNthFrame: 1 });
  }

  get url(): string {
    return this.page.url();
  }

  /** Subscribes to frames, steps and the end; the last frame is sent at once. */
  subscribe(fn: (e: RecordingEvent) => void): () => void {
    this.listeners.add(fn);
    if (this.lastFrame) fn(this.lastFrame);
    this.emit({ type: 'url', data: { url: this.page.url() } }, fn);
    return () => void this.listeners.delete(fn);
  }

  private emit(e: RecordingEvent, only?: (e: RecordingEvent) => void): void {
    if (e.type === 'frame') this.lastFrame = e;
    for (const fn of only ? [only] : this.listeners) {
      try {
        fn(e);
      } catch {
        // A listener that fails (a closed response) is its own business.
      }
    }
  }

  /** Runs one input after the ones before it. @throws RecordingInputError */
  input(input: RecordingInput): Promise<InputResult> {
    this.lastInputAt = Date.now();
    const next = this.queue.then(() => this.run(input));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async run(input: RecordingInput): Promise<InputResult> {
    if (this.ended) throw new RecordingInputError(`The recording has ended: ${this.ended}`);
    const out: InputResult = { url: '', steps: 0 };
    switch (input.type) {
      case 'navigate': {
        const url = resolveUrl(this.baseUrl, input.url);
        await this.goto(`Navigation to ${url}`, () => this.page.goto(url, { timeout: this.navigationTimeoutMs }), url);
        out.recorded = this.record({ action: 'navigate', value: this.relative(url) });
        break;
      }
      case 'back':
        await this.goto(`Going back from ${this.page.url()}`, () => this.page.goBack({ timeout: this.navigationTimeoutMs }));
        out.recorded = this.record({ action: 'go_back' });
        break;
      case 'reload':
        await this.goto(`Reloading ${this.page.url()}`, () => this.page.reload({ timeout: this.navigationTimeoutMs }));
        out.recorded = this.record({ action: 'reload' });
        break;
      case 'scroll':
        await this.page.mouse.move(input.x, input.y);
        await this.page.mouse.wheel(0, input.delta_y);
        break;
      case 'pick':
      case 'assert': {
        const el = await this.elementAt(input.x, input.y, false);
        out.element = el.info;
        if (input.type === 'assert') {
          if (!el.info.selector) throw new RecordingInputError('No selector names this element alone: pick another one');
          out.recorded =
            input.mode === 'visible'
              ? this.record({ action: 'assert_visible', selector: el.info.selector, alternatives: el.info.alternatives })
              : this.record({ action: 'assert_text', selector: el.info.selector, value: el.info.text.slice(0, 200), alternatives: el.info.alternatives });
        }
        await el.handle.dispose();
        break;
      }
      case 'click': {
        const el = await this.elementAt(input.x, input.y, true);
        const state = await el.handle.evaluate(FIELD_STATE);
        if (state.tag === 'select') {
          // A native select's popup is drawn outside the page (no screencast): the console shows the options and sends `select`.
          out.element = { ...el.info, ...(state.options ? { options: state.options } : {}) };
        } else {
          const doubled = (input.click_count ?? 1) >= 2;
          const toggle = state.tag === 'input' && (state.type === 'checkbox' || state.type === 'radio');
          await this.page.mouse.click(input.x, input.y, { clickCount: doubled ? 2 : 1 });
          // Focusing a text field is no step: what is typed into it is.
          if (!state.editable || doubled) {
            if (!el.info.selector) throw new RecordingInputError('No selector names this element alone: the click happened but was not recorded');
            const action = doubled ? 'dblclick' : toggle ? (state.type === 'checkbox' && state.checked ? 'uncheck' : 'check') : 'click';
            out.recorded = this.replaceDoubleClick(action, { action, selector: el.info.selector, alternatives: el.info.alternatives });
          }
          out.element = el.info;
        }
        await el.handle.dispose();
        break;
      }
      case 'select': {
        const el = await this.elementAt(input.x, input.y, true);
        if (!el.info.selector) throw new RecordingInputError('No selector names this select alone');
        await el.handle.selectOption(input.value, { timeout: 2000 }).catch(() => {
          throw new RecordingInputError(`The select has no option "${input.value}"`);
        });
        out.recorded = this.record({ action: 'select', selector: el.info.selector, value: input.value, alternatives: el.info.alternatives });
        await el.handle.dispose();
        break;
      }
      case 'text':
      case 'key': {
        const focused = await this.focused();
        const key = input.type === 'key' ? (input.key === 'Space' ? ' ' : input.key) : undefined;
        if (key !== undefined && PRESS_KEYS.has(key)) {
          // Read before pressing: Enter may submit and navigate.
          const named = focused ? await this.describe(focused) : undefined;
          if (focused && !named?.selector) throw new RecordingInputError('No selector names the focused element alone');
          await this.syncFill(focused);
          out.recorded = this.record({ action: 'press', ...(named?.selector ? { selector: named.selector, alternatives: named.alternatives } : {}), value: key });
          await this.page.keyboard.press(key);
        } else {
          if (key !== undefined) await this.page.keyboard.press(key);
          else await this.page.keyboard.insertText((input as { text: string }).text);
          const result = await this.syncFill(focused);
          if (result) out.recorded = result;
        }
        await focused?.dispose();
        break;
      }
    }
    out.url = this.page.url();
    out.steps = this.steps.length;
    return out;
  }

  /** A `fill` step holding the focused field's value now (a new one, or the last one when it names the same field). */
  private async syncFill(focused: ElementHandle | undefined): Promise<InputResult['recorded'] | undefined> {
    if (!focused) return undefined;
    const state = await focused.evaluate(FIELD_STATE).catch(() => undefined);
    if (!state?.editable) return undefined;
    const named = await this.describe(focused);
    if (!named.selector) throw new RecordingInputError('No selector names this field alone: the text was typed but not recorded');
    const last = this.steps[this.steps.length - 1];
    if (last?.action === 'fill' && last.selector === named.selector) {
      last.value = state.value;
      const recorded = { index: this.steps.length - 1, step: last, updated: true };
      this.emit({ type: 'step', data: recorded });
      return recorded;
    }
    return this.record({ action: 'fill', selector: named.selector, value: state.value, alternatives: named.alternatives });
  }

  /** The second click of a double click replaces the `click` step the first one recorded. */
  private replaceDoubleClick(action: string, step: RecordedStep): InputResult['recorded'] {
    const last = this.steps[this.steps.length - 1];
    if (action === 'dblclick' && last?.action === 'click' && last.selector === step.selector) this.steps.pop();
    return this.record(step);
  }

  private record(step: RecordedStep): NonNullable<InputResult['recorded']> {
    this.steps.push(step);
    const recorded = { index: this.steps.length - 1, step, updated: false };
    this.emit({ type: 'step', data: recorded });
    return recorded;
  }

  /** A path under the base URL stays relative (the case then runs against any environment); another origin stays absolute. */
  private relative(url: string): string {
    const base = this.baseUrl.replace(/\/+$/, '');
    return url.startsWith(`${base}/`) ? url.slice(base.length) : url === base ? '/' : url;
  }

  /** Navigates like a `navigate` step: refused up front when the policy denies the URL, and a refused connection named as such. */
  private async goto(what: string, go: () => Promise<unknown>, url?: string): Promise<void> {
    if (url) {
      const verdict = await this.policy.checkUrl(url);
      if (!verdict.allowed) throw new RecordingInputError(`Navigation to ${url} blocked by the egress policy (${verdict.reason})`);
    }
    try {
      await go();
    } catch (err) {
      throw new RecordingInputError(navigationError({ egress: { policy: this.policy, proxy: this.egress } }, what, err).message);
    }
  }

  private async focused(): Promise<ElementHandle | undefined> {
    const handle = await this.page.evaluateHandle(FOCUSED);
    const el = handle.asElement();
    if (!el) await handle.dispose();
    return el ?? undefined;
  }

  private async elementAt(x: number, y: number, act: boolean): Promise<{ handle: ElementHandle; info: NonNullable<InputResult['element']> }> {
    if (!(x >= 0 && y >= 0 && x <= VIEWPORT.width && y <= VIEWPORT.height)) throw new RecordingInputError(`The point (${x}, ${y}) is outside the ${VIEWPORT.width}x${VIEWPORT.height} page`);
    const hit = (await this.page.evaluateHandle(ELEMENT_AT, { x, y, act })).asElement();
    if (!hit) throw new RecordingInputError(`No element at (${x}, ${y})`);
    const handle = act ? await this.labelledControl(hit) : hit;
    return { handle, info: await this.describe(handle) };
  }

  /**
   * A control that is only the inside of another (a nameless or presentational button within a labelled
   * role=button) is recorded as the outer one: what a user names and clicks, and what an upgrade keeps. Names
   * are the accessible names the fingerprint computes (as Playwright's role selectors read them).
   */
  private async labelledControl(hit: ElementHandle): Promise<ElementHandle> {
    const outer = (await hit.evaluateHandle(OUTER_CONTROL)).asElement();
    if (!outer) return hit;
    const [inner, around] = await Promise.all([hit.evaluate(FINGERPRINT), outer.evaluate(FINGERPRINT)]);
    const presentational = ['presentation', 'none'].includes((inner.attributes.role ?? '').trim().toLowerCase());
    return (presentational || !inner.accessible_name?.trim()) && around.accessible_name?.trim() ? outer : hit;
  }

  /**
   * The element's selectors by the shared ranking (@assay/selectors, what
   * failure analysis suggests from), each checked against the live page: the
   * step takes the first that matches this element alone.
   */
  private async describe(handle: ElementHandle): Promise<NonNullable<InputResult['element']> & { fp?: ElementFingerprint }> {
    const fp = await handle.evaluate(FINGERPRINT);
    const ids = await handle.evaluate(ANCESTOR_IDS);
    const alternatives: SelectorAlternative[] = [];
    let selector: string | undefined;
    // Hung from an attribute or class of an element around it before any positional path.
    const ancestors = await handle.evaluate(ANCESTOR_ATTRIBUTES).catch(() => []);
    const ranked = selectorCandidates(fp, ids, ancestors);
    // At most MAX_TRIED named ones, and the positional paths always: the last resort is never cut off.
    for (const c of [...ranked.filter((x) => x.kind !== 'position').slice(0, MAX_TRIED), ...ranked.filter((x) => x.kind === 'position')]) {
      const locator = this.page.locator(c.selector);
      const matches = await locator.count().catch(() => 0);
      if (matches === 0) continue;
      const same = matches === 1 && (await locator.evaluate(IS_SAME, handle).catch(() => false));
      if (matches === 1 && !same) continue;
      if (same) selector ??= c.selector;
      if (alternatives.length < MAX_ALTERNATIVES) alternatives.push({ selector: c.selector, kind: c.kind, ...stabilityOf(c), matches });
      if (alternatives.filter((a) => a.matches === 1).length >= 4) break;
    }
    return { tag: fp.tag, text: norm(fp.text ?? ''), ...(selector ? { selector } : {}), alternatives };
  }

  /** Stops the screencast and closes the context (and with it its egress proxy). Idempotent. */
  async close(reason: string): Promise<void> {
    if (this.ended) return;
    this.ended = reason;
    this.emit({ type: 'ended', data: { reason } });
    this.listeners.clear();
    await this.cdp.send('Page.stopScreencast').catch(() => undefined);
    await this.context.close().catch(() => undefined);
  }
}
