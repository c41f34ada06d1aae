import type { Step } from '@assay/steps';
import type { Diagnostics, FailedRequest, RunTestResult } from '../clients/runner.client.js';
import type { Flakiness } from './flakiness.js';
import { elementSignature, type Fingerprint } from '../relocation/fingerprint.js';
import { assayRelocate, type Relocation } from '../relocation/scorers.js';
import type { Category } from './categories.js';

/** The element a failed step meant, as last seen passing (or guessed from its selector). */
export interface KnownElement {
  fingerprint: Fingerprint;
  /** `history`: a passed run of this step; `run`: another test of this execution, same selector and page; `selector`: read from the selector alone. */
  source: 'history' | 'run' | 'selector';
  execution_id?: string;
  seen_at?: string;
  page_url?: string | null;
}

export interface FailureInput {
  test: RunTestResult;
  diagnostics: Diagnostics;
  known?: KnownElement;
  flakiness: Flakiness;
  /** Signatures of candidates rejected for this step: never offered again. */
  rejected: ReadonlySet<string>;
  /** The execution's own timeout (s), for execution timeouts. */
  timeoutSeconds?: number;
}

/** What the evidence says before any verification. */
export interface Diagnosis {
  category: Category;
  /** 0..1, from the evidence. */
  confidence: number;
  step?: Step & { index: number };
  error: string;
  /** Category-specific facts for the description and the evidence object. */
  facts: Record<string, unknown>;
  /** For selector_changed: the scorer's answer and the picked candidate. */
  relocation?: Relocation;
  candidate?: Fingerprint;
  /** When the failure is flaky, what it would be otherwise. */
  underlying?: Category;
}

const NET_CAUSES: Array<[RegExp, string]> = [
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED|getaddrinfo|ENOTFOUND/i, 'the host name does not resolve (DNS)'],
  [/ERR_CONNECTION_REFUSED|ECONNREFUSED/i, 'the connection was refused (nothing listens there)'],
  [/ERR_CERT_|ERR_SSL_|SSL_ERROR|ERR_BAD_SSL|certificate/i, 'the TLS handshake failed (certificate or protocol)'],
  [/ERR_CONNECTION_TIMED_OUT|ERR_TIMED_OUT/i, 'the connection timed out'],
  [/ERR_ADDRESS_UNREACHABLE|ERR_INTERNET_DISCONNECTED|ERR_NETWORK_|EHOSTUNREACH|ENETUNREACH/i, 'the address is unreachable'],
  [/ERR_CONNECTION_RESET|ERR_CONNECTION_CLOSED|ERR_EMPTY_RESPONSE|ECONNRESET|ERR_PROXY|ERR_TUNNEL/i, 'the connection was cut'],
  [/blocked by the egress policy/i, "the deployment's egress policy refuses this address (metadata, private or loopback): test a target the deployment allows"],
  [/ERR_BLOCKED_BY_CLIENT|ERR_ACCESS_DENIED/i, 'the request was blocked'],
];

/** The network cause of an error text, or undefined when it is not a network failure. */
export function networkCause(text: string): string | undefined {
  return NET_CAUSES.find(([re]) => re.test(text))?.[1];
}

const NET_CODE = /net::(ERR_[A-Z_]+)/;
const hostOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
};

/** The failed requests that bear on the failing step: made during it or the step before. */
function nearFailure(d: Diagnostics, index: number): FailedRequest[] {
  return (d.failed_requests ?? []).filter((r) => r.step === undefined || r.step === index || r.step === index - 1);
}

/** A fingerprint guessed from a CSS selector (`#id`, `.class`, `[attr=value]`, a tag), when no passing run left one. */
export function fingerprintFromSelector(selector: string): Fingerprint | undefined {
  const last = selector.split(/\s*(?:>>|>|\s)\s*/).filter(Boolean).pop() ?? '';
  const tag = /^[a-zA-Z][a-zA-Z0-9-]*/.exec(last)?.[0]?.toLowerCase();
  const id = /#([A-Za-z_][\w-]*)/.exec(last)?.[1];
  const classes = [...last.matchAll(/\.([A-Za-z_][\w-]*)/g)].map((m) => m[1]!);
  const attributes: Record<string, string> = {};
  for (const m of last.matchAll(/\[([\w-]+)\s*[*^$~|]?=\s*["']?([^"'\]]*)["']?\s*\]/g)) attributes[m[1]!] = m[2]!;
  if (!tag && !id && !classes.length && !Object.keys(attributes).length) return undefined;
  const fp: Fingerprint = { tag: tag ?? '*', classes, attributes };
  if (id) fp.id = id;
  if (attributes.name) fp.name = attributes.name;
  for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy']) if (attributes[a]) fp.testid = attributes[a];
  return fp;
}

/**
 * Classifies one failed test from its evidence (no browser, no network):
 * the order of the checks is the order of the README's table.
 */
