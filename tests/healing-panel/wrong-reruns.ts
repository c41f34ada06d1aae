// How much a verification re-run proves: for a broken step, each of the
// analysis' ranked candidates is tried in its place (the case's other broken
// steps set to their labelled right selectors), the case is run through the
// product, and the candidate is judged against the step's label. A wrong
// candidate whose re-run passes is one a re-run alone would have let through.
// The control: the same case with the broken step left out. When it passes
// too, the case's later steps did not need the step's effect, and a passing
// re-run says nothing about the candidate (its re-run is not informative).
// `HEALING_WRONG_RERUNS=1 make bench BENCH=healing`: measures, applies nothing.
import type { launchChromium } from '@assay/browser';
import type { Step } from '@assay/steps';
import { judgeAtStep } from './judge.js';
import { isAbsent, labelFor, type Label } from './score.js';

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Api = (method: string, route: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** One candidate tried in a broken step's place. */
export interface Tried {
  case: string;
  step: number;
  old_selector: string;
  rank: number;
  score: number;
  selector: string;
  verdict: 'right' | 'wrong' | 'unjudged';
  /** The case's run with the candidate in the step's place (and the labels in the others'). */
  rerun: 'passed' | 'failed' | 'not run';
  /** The case run with the broken step left out (the same for every candidate of the step). */
  control: 'passed' | 'failed' | 'not run';
  why?: string;
}

/** How many of the ranked candidates are tried per broken step. */
const TRIED = 4;

/**
 * The candidates of one broken step (the analysis item's evidence), tried.
 * Nothing is tried when another step of the case cannot pass as labelled
 * (gone, changed or unlabelled): its re-run would fail whatever the candidate.
 */
export async function tryCandidates(
  api: Api,
  browser: Browser,
  o: { project: string; baseUrl: string; caseName: string; start: string; steps: Step[]; index: number; evidence: any; labels: Label[]; runCase: (id: string) => Promise<string> },
): Promise<Tried[]> {
  const label = (sel: string) => labelFor(o.labels, sel, o.start, o.caseName);
  const own = label(o.evidence.expected_selector);
  const out: Tried[] = [];
  const candidates = ((o.evidence.candidates ?? []) as Array<{ rank: number; score: number; selector_hint?: string | null }>).filter((c) => c.selector_hint).slice(0, TRIED);
  const labelled = (s: Step) => {
    const l = s.selector ? label(s.selector) : undefined;
    return l && !isAbsent(l) ? { ...s, selector: l.right } : s;
  };
  const save = async (name: string, steps: Step[]) => api('POST', '/api/v1/test-cases', { project_id: o.project, name, steps: steps.map(({ step_id: _id, ...s }) => s) });
  // The control: the case without the broken step (the other steps labelled), run once for all its candidates.
  let control: Tried['control'] = 'not run';
  if (candidates.length) {
    const without = o.steps.filter((_, i) => i !== o.index - 1).map(labelled);
    const made = await save(`${o.caseName} (without step ${o.index})`, without);
    if (made.status === 201) control = (await o.runCase(made.body.id as string)) === 'passed' ? 'passed' : 'failed';
  }
  for (const c of candidates) {
    const tried: Tried = { case: o.caseName, step: o.index, old_selector: o.evidence.expected_selector, rank: c.rank, score: c.score, selector: c.selector_hint!, verdict: 'unjudged', rerun: 'not run', control };
    out.push(tried);
    // The steps with the candidate at the broken one and the labelled selectors elsewhere.
    let blocked: string | undefined;
    const steps = o.steps.map((s, i) => {
      if (i === o.index - 1) return { ...s, selector: c.selector_hint! };
      const l = s.selector ? label(s.selector) : undefined;
      if (l && isAbsent(l) && i > o.index - 1) blocked = `step ${i + 1} is labelled ${l.right}`;
      return labelled(s);
    });
    // The judge: the steps before it replayed in a page of the new version, then the candidate against the label.
    if (!own) tried.why = 'the step has no label';
    else if (isAbsent(own)) tried.verdict = 'wrong';
    else {
      const judged = await judgeAtStep(browser, o.baseUrl, steps.slice(0, o.index - 1), c.selector_hint!, own.right);
      tried.verdict = judged.verdict;
      if (judged.reason) tried.why = judged.reason;
    }
    if (blocked) {
      tried.why = `${tried.why ? `${tried.why}; ` : ''}not run: ${blocked}`;
      continue;
    }
    const made = await save(`${o.caseName} (candidate ${c.rank} at step ${o.index})`, steps);
    if (made.status !== 201) {
      tried.why = `not run: the case was not saved (${made.status})`;
      continue;
    }
    tried.rerun = (await o.runCase(made.body.id as string)) === 'passed' ? 'passed' : 'failed';
  }
  return out;
}

/** The lines the bench prints: every candidate tried, then how often a re-run passed with a right and a wrong one. */
export function triedLines(all: Tried[]): string[] {
  const lines = all.map((t) => `    tried ${t.case.slice(0, 50)} step ${t.step} candidate ${t.rank} (${t.score}) ${t.selector}: ${t.verdict}, re-run ${t.rerun}, without the step ${t.control}${t.why ? ` (${t.why})` : ''}`);
  const run = all.filter((t) => t.rerun !== 'not run');
  const informative = (t: Tried) => t.rerun === 'passed' && t.control === 'failed';
  const of = (v: Tried['verdict']) => run.filter((t) => t.verdict === v);
  lines.push(
    `  re-runs with a candidate in a broken step's place: ${run.length} (of ${all.length} tried); right candidates ${of('right').length}, their re-run passed ${of('right').filter((t) => t.rerun === 'passed').length}; wrong candidates ${of('wrong').length}, their re-run passed ${of('wrong').filter((t) => t.rerun === 'passed').length}; unjudged ${of('unjudged').length}`,
    `  informative re-runs (passed where the case without the step failed): right ${of('right').filter(informative).length} of ${of('right').length}, wrong ${of('wrong').filter(informative).length} of ${of('wrong').length}`,
  );
  return lines;
}
