import type { BrowserContext } from 'playwright-core';
import { VIEWPORT, type BrowserPool, type GuardedContext } from '@assay/browser';
import { captureFailureEvidence, type Step } from '@assay/steps';
import type { Fingerprint } from '../relocation/fingerprint.js';
import { replay, type ReplayResult } from './replay.js';
import { ANCESTOR_ATTRIBUTES, selectorCandidates, TESTID_ATTRIBUTES, type AncestorAttributes, type SelectorCandidate } from './selectors.js';

export interface SnapshotCheck {
  status: 'passed' | 'failed' | 'skipped';
  /** The first selector that matched exactly the candidate in the failure's DOM. */
  selector?: string;
  kind?: SelectorCandidate['kind'];
  reason: string;
  /** How many selectors were tried before one was unique. */
  tried: number;
}

export interface RerunCheck {
  status: 'passed' | 'failed' | 'inconclusive' | 'skipped';
  reason: string;
  /** 1-based step where a failed re-run stopped. */
  failed_step?: number;
  error?: string;
}

/** What a failed re-run saw at its failing step: every candidate, the page's HTML, what the step's selector matches. */
export interface RerunEvidence {
  candidates: Fingerprint[];
  html: string;
  target?: { selector: string; count: number };
}

// In-page helpers, compiled from source so no transpiler helper leaks into the page.
// The candidate in the re-parsed snapshot: the node at its XPath when it is of its tag and its identity (id, test id,
// name, text) does not contradict it; else the one node of its tag with that identity. Re-parsing a page's HTML can
// move nodes the live DOM held elsewhere (an element a script put in a table, a form in a table row: the parser
// fosters them out), so the path alone can miss it or land on another element.
const LOCATE = new Function(
  'arg',
  `const norm = (s) => (s || '').replace(/\\s+/g, '').toLowerCase();
  const fits = (el) => {
    if (!el || el.nodeType !== 1 || el.tagName.toLowerCase() !== arg.tag) return false;
    if (arg.id && el.id !== arg.id) return false;
    for (const [k, v] of arg.attributes) if (el.getAttribute(k) !== v) return false;
    if (arg.text && !norm(el.textContent).includes(arg.text) && norm(el.getAttribute('value')) !== arg.text) return false;
    return true;
  };
  const atPath = arg.xpath ? document.evaluate(arg.xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue : null;
  let node = fits(atPath) ? atPath : null;
  if (!node && (arg.id || arg.attributes.length || arg.text)) {
    const same = [...document.getElementsByTagName(arg.tag)].filter(fits);
    if (same.length === 1) node = same[0];
  }
  if (!node) return null;
  const ids = [];
  for (let n = node.parentElement; n; n = n.parentElement) if (n.id) ids.push(n.id);
  return { node, ids };`,
) as (arg: { xpath: string; tag: string; id: string; attributes: Array<[string, string]>; text: string }) => { node: unknown; ids: string[] } | null;

/** What tells the candidate's node in a snapshot: its tag, id, identifying attributes and text (cut as the fingerprint cuts it). */
function identityOf(fp: Fingerprint) {
  const attributes = [...TESTID_ATTRIBUTES, 'name'].flatMap((k): Array<[string, string]> => (fp.attributes?.[k] ? [[k, fp.attributes[k]]] : []));
  // The text without white space and in lower case: the fingerprint's is what the page showed (innerText: after CSS
  // text-transform, an upper-case button's "SAVE"; a line break between blocks), the snapshot's its source text
  // ("Save"; none between two blocks).
  return { xpath: fp.xpath ?? '', tag: fp.tag.toLowerCase(), id: fp.id ?? '', attributes, text: (fp.text ?? '').replace(/\s+/g, '').toLowerCase() };
}

const ACTS = new Set(['click', 'check', 'uncheck', 'hover', 'select', 'fill', 'type']);
const EDITS = new Set(['fill', 'type']);

/**
 * The two checks behind a suggested selector: the failure's DOM snapshot
 * (network blocked, scripts off) and a re-run of the failed test against the
 * live target in a fresh browser context.
 */
export class Verifier {
  constructor(
    private readonly browsers: BrowserPool,
    private readonly opts: { stepTimeoutMs: number; navigationTimeoutMs: number },
  ) {}

  /** A context for re-runs against customer targets: through an egress proxy of its own, like the runner's. */
  private targetContext(): Promise<GuardedContext> {
    return this.browsers.newContext({ viewport: VIEWPORT, ignoreHTTPSErrors: true });
  }

  /** A context that reaches nothing: every request is aborted and scripts do not run. */
  private async isolatedContext(): Promise<BrowserContext> {
    const { context } = await this.browsers.newContext({ viewport: VIEWPORT, javaScriptEnabled: false, offline: true });
    await context.route('**/*', (route) => route.abort());
    return context;
  }