export function diagnose(input: FailureInput): Diagnosis | undefined {
  const { test, diagnostics: d } = input;
  const fs = d.failed_step;
  const index = fs?.index ?? test.error_step ?? 0;
  const stepDef = test.steps[index - 1];
  const step = stepDef ? { ...stepDef, index } : undefined;
  const error = test.error ?? '';
  const errorType = fs?.error_type ?? (/^Element not found/.test(error) ? 'element_not_found' : 'error');
  const base = { step, error } as const;

  if (errorType === 'cancelled') {
    // A user's cancellation is no failure to analyse; a run out of time is.
    if (!/timed out/i.test(error)) return undefined;
    return { ...base, category: 'timeout', confidence: 0.95, facts: { kind: 'execution', timeout_seconds: input.timeoutSeconds } };
  }

  const diagnosis = diagnoseCause(input, index, step, error, errorType);
  if (input.flakiness.flaky) {
    // Never healed: the evidence is kept, the suggestion is not made.
    const confidence = Math.min(0.95, 0.5 + 0.05 * input.flakiness.runs);
    return { ...base, category: 'flaky', confidence: Math.round(confidence * 100) / 100, facts: { ...diagnosis.facts, flakiness: input.flakiness }, underlying: diagnosis.category };
  }
  return diagnosis;
}

/** The failure's candidates ranked against the element seen passing (suggestions a user rejected left out), and the pick. */
function relocateKnown(input: FailureInput, known: KnownElement): { relocation: Relocation; pick: Fingerprint | undefined } {
  const candidates = input.diagnostics.candidates ?? [];
  const exclude = new Set<number>();
  candidates.forEach((c, i) => {
    if (input.rejected.has(elementSignature(c))) exclude.add(i);
  });
  const relocation = assayRelocate(known.fingerprint, candidates, { exclude });
  return { relocation, pick: relocation.best ? candidates[relocation.best.index] : undefined };
}

/** One element read twice (its place in the page; without one, what it is). */
const sameElement = (a: Fingerprint, b: Fingerprint) => (a.xpath && b.xpath ? a.xpath === b.xpath : elementSignature(a) === elementSignature(b));

