/* eslint-disable no-console -- a benchmark prints its figures */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CHROMIUM_PATH, launchChromium } from '@assay/browser';
import type { Step } from '@assay/steps';
import { bearer, call } from '@assay/testing';
import { startPair, type SwitchedApp } from '../healing-panel/apps.js';
import { recordCase, type ScriptCase } from '../healing-panel/record.js';
import { CACHE_DIR, HEALING_DIR, PAIRS, versionDir, type Pair } from '../healing-panel/pairs.js';
import { addTallies, changesBeyondSelectors, healedShare, isAbsent, labelFor, startOf, tally, type Label, type LabelFile, type StepOutcome, type Tally } from '../healing-panel/score.js';
import { removeAssayHome, startAssay, type Assay } from '../e2e/support/launcher.js';
import { judgeAtStep } from '../healing-panel/judge.js';
import { triedLines, tryCandidates, type Tried } from '../healing-panel/wrong-reruns.js';
import { load } from './rounds.js';

type Browser = Awaited<ReturnType<typeof launchChromium>>;

const oldOnly = () => Boolean(process.env.HEALING_OLD_ONLY);

/** Failure categories of a step whose element was not found as written. */
const LOCATOR_CATEGORIES = new Set(['selector_changed', 'element_missing']);
/** Rounds of run, analyse, apply on the new version (a case broken in several steps heals round after round). */
const ROUNDS = 4;

interface Api {
  (method: string, route: string, body?: unknown): Promise<{ status: number; body: any }>;
}

function apiOf(assay: Assay): Api {
  return (method, route, body) => call(assay.gatewayUrl, method, route, { headers: bearer(assay.serviceKey), ...(body !== undefined ? { body } : {}) });
}

