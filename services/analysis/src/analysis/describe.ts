import type { Fingerprint } from '../relocation/fingerprint.js';
import type { RerunCheck, SnapshotCheck } from '../verify/verifier.js';
import type { CoveredRerun, Substitution } from '../verify/heal-steps.js';
import type { Diagnosis, KnownElement } from './diagnose.js';

export interface Verification {
  snapshot: SnapshotCheck;
  rerun: RerunCheck;
  /** Both checks passed: the selector may be applied. */
  verified: boolean;
  /** The selector the checks were about (verified or not). */
  selector?: string;
  /** Later broken steps of the same case healed in the re-runs (step by step), and every re-run with the steps it covered. */
  further?: Substitution[];
  reruns?: CoveredRerun[];
  /** Why the step-by-step verification went no further, when its last re-run still failed. */
  stopped?: string;
  /** A possible pick's control: the case run without the step (it must fail for the re-run's pass to count). */
  control?: RerunCheck;
}

export interface Presentation {
  /** One sentence of what changed, in a tester's words: no selectors, scores or API routes. */
  summary: string;
  /** One sentence of what to do about it. */
  next_step: string;
  description: string;
  fix_suggestions: string[];
}

const q = (s: string | undefined | null, max = 80) => {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** How a person would name an element: its text or label, else its tag and id. */
export function label(fp: Fingerprint | undefined): string {
  if (!fp) return 'the element';
  const words = q(fp.accessible_name || fp.text, 50);
  const kind = fp.role ?? fp.tag;
  if (words) return `the ${kind} "${words}"`;
  if (fp.id) return `the ${kind} #${fp.id}`;
  return `a ${kind}`;
}

const pathOf = (url: string | undefined) => {
  if (!url) return 'the page';
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
};

const stepRef = (d: Diagnosis) => (d.step ? `step ${d.step.index}${d.step.description ? ` ("${q(d.step.description, 60)}")` : ''}` : 'the failing step');

/** The attributes that differ between the element as it was and the candidate: what a user checks first. */
export function attributeDiff(before: Fingerprint, after: Fingerprint): Array<{ property: string; before: unknown; after: unknown }> {
  const out: Array<{ property: string; before: unknown; after: unknown }> = [];
  const cmp = (property: string, a: unknown, b: unknown) => {
    const same = JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    if (!same) out.push({ property, before: a ?? null, after: b ?? null });
  };
  cmp('tag', before.tag, after.tag);
  cmp('id', before.id, after.id);
  cmp('name', before.name, after.name);
  cmp('text', before.text, after.text);
  cmp('accessible_name', before.accessible_name, after.accessible_name);
  cmp('role', before.role, after.role);
  cmp('classes', before.classes, after.classes);
  cmp('testid', before.testid, after.testid);
  const names = new Set([...Object.keys(before.attributes ?? {}), ...Object.keys(after.attributes ?? {})]);
  for (const n of [...names].sort()) cmp(`attributes.${n}`, before.attributes?.[n], after.attributes?.[n]);
  cmp('xpath', before.xpath, after.xpath);
  return out;
}

type PresentContext = { expectedSelector?: string; pageUrl?: string; occurredAt?: string; known?: KnownElement; verification?: Verification; baseUrl?: string };

/** One or two sentences a tester understands, concrete next steps, and the two sentences the console leads with. */
export function present(d: Diagnosis, ctx: PresentContext): Presentation {
  return { ...describe(d, ctx), ...plainWords(d, ctx) };
}

/** How a person names an element in a sentence: its words and a plain kind ("the button "Sign in""), never a selector. */
function plainLabel(fp: Fingerprint | undefined): string {
  if (!fp) return 'an element';
  const words = q(fp.accessible_name || fp.text, 40);
  const raw = fp.role ?? fp.tag;
  const kind = /^[a-z]+$/i.test(raw ?? '') ? ({ a: 'link', input: 'field', textbox: 'field', img: 'image', h1: 'heading', h2: 'heading', h3: 'heading' } as Record<string, string>)[raw!.toLowerCase()] ?? raw!.toLowerCase() : 'element';
  return words ? `the ${kind} "${words}"` : `a ${kind}`;
}

const stepWord = (d: Diagnosis) => (d.step ? `step ${d.step.index}` : 'the failing step');

/** A share of pixels (0..1) as a percentage. */
const pct = (ratio: unknown) => (typeof ratio === 'number' && Number.isFinite(ratio) ? `${(ratio * 100).toFixed(2)}%` : 'some');

/**
 * What changed and what to do, one sentence each, for the first thing a tester
 * reads: no selectors, scores, thresholds or API routes (those stay in the evidence).
 */
export function plainWords(d: Diagnosis, ctx: PresentContext): { summary: string; next_step: string } {
  const f = d.facts;
  const where = pathOf(ctx.pageUrl);
  const step = stepWord(d);
  const el = plainLabel(ctx.known?.fingerprint);
  switch (d.category) {
    case 'selector_changed': {
      const v = ctx.verification;
      const summary = f.found_instead ? `${cap(el)} on ${where} changed, so ${step} now finds another element in its place.` : `${cap(el)} on ${where} changed, so ${step} no longer finds it.`;
      if (f.ambiguous && !v?.verified) return { summary, next_step: `Several elements look like it: pick the right one in the evidence and update ${step}.` };
      if (v?.verified && v.selector) return { summary, next_step: `Apply the fix: it points ${step} at ${plainLabel(d.candidate)}, and a re-run with it passed.` };
      return { summary, next_step: `The closest match could not be confirmed: check ${plainLabel(d.candidate)} in the evidence and update ${step} by hand.` };
    }
    case 'element_missing':
      return { summary: `${cap(el)} is no longer on ${where}.`, next_step: `If it was removed on purpose, update ${step}; otherwise report it as a bug with the screenshot.` };
    case 'element_not_interactable': {
      const why = f.reason === 'hidden' ? 'hidden' : f.reason === 'disabled' ? 'disabled' : f.reason === 'covered' ? 'covered by something else' : 'not usable';
      return {
        summary: `${cap(el === 'an element' ? 'the element' : el)} on ${where} was ${why}, so ${step} could not use it.`,
        next_step: f.reason === 'covered' ? `Close or wait for what covers it before ${step}.` : f.reason === 'disabled' ? `Do what enables it first, or wait for it before ${step}.` : `Add a step that reveals it, or a wait, before ${step}.`,
      };
    }
    case 'assertion_mismatch':
      if (f.kind === 'variable') return { summary: `${cap(step)} uses a variable this run did not have.`, next_step: 'Add it to the project’s variables (or the run’s), then run again.' };
      return {
        summary: `${cap(step)} expected "${q(String(f.expected ?? ''), 60)}" but the page showed "${q(String(f.found ?? ''), 60)}".`,
        next_step: 'If the new content is right, update the expected value; otherwise report it as a bug.',
      };
    case 'visual_change':
      return {
        summary: `${cap(step)} found ${where} looking different from its approved screenshot (${pct(f.diff_ratio)} of the pixels changed).`,
        next_step: 'Compare the actual, expected and diff images: accept the new look as the baseline if it is intended, otherwise report it as a bug.',
      };
    case 'page_error':
      return { summary: `The app answered ${f.status ? `HTTP ${String(f.status)}` : 'with an error'} for ${pathOf(String(f.url ?? ctx.pageUrl ?? ''))} during ${step}.`, next_step: 'Check the app’s server log around the time of the run, then run it again.' };
    case 'network_error':
      return {
        summary: `The app at ${String(f.url ?? ctx.baseUrl ?? 'its address')} could not be reached.`,
        next_step: f.code === 'EGRESS_BLOCKED' ? 'Point the project at an address this installation may reach (ask the operator).' : 'Check that the app is running and reachable, then run again: the test itself is fine.',
      };
    case 'script_error': {
      const calls = (f.failed_calls as Array<{ method: string; url: string; status?: number }> | undefined) ?? [];
      return {
        summary: calls[0] ? `A request of the page (${calls[0].method} ${pathOf(calls[0].url)}) failed while ${step} ran.` : `The page’s own script failed while ${step} ran.`,
        next_step: 'Fix that in the app (its server log or the browser console in the evidence), then run again.',
      };
    }
    case 'timeout':
      if (f.kind === 'execution') return { summary: `The run went past its ${String(f.timeout_seconds ?? '')} s limit during ${step}.`, next_step: 'Give the run more time, or split the plan into smaller ones.' };
      if (f.kind === 'late_element') return { summary: `What ${step} waits for appeared, but too late.`, next_step: `Add a wait before ${step}, or find out why the page got slower.` };
      return { summary: `${where === 'the page' ? 'The page' : where} took too long to load during ${step}.`, next_step: 'Find the slow request in the trace, or give slow pages more time.' };
    case 'flaky': {
      const fl = f.flakiness as { runs: number; failed: number };
      return { summary: `This test sometimes passes and sometimes fails: ${fl.failed} of its last ${fl.runs} runs failed.`, next_step: `Make ${step} wait for what it needs instead of relying on timing.` };
    }
  }
}

/** Why the checks did not prove a candidate: the snapshot, the re-run, or (a possible one) the test without the step. */
function notProven(v: Verification | undefined, step: string): string {
  if (!v) return 'it was not verified';
  if (v.snapshot.status !== 'passed') return `it was not confirmed in the page at the failure (${v.snapshot.reason})`;
  if (v.rerun.status !== 'passed') return `a re-run with \`${v.selector}\` did not pass (${v.rerun.error ?? v.rerun.reason})`;
  if (v.control?.status === 'passed') return `a re-run with it passed, but so does the test without ${step}, so the pass proves nothing about the element`;
  return `its re-run passed, but the test could not be run without ${step} to show it needed the element (${v.control?.reason ?? 'not run'})`;
}

function describe(d: Diagnosis, ctx: PresentContext): Omit<Presentation, 'summary' | 'next_step'> {
  const sel = ctx.expectedSelector ? `\`${ctx.expectedSelector}\`` : 'its selector';
  const f = d.facts;
  const at = ctx.occurredAt ? new Date(ctx.occurredAt).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : 'the time of the run';
  switch (d.category) {
    case 'selector_changed': {
      const target = label(ctx.known?.fingerprint);
      const cand = label(d.candidate);
      const v = ctx.verification;
      // The selector may still find an element, only another one (drawn over, hidden), where the step could not act.
      const instead = f.found_instead as { reason?: string; element?: Fingerprint } | undefined;
      const lost = instead ? `now finds ${label(instead.element)} instead, which was ${instead.reason === 'covered' ? 'covered by something else' : instead.reason === 'hidden' ? 'hidden' : instead.reason === 'disabled' ? 'disabled' : 'not usable'}` : 'is no longer matched';
      if (f.ambiguous && !v?.verified) {
        const others = (d.relocation?.ranked ?? []).slice(0, 3).length;
        return {
          description: `${cap(target)} (${sel}) ${lost} on ${pathOf(ctx.pageUrl)}; ${others} elements resemble it and none stands out, so no selector is suggested.`,
          fix_suggestions: [
            `Look at the top candidates in the evidence and update ${stepRef(d)} by hand.`,
            `Give the element a stable data-testid so the next change does not break ${stepRef(d)}.`,
          ],
        };
      }
      if (v?.verified && v.selector) {
        // A possible pick: not sure by its resemblance, proven by a re-run the test needed.
        const needed = f.possible ? `; it resembles it less than a sure match, but the test fails without ${stepRef(d)}, so the passing re-run shows ${cand} does what the step did` : '';
        return {
          description: `${cap(target)} (${sel}) ${lost} on ${pathOf(ctx.pageUrl)}; ${cand} is the same element after a change, and the selector \`${v.selector}\` found it in the page at the failure and a re-run of the test with it passed${needed}.`,
          fix_suggestions: [
            `Replace ${sel} with \`${v.selector}\` in ${stepRef(d)}: Apply fix does it.`,
            ...(v.snapshot.kind !== 'test-id' ? ['Add a data-testid to the element: it survives redesigns better than any other selector.'] : []),
          ],
        };
      }
      return {
        description: `${cap(target)} (${sel}) ${lost} on ${pathOf(ctx.pageUrl)}; ${cand} resembles it most, but ${notProven(v, stepRef(d))}, so no selector is offered.`,
        fix_suggestions: [
          ...(v?.selector ? [`Check by hand whether \`${v.selector}\` is the element ${stepRef(d)} meant.`] : [`Update ${sel} in ${stepRef(d)} by hand.`]),
          `Give the element a stable data-testid.`,
        ],
      };
    }
    case 'element_missing': {
      const target = label(ctx.known?.fingerprint);
      const last = ctx.known?.source === 'history' && ctx.known.seen_at ? ` It was last seen passing on ${ctx.known.seen_at.slice(0, 10)} (execution ${ctx.known.execution_id}).` : '';
      // The scorer's reason (scores, thresholds) stays in the evidence: it is no sentence for a tester.
      const v = ctx.verification;
      // A possible stand-in that was tried and not proven: say what the re-runs showed.
      const tried = f.possible && v?.selector ? ` The closest element, ${label(d.candidate)}, was tried with \`${v.selector}\` and not offered: ${notProven(v, stepRef(d))}.` : '';
      return {
        description: `${cap(target)} (${sel}) is not on ${pathOf(ctx.pageUrl)} any more and nothing there can stand in for it.${last}${tried}`,
        fix_suggestions: [
          `If the element was removed on purpose, remove or rewrite ${stepRef(d)}.`,
          `Otherwise this is a regression: the page lost ${target}; report it with the screenshot.`,
        ],
      };
    }
    case 'element_not_interactable': {
      const why = f.reason === 'hidden' ? 'hidden' : f.reason === 'disabled' ? 'disabled' : f.reason === 'covered' ? `covered by ${String(f.covered_by ?? 'another element')}` : 'not actionable';
      const moved = f.moved ? ' (it moved: the closest match is disabled)' : '';
      return {
        description: `The element ${sel} is on the page but ${why}${moved}, so ${stepRef(d)} could not act on it.`,
        fix_suggestions: [
          f.reason === 'covered'
            ? `Close or wait out ${String(f.covered_by ?? 'the overlay')} before ${stepRef(d)}.`
            : f.reason === 'disabled'
              ? `Complete what enables it first (a required field, a checkbox) or wait for it to be enabled.`
              : `Add a step that reveals it (open the menu, expand the section) or a \`wait\` for ${sel} before ${stepRef(d)}.`,
          `If it should be usable at this point, this is a product bug.`,
        ],
      };
    }
    case 'assertion_mismatch': {
      if (f.kind === 'variable') {
        return {
          description: `${cap(stepRef(d))} uses a variable the run did not pass: ${q(d.error, 120)}.`,
          fix_suggestions: [`Pass it in "variables" when starting the execution, or remove the placeholder from ${stepRef(d)}.`],
        };
      }
      const what = f.kind === 'value' ? 'value' : 'text';
      return {
        description: `${cap(stepRef(d))} expected ${sel} to ${what === 'text' ? 'contain' : 'hold'} "${q(String(f.expected ?? ''), 120)}", but it showed "${q(String(f.found ?? ''), 120)}".`,
        fix_suggestions: [`If the change is intended, update the expected ${what} to "${q(String(f.found ?? ''), 200)}".`, `Otherwise the page shows the wrong ${what}: a product bug.`],
      };
    }
    case 'visual_change': {
      const regions = (f.regions as Array<{ x: number; y: number; width: number; height: number }> | undefined) ?? [];
      const boxes = regions.slice(0, 3).map((r) => `${r.width}x${r.height} at (${r.x},${r.y})`).join(', ');
      const size = f.size_changed ? ` Its size changed from ${(f.size_changed as { expected: string }).expected} to ${(f.size_changed as { actual: string }).actual}.` : '';
      return {
        description: `${cap(stepRef(d))} compared a screenshot${sel ? ` of ${sel}` : ''} with its baseline (${String(f.browser ?? 'chromium')} ${String(f.viewport ?? '')}): ${pct(f.diff_ratio)} of the pixels differ${regions.length ? ` in ${regions.length === 1 ? '1 region' : `${regions.length} regions`} (${boxes})` : ''}.${size}`,
        fix_suggestions: [
          'If the new look is intended, accept the failed run’s capture as the new baseline (POST /api/v1/screenshot-baselines, or Accept as new baseline in the run view).',
          'If dynamic content (dates, avatars, ads) caused it, add those selectors to the step’s mask.',
          'Otherwise the page’s look regressed: a product bug; the diff image shows where.',
        ],
      };
    }
    case 'page_error': {
      const status = f.status ? `HTTP ${String(f.status)}` : 'an error';
      const url = String(f.url ?? ctx.pageUrl ?? 'the page');
      return {
        description: `The page at ${url} answered ${status}${d.step ? ` during ${stepRef(d)}` : ''}, so the test could not go on.`,
        fix_suggestions: [`The page at ${url} answered ${status}: check the server log around ${at}.`, 'Re-run the test once the server answers again.'],
      };
    }
    case 'network_error': {
      const url = String(f.url ?? ctx.baseUrl ?? 'the target');
      return {
        description: `The target ${url} could not be reached: ${String(f.cause ?? 'a network error')}${f.code ? ` (${String(f.code)})` : ''}.`,
        fix_suggestions: [
          f.code === 'EGRESS_BLOCKED'
            ? `Point the test at an address this deployment allows: cloud metadata and link-local addresses are never reachable, loopback and private ones only where the operator allows them (EGRESS_ALLOW_LOOPBACK, EGRESS_ALLOW_PRIVATE, EGRESS_ALLOW_CIDRS).`
            : /DNS/.test(String(f.cause)) ? `Check the host name in the project's base URL (${ctx.baseUrl ?? url}).` : /TLS/.test(String(f.cause)) ? `Check the certificate of ${url}.` : `Check that the application at ${ctx.baseUrl ?? url} is up and reachable from the runner.`,
          'Nothing in the test needs to change.',
        ],
      };
    }
    case 'script_error': {
      const calls = (f.failed_calls as Array<{ method: string; url: string; status?: number; error?: string }> | undefined) ?? [];
      const errors = (f.page_errors as Array<{ message: string }> | undefined) ?? [];
      const first = calls[0] ? `${calls[0].method} ${calls[0].url} answered ${calls[0].status ?? calls[0].error}` : errors[0] ? `the page threw "${q(errors[0].message, 120)}"` : 'a script failed';
      const found = f.found !== undefined ? ` (it showed "${q(String(f.found), 80)}")` : '';
      return {
        description: `${cap(first)} while ${stepRef(d)} ran${found}; that explains why ${sel} was not as expected.`,
        fix_suggestions: [
          ...(calls[0] ? [`Fix the failing call ${calls[0].method} ${calls[0].url}: check the server log around ${at}.`] : []),
          ...(errors[0] ? [`Fix the uncaught error "${q(errors[0].message, 120)}" in the page's script.`] : []),
        ],
      };
    }
    case 'timeout': {
      if (f.kind === 'execution') {
        return {
          description: `The execution ran past its timeout of ${String(f.timeout_seconds ?? '?')} s while ${stepRef(d)} ran.`,
          fix_suggestions: ['Raise timeout_seconds for this plan, or split it into smaller plans.', 'Check whether the application became slower around this time.'],
        };
      }
      if (f.kind === 'late_element') {
        return {
          description: `The element ${sel} appeared, but only after ${stepRef(d)} had stopped waiting for it.`,
          fix_suggestions: [`Add a \`wait\` step for ${sel} with a longer timeout before ${stepRef(d)}.`, 'Check why the page became slower to show it.'],
        };
      }
      return {
        description: `The page at ${String(f.url ?? ctx.pageUrl ?? 'the target')} did not finish loading in time during ${stepRef(d)}.`,
        fix_suggestions: ['Check what keeps the page loading (a slow request) around the time of the run.', 'Raise NAVIGATION_TIMEOUT_MS if the page is slow by design.'],
      };
    }
    case 'flaky': {
      const fl = f.flakiness as { runs: number; passed: number; failed: number; flip_rate: number; band: string };
      return {
        description: `This test flips between passing and failing on the same plan, environment and test version: ${fl.passed} passes and ${fl.failed} failures in its last ${fl.runs} runs (flip rate ${Math.round(fl.flip_rate * 100)} %, ${fl.band}).`,
        fix_suggestions: [
          `Stabilise ${stepRef(d)}: wait for the state it needs instead of relying on timing.`,
          'It is not healed automatically: a flaky failure says nothing about the selector.',
        ],
      };
    }
  }
}

const cap = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);