function diagnoseCause(input: FailureInput, index: number, step: Diagnosis['step'], error: string, errorType: string): Diagnosis {
  const { diagnostics: d } = input;
  const base = { step, error };
  const pageUrl = d.page_url;

  // The deployment's egress policy refused the address: unreachable by design, never healed.
  if (errorType === 'egress_blocked') return { ...base, category: 'network_error', confidence: 0.99, facts: { cause: networkCause(error), code: 'EGRESS_BLOCKED', url: /(?:Navigation to|from) (\S+)/.exec(error)?.[1] } };
  // The document itself failed: an HTTP error page or an unreachable target.
  if (errorType === 'navigation_failed') {
    const status = /answered HTTP (\d{3})/.exec(error)?.[1];
    if (status) return { ...base, category: 'page_error', confidence: 0.97, facts: { status: Number(status), url: /Navigation to (\S+)/.exec(error)?.[1] ?? pageUrl } };
    const cause = networkCause(error);
    if (cause) return { ...base, category: 'network_error', confidence: 0.95, facts: { cause, code: NET_CODE.exec(error)?.[1], url: /Navigation to (\S+)/.exec(error)?.[1] } };
    if (/Timeout \d+ms exceeded|timed out/i.test(error)) return { ...base, category: 'timeout', confidence: 0.85, facts: { kind: 'navigation', url: /Navigation to (\S+)/.exec(error)?.[1] } };
    return { ...base, category: 'page_error', confidence: 0.6, facts: { url: /Navigation to (\S+)/.exec(error)?.[1] ?? pageUrl } };
  }
  const near = nearFailure(d, index);
  const badDocument = near.find((r) => r.type === 'document' && (r.status ?? 0) >= 400);
  if (badDocument) return { ...base, category: 'page_error', confidence: 0.9, facts: { status: badDocument.status, url: badDocument.url, during_step: badDocument.step } };
  const lostDocument = near.find((r) => r.type === 'document' && r.error && networkCause(r.error));
  if (lostDocument) return { ...base, category: 'network_error', confidence: 0.9, facts: { cause: networkCause(lostDocument.error!), code: NET_CODE.exec(lostDocument.error!)?.[1], url: lostDocument.url } };

  if (errorType === 'unknown_variable') return { ...base, category: 'assertion_mismatch', confidence: 0.9, facts: { kind: 'variable' } };

  // A screenshot that differs from its baseline: the page loaded and looks different, nothing else to find.
  if (errorType === 'visual_change') {
    const v = d.visual;
    return {
      ...base,
      category: 'visual_change',
      confidence: v ? 0.97 : 0.8,
      facts: v
        ? { diff_ratio: v.diff_ratio, diff_pixels: v.diff_pixels, regions: v.regions ?? [], browser: v.browser, viewport: v.viewport, ...(v.size_changed ? { size_changed: v.size_changed } : {}), ...(v.name ? { name: v.name } : {}), ...(v.diff_url ? { images: { expected: v.expected_url, actual: v.actual_url, diff: v.diff_url } } : {}) }
        : { diff_ratio: Number(/: ([\d.]+)% of pixels differ/.exec(error)?.[1] ?? NaN) / 100, regions: [] },
    };
  }

  // Scripts that broke near the failure: uncaught exceptions and failed calls to the app's own API.
  const host = hostOf(pageUrl);
  const pageErrors = (d.page_errors ?? []).filter((e) => e.step === index || e.step === index - 1);
  const failedCalls = near.filter((r) => (r.type === 'xhr' || r.type === 'fetch') && (!host || hostOf(r.url) === host) && ((r.status ?? 0) >= 400 || r.error));
  const scriptFacts = pageErrors.length || failedCalls.length ? { page_errors: pageErrors.slice(0, 5), failed_calls: failedCalls.slice(0, 5) } : undefined;
  const scriptError = (why: Record<string, unknown>): Diagnosis => ({
    ...base,
    category: 'script_error',
    confidence: Math.min(0.9, 0.6 + 0.1 * (pageErrors.length + failedCalls.length)),
    facts: { ...scriptFacts, ...why },
  });

  if (errorType === 'assertion_failed') {
    // A step's own message, or Playwright Test's expect() (a suite's test): `Expected: "x"` then `Received: "y"`.
    const m = /Expected (text|value) "([\s\S]*)" but found "([\s\S]*)"$/.exec(error) ?? /^()Expected(?: string| pattern)?: "?([^\n]*?)"?\n\s*Received(?: string)?: "?([^\n]*?)"?$/m.exec(error);
    const facts = { kind: m?.[1] || 'text', expected: m?.[2], found: m?.[3] };
    // A failed call that fed the element explains the wrong text better than the text does.
    if (scriptFacts) return scriptError(facts);
    return { ...base, category: 'assertion_mismatch', confidence: m ? 0.92 : 0.7, facts };
  }

  if (errorType === 'element_not_interactable') {
    const state = d.selector_state;
    const reason = /not visible/i.test(error) || state?.visible === false ? 'hidden' : /not enabled|disabled/i.test(error) || state?.enabled === false ? 'disabled' : /intercepts pointer events/i.test(error) ? 'covered' : 'not actionable';
    const cover = /(<[^>]{1,200}>)[^<]*intercepts pointer events/.exec(error)?.[1];
    // The selector still finds an element, but after a change it may not be the one the step acted on when it
    // passed (another element drawn over it, a hidden twin found first): when the element most like the one seen
    // passing is another, usable one, the selector changed, as when nothing is found.
    const found = state?.fingerprint;
    if (input.known && input.known.source !== 'selector' && found) {
      const { relocation, pick } = relocateKnown(input, input.known);
      if (pick && pick.enabled !== false && !sameElement(pick, found)) {
        return { ...base, category: 'selector_changed', confidence: Math.round(relocation.confidence * 100) / 100, relocation, candidate: pick, facts: { ambiguous: !relocation.outlier, found_instead: { reason, element: found } } };
      }
    }
    return { ...base, category: 'element_not_interactable', confidence: reason === 'not actionable' ? 0.7 : 0.9, facts: { reason, ...(cover ? { covered_by: cover } : {}), ...(state?.fingerprint ? { element: state.fingerprint } : {}) } };
  }

  // Element not found (or a selector that is not valid): was it late, did it move, or is it gone?
  const state = d.selector_state;
  if (state && state.count > 0 && state.visible) {
    return { ...base, category: 'timeout', confidence: 0.8, facts: { kind: 'late_element', selector: state.selector } };
  }
  const candidates = d.candidates ?? [];
  const known = input.known;
  if (known && candidates.length) {
    const { relocation, pick } = relocateKnown(input, known);
    if (pick && pick.enabled === false) {
      return { ...base, category: 'element_not_interactable', confidence: 0.75, relocation, candidate: pick, facts: { reason: 'disabled', moved: true } };
    }
    if (pick) {
      // A guess from the selector alone is worth less than an element seen passing.
      const cap = known.source === 'selector' ? 0.5 : 1;
      return { ...base, category: 'selector_changed', confidence: Math.round(Math.min(cap, relocation.confidence) * 100) / 100, relocation, candidate: pick, facts: { ambiguous: !relocation.outlier } };
    }
    if (scriptFacts) return scriptError({ relocation_reason: relocation.reason });
    const closest = relocation.ranked[0];
    // Below a pick, a possible element seen passing (not a guess from the selector) is tried by a re-run the case needs.
    const possible = relocation.possible && known.source !== 'selector' ? candidates[relocation.possible.index] : undefined;
    return {
      ...base,
      category: 'element_missing',
      confidence: known.source === 'selector' ? 0.6 : Math.round(Math.max(0.6, Math.min(0.95, 1 - (closest?.score ?? 0) / 2)) * 100) / 100,
      relocation,
      ...(possible && possible.enabled !== false ? { candidate: possible } : {}),
      facts: { reason: relocation.reason, ...(possible && possible.enabled !== false ? { possible: true } : {}) },
    };
  }
  if (scriptFacts) return scriptError({});
  return { ...base, category: 'element_missing', confidence: candidates.length ? 0.55 : 0.45, facts: { reason: known ? 'no candidates were captured on the page' : 'no passing run of this step recorded the element' } };
}