async function must(api: Api, method: string, route: string, body?: unknown): Promise<any> {
  const r = await api(method, route, body);
  if (r.status >= 400) throw new Error(`${method} ${route}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

async function crawl(api: Api, project: string, url: string, pair: Pair): Promise<string> {
  const session = await must(api, 'POST', '/api/v1/discovery/start', { project_id: project, target_url: url, max_pages: pair.crawl.max_pages, max_depth: pair.crawl.max_depth, request_delay_ms: 0, interactive: true });
  const deadline = Date.now() + 600_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const p = await must(api, 'GET', `/api/v1/discovery/${session.session_id}/progress`);
    if (p.status === 'completed') return session.session_id as string;
    if (p.status !== 'running') throw new Error(`the crawl ended ${p.status}: ${p.error ?? ''}`);
    if (Date.now() > deadline) throw new Error('the crawl did not end within 10 minutes');
  }
}

/** Runs the cases as a plan of their own; answers each case's result by id. */
async function runCases(api: Api, project: string, ids: string[], name: string): Promise<{ id: string; results: Map<string, { status: string; error?: string }> }> {
  const plan = await must(api, 'POST', '/api/v1/test-plans', { project_id: project, name, test_case_ids: ids });
  const run = await must(api, 'POST', '/api/v1/executions', { project_id: project, test_plan_id: plan.id, timeout_seconds: 900 });
  const results = new Map<string, { status: string; error?: string }>();
  for (const r of run.results?.test_results ?? []) results.set(r.test_id, r);
  return { id: run.id, results };
}

async function analysisOf(api: Api, execution: string): Promise<any[]> {
  const deadline = Date.now() + 900_000;
  for (;;) {
    const r = await api('GET', `/api/v1/executions/${execution}/failure-analysis`);
    if (r.status === 200) {
      if (r.body.status === 'failed') throw new Error(`the analysis of ${execution} failed: ${r.body.error}`);
      return r.body.analysis;
    }
    if (Date.now() > deadline) throw new Error(`the analysis of ${execution} was not ready after 15 minutes`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

interface CaseState {
  id: string;
  name: string;
  start: string;
  /** Step ids healed so far, with the selector applied. */
  healed: Map<string, string>;
}

export interface PairRun {
  pair: Pair;
  generated: number;
  /** Cases recorded from the pair's script, and the scripted cases the recorder could not make (why). */
  recorded: number;
  refused: string[];
  droppedOld: number;
  kept: number;
  unbroken: number;
  outcomes: StepOutcome[];
  /** Failures that are not a locator step (an assertion, a page error…), one line each. */
  otherFailures: string[];
  /** Lines of "a suggestion changed more than selectors". */
  valueChanges: string[];
  /** Cases that still failed at a step already healed (the heal did not hold in the run). */
  notHeld: string[];
  /** Steps never reached (after a step left failing). */
  error?: string;
  labelsMissing: boolean;
  /** HEALING_WRONG_RERUNS=1: each broken step's candidates tried in its place, judged, and run (wrong-reruns.ts). */
  tried?: Tried[];
}

function loadLabels(pair: Pair): Label[] | undefined {
  const file = path.join(HEALING_DIR, pair.name, 'labels.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as LabelFile).labels;
}

function describeLeft(item: any): string {
  const e = item.evidence ?? {};
  const v = e.verification;
  if (v && !v.verified) {
    const rerun = `re-run ${v.rerun?.status}${v.rerun?.reason ? `: ${v.rerun.reason}` : ''}${v.rerun?.error ? `: ${String(v.rerun.error).slice(0, 120)}` : ''}${v.stopped ? `; went no further at ${v.stopped}` : ''}`;
    return `verification failed (${v.snapshot?.status === 'passed' ? rerun : `snapshot ${v.snapshot?.status}${v.snapshot?.reason ? `: ${v.snapshot.reason}` : ''}; ${rerun}`})`;
  }
  if (item.failure_category === 'element_missing') return `no pick: ${e.reason ?? e.relocation ?? 'nothing close enough'}${e.candidates?.[0] ? ` (best ${e.candidates[0].tag} "${String(e.candidates[0].text ?? '').slice(0, 40)}" ${e.candidates[0].score})` : ''}`;
  return `${item.failure_category}${e.relocation ? `: ${e.relocation}` : ''}`;
}

/** One pair through the product: generate and keep on the old version, then run, analyse and apply on the new. */
async function runPair(api: Api, browser: Browser, pair: Pair, app: SwitchedApp): Promise<PairRun & { finalSteps: Map<string, Step[]>; states: Map<string, CaseState> }> {
  const labels = loadLabels(pair) ?? [];
  const out: PairRun & { finalSteps: Map<string, Step[]>; states: Map<string, CaseState> } = { pair, generated: 0, recorded: 0, refused: [], droppedOld: 0, kept: 0, unbroken: 0, outcomes: [], otherFailures: [], valueChanges: [], notHeld: [], labelsMissing: !loadLabels(pair), finalSteps: new Map(), states: new Map() };
  const project = await must(api, 'POST', '/api/v1/projects', { name: `Healing ${pair.name}`, base_url: app.url });
  const session = await crawl(api, project.id, app.url, pair);
  const plan = await must(api, 'POST', '/api/v1/test-plans', { project_id: project.id, name: 'Generated' });
  const generated = await api('POST', `/api/v1/discovery/${session}/generate-test-cases`, { test_plan_id: plan.id });
  const ids: string[] = [];
  if (generated.status === 409) {
    const results = await must(api, 'GET', `/api/v1/discovery/${session}/results`);
    out.otherFailures.push(`no case generated (409: ${String(generated.body?.message ?? '')}); the crawl found ${results.pages?.length ?? 0} pages, ${results.flows?.length ?? 0} flows`);
  } else if (generated.status >= 400) throw new Error(`generate-test-cases: ${generated.status} ${JSON.stringify(generated.body).slice(0, 300)}`);
  else ids.push(...generated.body.test_cases.map((c: { id: string }) => c.id));
  out.generated = ids.length;
  // Recorded cases: the pair's script (cases.json) through Assay's recorder.
  const scriptFile = path.join(HEALING_DIR, pair.name, 'cases.json');
  const scripts = existsSync(scriptFile) ? (JSON.parse(readFileSync(scriptFile, 'utf8')) as ScriptCase[]) : [];
  for (const script of scripts) {
    const made = await recordCase(api, browser, project.id, app.url, script);
    if (made.id) ids.push(made.id);
    else out.refused.push(`${script.name}: ${made.refused}`);
  }
  out.recorded = ids.length - out.generated;
  if (!ids.length) return out;
  // Kept: the cases that pass on the old version three times (twice to keep, once more as the plan the new version runs).
  let kept = ids;
  for (let i = 0; i < 2; i++) {
    const r = await runCases(api, project.id, kept, `Old ${i + 1}`);
    kept = kept.filter((id) => r.results.get(id)?.status === 'passed');
  }
  out.droppedOld = ids.length - kept.length;
  out.kept = kept.length;
  if (!kept.length) return out;
  for (const id of kept) {
    const c = await must(api, 'GET', `/api/v1/test-cases/${id}`);
    const nav = (c.steps as Step[]).find((s) => s.action === 'navigate');
    out.states.set(id, { id, name: c.name, start: startOf(nav?.value, app.url), healed: new Map() });
  }

  // HEALING_OLD_ONLY=1: the cases as made and kept on the old version, listed; the new version is not run.
  if (oldOnly()) {
    const listed: Array<{ name: string; start: string; steps: Step[] }> = [];
    for (const id of kept) {
      const c = await must(api, 'GET', `/api/v1/test-cases/${id}`);
      listed.push({ name: c.name, start: out.states.get(id)!.start, steps: c.steps });
      console.log(`  kept: ${c.name} (start ${out.states.get(id)!.start})`);
      for (const [i, st] of (c.steps as Step[]).entries()) console.log(`    ${i + 1}. ${st.action}${st.selector ? ` ${st.selector}` : ''}${st.value !== undefined ? ` = ${JSON.stringify(st.value).slice(0, 80)}` : ''}`);
    }
    // With HEALING_DUMP, the kept cases as JSON too, for tests/healing-panel/breaks.ts.
    if (process.env.HEALING_DUMP) {
      mkdirSync(process.env.HEALING_DUMP, { recursive: true });
      writeFileSync(path.join(process.env.HEALING_DUMP, `${pair.name}-kept.json`), JSON.stringify(listed, null, 2));
    }
    return out;
  }
  app.toNew();
  let pending = kept;
  for (let round = 1; round <= ROUNDS && pending.length; round++) {
    const run = await runCases(api, project.id, pending, `New, round ${round}`);
    const failed = pending.filter((id) => run.results.get(id)?.status !== 'passed');
    if (round === 1) out.unbroken = pending.length - failed.length;
    const next: string[] = [];
    if (failed.length) {
      const items = new Map((await analysisOf(api, run.id)).map((i) => [i.test_id as string, i]));
      for (const id of failed) {
        const state = out.states.get(id)!;
        const item = items.get(id);
        // HEALING_DUMP=<dir>: each failure's analysis item as JSON, to read why a step was missed.
        if (process.env.HEALING_DUMP && item) {
          mkdirSync(process.env.HEALING_DUMP, { recursive: true });
          writeFileSync(path.join(process.env.HEALING_DUMP, `${pair.name}-round${round}-${state.name.replace(/[^\w-]+/g, '_')}.json`), JSON.stringify(item, null, 2));
        }
        const e = item?.evidence ?? {};
        const index: number | undefined = e.failed_step?.index;
        const stepId: string | undefined = e.failed_step?.step_id;
        if (!item || !index || !e.expected_selector || !LOCATOR_CATEGORIES.has(item.failure_category)) {
          out.otherFailures.push(`${state.name}: ${item ? `${item.failure_category} at step ${index ?? '?'}` : 'no analysis item'}: ${String(run.results.get(id)?.error ?? '').slice(0, 160)}`);
          continue;
        }
        if (stepId && state.healed.has(stepId)) {
          out.notHeld.push(`${state.name}: step ${index} (healed to ${state.healed.get(stepId)}) failed again: ${String(run.results.get(id)?.error ?? '').slice(0, 160)}`);
          continue;
        }
        if (round === 1 && process.env.HEALING_WRONG_RERUNS) {
          const steps = (await must(api, 'GET', `/api/v1/test-cases/${id}`)).steps as Step[];
          const runCase = async (caseId: string) => (await runCases(api, project.id, [caseId], `Candidate of ${state.name}`)).results.get(caseId)?.status ?? 'none';
          (out.tried ??= []).push(...(await tryCandidates(api, browser, { project: project.id, baseUrl: app.url, caseName: state.name, start: state.start, steps, index, evidence: e, labels, runCase })));
        }
        const broken = { case: state.name, step: index, action: e.failed_step.action as string, old_selector: e.expected_selector as string, start: state.start };
        const label = (sel: string) => labelFor(labels, sel, state.start, state.name);
        if (!e.suggested_alternative) {
          out.outcomes.push({ ...broken, kind: 'left', ...(label(broken.old_selector) ? { label: label(broken.old_selector)! } : {}), reason: describeLeft(item) });
          continue;
        }
        const before = (await must(api, 'GET', `/api/v1/test-cases/${id}`)).steps as Step[];
        const applied = await api('POST', `/api/v1/executions/${run.id}/failure-analysis/${id}/apply`);
        if (applied.status !== 200) {
          out.outcomes.push({ ...broken, kind: 'left', ...(label(broken.old_selector) ? { label: label(broken.old_selector)! } : {}), reason: `apply answered ${applied.status}` });
          continue;
        }
        const further: Array<{ index: number; step_id: string; expected_selector: string; selector: string }> = e.verification?.further_steps ?? [];
        const allowed = new Map<string, string>();
        for (const s of before) {
          if (s.selector === broken.old_selector) allowed.set(s.step_id, e.suggested_alternative);
          for (const f of further) if (s.selector === f.expected_selector) allowed.set(s.step_id, f.selector);
        }
        const after = applied.body.test_case.steps as Step[];
        for (const c of changesBeyondSelectors(before as never, after as never, allowed)) out.valueChanges.push(`${state.name}: ${c}`);
        out.outcomes.push({ ...broken, kind: 'healed', suggested: e.suggested_alternative, ...(label(broken.old_selector) ? { label: label(broken.old_selector)! } : {}) });
        for (const f of further) {
          const action = before[f.index - 1]?.action ?? '?';
          out.outcomes.push({ case: state.name, step: f.index, action, old_selector: f.expected_selector, start: state.start, kind: 'healed', suggested: f.selector, ...(label(f.expected_selector) ? { label: label(f.expected_selector)! } : {}) });
        }
        for (const [sid, sel] of allowed) state.healed.set(sid, sel);
        next.push(id);
      }
    }
    pending = next;
  }
  for (const id of kept) out.finalSteps.set(id, (await must(api, 'GET', `/api/v1/test-cases/${id}`)).steps as Step[]);
  return out;
}

/**
 * Judges each healed step against its label in the new version: the case's
 * steps (as healed) replayed by the step engine up to the step, then the
 * element the suggested selector finds must be one the label's selector finds
 * (or inside one), both found again until neither was re-rendered between
 * the look-ups (judge.ts).
 */
async function judge(browser: Browser, run: PairRun & { finalSteps: Map<string, Step[]>; states: Map<string, CaseState> }, baseUrl: string): Promise<void> {
  const byName = new Map([...run.states.values()].map((s) => [s.name, s.id]));
  for (const o of run.outcomes) {
    if (o.kind !== 'healed' || !o.label || isAbsent(o.label) || !o.suggested) continue;
    const steps = run.finalSteps.get(byName.get(o.case) ?? '');
    if (!steps) {
      o.verdict = 'unjudged';
      o.reason = 'the case is gone';
      continue;
    }
    const judged = await judgeAtStep(browser, baseUrl, steps.slice(0, o.step - 1), o.suggested, o.label.right);
    o.verdict = judged.verdict;
    if (judged.reason) o.reason = judged.reason;
  }
}

const pct = (x: number | null) => (x === null ? '-' : `${x.toFixed(1)} %`);

function tallyLine(name: string, t: Tally, extra: { valueChanges: number }): string {
  return `  ${name.padEnd(12)} broken ${t.broken}, healed+verified ${t.healed} (right ${t.right}, wrong ${t.wrong}, unjudged ${t.unjudged}), healed ${pct(healedShare(t))} of the ${t.present} whose element is there; left failing ${t.leftGone + t.leftMissed} (real reason ${t.leftGone}, miss ${t.leftMissed}); unlabelled ${t.unlabelled}; expected values changed ${extra.valueChanges}`;
}

function printPair(r: PairRun, listBroken: boolean): void {
  const t = tally(r.outcomes);
  console.log(`${r.pair.name} (${r.pair.package} ${r.pair.old} -> ${r.pair.new})${r.pair.heldOut ? ' [held out]' : ''}: generated ${r.generated}, recorded ${r.recorded}, dropped on the old version ${r.droppedOld}, kept ${r.kept}, unbroken on the new ${r.unbroken}${r.labelsMissing ? ' (NO labels.json)' : ''}`);
  console.log(tallyLine('', t, { valueChanges: r.valueChanges.length }));
  for (const o of r.outcomes) {
    const verdict = o.kind === 'healed' ? `healed -> ${o.suggested} [${o.label ? (isAbsent(o.label) ? `WRONG: label says ${o.label.right}` : o.verdict) : 'unlabelled'}]` : `left failing [${o.label ? (isAbsent(o.label) ? `real reason: ${o.label.right}` : `miss, label ${o.label.right}`) : 'unlabelled'}]`;
    console.log(`    ${o.case.slice(0, 60)} step ${o.step} ${o.action} ${o.old_selector} (start ${o.start}): ${verdict}${o.reason ? `; ${o.reason}` : ''}`);
  }
  for (const l of r.refused) console.log(`    not recorded: ${l}`);
  for (const l of r.otherFailures) console.log(`    other failure: ${l}`);
  for (const l of r.notHeld) console.log(`    HEAL NOT HELD: ${l}`);
  for (const l of r.valueChanges) console.log(`    EXPECTED VALUE CHANGED: ${l}`);
  if (r.error) console.log(`    ERROR: ${r.error}`);
  if (r.tried) for (const l of triedLines(r.tried)) console.log(l);
  if (listBroken) {
    const unlabelled = r.outcomes.filter((o) => !o.label);
    const seen = new Set<string>();
    for (const o of unlabelled) {
      const key = `${o.start}\u0000${o.old_selector}`;
      if (seen.has(key)) continue;
      seen.add(key);
      console.log(`    TO LABEL ${JSON.stringify({ start: o.start, old_selector: o.old_selector, right: '?', why: `${o.case}, step ${o.step} ${o.action}` })}`);
    }
  }
}

/**
 * `healing`: Assay's own cases, generated by discovery on the old version of a
 * real npm app, run on the new version through the product (runner, failure
 * analysis with its verification re-runs, apply), round after round; each
 * broken locator step judged against labels written by hand
 * (tests/healing-panel/<pair>/labels.json). Pairs: tests/healing-panel/pairs.ts,
 * installed by `make healing-setup`. HEALING_PAIRS=a,b runs some; HEALING_DUMP=<dir>
 * writes each failure's analysis item there; HEALING_OLD_ONLY=1 only makes, keeps
 * and lists the cases on the old versions (what labels will be needed for);
 * `--list-broken` (or HEALING_LIST_BROKEN=1) prints the broken steps without a label;
 * HEALING_WRONG_RERUNS=1 also tries each broken step's ranked candidates in its place and
 * runs the case with each (how often a re-run passes with a wrong element: wrong-reruns.ts).
 */
export async function benchHealing(): Promise<void> {
  const wanted = (process.env.HEALING_PAIRS ?? '').split(',').filter(Boolean);
  const listBroken = process.argv.includes('--list-broken') || Boolean(process.env.HEALING_LIST_BROKEN);
  const pairs = PAIRS.filter((p) => !wanted.length || wanted.includes(p.name));
  for (const p of pairs) {
    for (const v of [p.old, p.new]) if (!existsSync(path.join(versionDir(p.package, v, p.install), 'package.json'))) throw new Error(`${p.package}@${v} is not in ${CACHE_DIR}: run make healing-setup`);
  }
  const loadBefore = load();
  console.log(`healing: ${pairs.length} pairs (${pairs.map((p) => p.name).join(', ')}), load ${loadBefore}, ${new Date().toISOString()}`);
  // The analysis may re-run more failed cases of one execution than its default budget (10) while it verifies.
  const assay = await startAssay({ env: { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', ANALYSIS_MAX_RERUNS: '60' } });
  const api = apiOf(assay);
  const runs: PairRun[] = [];
  let browser: Browser | undefined;
  try {
    for (const pair of pairs) {
      const app = await startPair(pair);
      let run: Awaited<ReturnType<typeof runPair>> | undefined;
      try {
        browser ??= await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
        run = await runPair(api, browser, pair, app);
        if (!oldOnly()) await judge(browser, run, app.url);
      } catch (err) {
        run = { pair, generated: 0, recorded: 0, refused: [], droppedOld: 0, kept: 0, unbroken: 0, outcomes: run?.outcomes ?? [], otherFailures: [], valueChanges: [], notHeld: [], labelsMissing: !loadLabels(pair), finalSteps: new Map(), states: new Map(), error: err instanceof Error ? err.message : String(err) };
      } finally {
        await app.close();
      }
      runs.push(run);
      printPair(run, listBroken);
    }
  } finally {
    await browser?.close();
    await assay.stop();
    await removeAssayHome(assay.home);
  }
  const empty = tally([]);
  for (const [title, group] of [
    ['total (pairs not held out)', runs.filter((r) => !r.pair.heldOut)],
    ['held out', runs.filter((r) => r.pair.heldOut)],
  ] as const) {
    if (!group.length) continue;
    const t = group.reduce((acc, r) => addTallies(acc, tally(r.outcomes)), empty);
    console.log(`${title}: ${group.map((r) => r.pair.name).join(', ')}`);
    console.log(tallyLine('', t, { valueChanges: group.reduce((n, r) => n + r.valueChanges.length, 0) }));
    console.log(`  cases: generated ${group.reduce((n, r) => n + r.generated, 0)}, recorded ${group.reduce((n, r) => n + r.recorded, 0)} (not recorded ${group.reduce((n, r) => n + r.refused.length, 0)}), dropped on the old version ${group.reduce((n, r) => n + r.droppedOld, 0)}, kept ${group.reduce((n, r) => n + r.kept, 0)}, unbroken ${group.reduce((n, r) => n + r.unbroken, 0)}; other failures ${group.reduce((n, r) => n + r.otherFailures.length, 0)}; heals not held in the run ${group.reduce((n, r) => n + r.notHeld.length, 0)}`);
  }
  if (runs.some((r) => r.tried)) for (const l of triedLines(runs.flatMap((r) => r.tried ?? [])).slice(-2)) console.log(`all pairs: ${l.trim()}`);
  console.log(`  target: >= 80 % of broken locator steps healed and verified, 0 wrong heals, 0 expected values changed; load before ${loadBefore}, after ${load()}`);
}