  /**
   * Finds a selector that matches exactly the candidate in the DOM captured at
   * the failure, and checks the node is visible and can take the step's action.
   */
  async checkSnapshot(html: string, candidate: Fingerprint, action: string): Promise<SnapshotCheck> {
    if (!html) return { status: 'skipped', reason: 'the failure has no DOM snapshot', tried: 0 };
    if (!candidate.xpath) return { status: 'skipped', reason: 'the candidate has no XPath to find it by in the snapshot', tried: 0 };
    const context = await this.isolatedContext();
    try {
      const page = await context.newPage();
      await page.setContent(html, { waitUntil: 'domcontentloaded', timeout: 10_000 });
      const located = await page.evaluateHandle(LOCATE, identityOf(candidate));
      const found = (await located.jsonValue().catch(() => null)) as { ids: string[] } | null;
      if (!found) return { status: 'failed', reason: 'the candidate is not in the snapshot (not at its place, and no one node of its tag with its identity)', tried: 0 };
      const node = await located.getProperty('node');
      let tried = 0;
      // The snapshot is parsed without the page's scripts and external styles: a page that hides its UI until its
      // stylesheet loads (an inline visibility:hidden the sheet overrides) is hidden here though the user saw it.
      // The candidate was read visible in the live page at the failure, so that reading stands for the snapshot's,
      // and role selectors (which skip hidden nodes) are then counted among hidden nodes too; the re-run decides.
      const shownLive = candidate.visible !== false;
      const hiddenHere = shownLive && !(await page.evaluate((n) => (n as { checkVisibility(o: object): boolean }).checkVisibility({ visibilityProperty: true }), node).catch(() => true));
      // The elements around it in the snapshot: the ranking hangs a node with nothing unique of its own from them.
      const ancestors = (await page.evaluate(ANCESTOR_ATTRIBUTES, node).catch(() => [])) as AncestorAttributes[];
      for (const c of selectorCandidates(candidate, found.ids, ancestors)) {
        tried++;
        const loc = page.locator(hiddenHere && c.kind === 'role-name' ? `${c.selector}[include-hidden]` : c.selector);
        const count = await loc.count().catch(() => -1);
        if (count !== 1) continue;
        const same = await loc.evaluate((el, n) => el === n, node).catch(() => false);
        if (!same) continue;
        const visible = hiddenHere || (await loc.isVisible().catch(() => false));
        if (!visible) return { status: 'failed', selector: c.selector, kind: c.kind, reason: 'the element is not visible in the snapshot', tried };
        if (ACTS.has(action) && !(await loc.isEnabled().catch(() => false))) return { status: 'failed', selector: c.selector, kind: c.kind, reason: 'the element is disabled', tried };
        if (EDITS.has(action) && !(await loc.isEditable().catch(() => false))) return { status: 'failed', selector: c.selector, kind: c.kind, reason: 'the element cannot be edited', tried };
        const how = hiddenHere ? 'visible in the live page at the failure (hidden in the snapshot, which lacks its scripts and external styles)' : 'visible';
        return { status: 'passed', selector: c.selector, kind: c.kind, reason: `matches exactly the candidate (${c.kind}), ${how} and actionable`, tried };
      }
      return { status: 'failed', reason: 'no selector matches the candidate alone', tried };
    } catch (err) {
      return { status: 'failed', reason: `the snapshot could not be checked: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, tried: 0 };
    } finally {
      await context.close().catch(() => undefined);
    }
  }

  /**
   * Re-runs the test's steps against the live target; the caller substitutes the selector first.
   * With `capture`, a re-run failing at a step with a selector also returns the page's evidence there.
   */
  async rerun(steps: Step[], baseUrl: string, variables: Record<string, string>, opts: { capture?: boolean } = {}): Promise<RerunCheck & { evidence?: RerunEvidence }> {
    let context: BrowserContext | undefined;
    try {
      const target = await this.targetContext();
      context = target.context;
      const page = await context.newPage();
      const result: ReplayResult = await replay(page, steps, {
        baseUrl,
        variables,
        ...this.opts,
        // The policy is checked before each navigation and a connection the proxy refused is named, as in the runner.
        egress: { policy: this.browsers.egress, proxy: target.egress },
      });
      if (result.status === 'passed') return { status: 'passed', reason: `all ${result.steps} steps passed` };
      if (result.status === 'inconclusive') return { status: 'inconclusive', reason: result.reason, failed_step: result.step };
      const selector = steps[result.step - 1]?.selector;
      let evidence: RerunEvidence | undefined;
      if (opts.capture && selector) {
        const { candidates, target } = await captureFailureEvidence(page, selector);
        evidence = { candidates: candidates as unknown as Fingerprint[], html: await page.content().catch(() => ''), ...(target ? { target: { selector: target.selector, count: target.count } } : {}) };
      }
      return { status: 'failed', reason: `step ${result.step} failed`, failed_step: result.step, error: result.error, ...(evidence ? { evidence } : {}) };
    } catch (err) {
      return { status: 'inconclusive', reason: `the re-run could not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
    } finally {
      await context?.close().catch(() => undefined);
    }
  }
}
