// The pure parts of the healing bench: which hand-written label a broken step
// has, whether applying a suggestion changed anything but selectors, and the
// counts printed per pair. No browser, no service: score.test.ts checks them.
import { isDeepStrictEqual } from 'node:util';

/** A hand-written label: the element a broken step means, in the new version. */
export interface Label {
  /** The path (and hash) the case opens with its first navigation; `*` for any. */
  start: string;
  /** The selector the case had on the old version. */
  old_selector: string;
  /**
   * The case's name, when two cases break at the same selector from the same
   * start but mean different elements (a search result and the menu item with
   * the same name); a label without it holds for every case.
   */
  case?: string;
  /**
   * A selector of the right element in the new version's page, verified by
   * hand; `gone` when the feature is gone; `changed` when the element is there
   * but what the step asserts of it changed (its text), so no selector can
   * make the step pass without changing an expected value.
   */
  right: string;
  /** What was looked at. */
  why?: string;
}

export interface LabelFile {
  package: string;
  old: string;
  new: string;
  labels: Label[];
}

/** A label saying the step cannot pass on the new version as written: leaving it failing is right. */
export const isAbsent = (l: Label | undefined) => l?.right === 'gone' || l?.right === 'changed';

/** The label of (old selector, start path, case): the case's own first, then an exact start, then `*`. */
export function labelFor(labels: Label[], oldSelector: string, start: string, caseName?: string): Label | undefined {
  const mine = labels.filter((l) => l.old_selector === oldSelector && (l.case === undefined || l.case === caseName));
  const pick = (list: Label[]) => list.find((l) => l.start === start) ?? list.find((l) => l.start === '*');
  return pick(mine.filter((l) => l.case !== undefined)) ?? pick(mine.filter((l) => l.case === undefined));
}

/** The path and hash a URL opens, relative to the app (the key part that does not hold a port). */
export function startOf(url: string | undefined, base: string): string {
  if (!url) return '/';
  try {
    const u = new URL(url, base);
    return `${u.pathname}${u.hash}`;
  } catch {
    return url;
  }
}

export interface StepLike {
  step_id: string;
  selector?: string;
  [field: string]: unknown;
}

/**
 * What applying a suggestion changed beyond the selectors it names: `allowed`
 * maps a step id to the selector it may now have. Answers one line per
 * difference (a field other than `selector`, a selector not allowed, a step
 * added, removed or moved); empty when only allowed selectors changed.
 */
export function changesBeyondSelectors(before: StepLike[], after: StepLike[], allowed: Map<string, string>): string[] {
  const out: string[] = [];
  if (before.length !== after.length) out.push(`steps ${before.length} -> ${after.length}`);
  for (let i = 0; i < Math.min(before.length, after.length); i++) {
    const b = before[i]!;
    const a = after[i]!;
    if (a.step_id !== b.step_id) {
      out.push(`step ${i + 1}: id ${b.step_id} -> ${a.step_id}`);
      continue;
    }
    const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const f of fields) {
      if (f === 'selector') continue;
      if (!isDeepStrictEqual(a[f], b[f])) out.push(`step ${i + 1}: ${f} ${JSON.stringify(b[f])} -> ${JSON.stringify(a[f])}`);
    }
    if (a.selector !== b.selector && allowed.get(a.step_id) !== a.selector) out.push(`step ${i + 1}: selector ${JSON.stringify(b.selector)} -> ${JSON.stringify(a.selector)} not suggested`);
  }
  return out;
}

/** One broken locator step and what became of it. */
export interface StepOutcome {
  case: string;
  /** 1-based. */
  step: number;
  action: string;
  old_selector: string;
  start: string;
  /** Healed: a verified suggestion, applied. Left: the case still fails there. */
  kind: 'healed' | 'left';
  suggested?: string;
  label?: Label;
  /** Healed steps, judged against the label in the new version's page. */
  verdict?: 'right' | 'wrong' | 'unjudged';
  /** Why a step was left failing (the analysis's category and reason), or why it was not judged. */
  reason?: string;
}

export interface Tally {
  broken: number;
  healed: number;
  right: number;
  wrong: number;
  unjudged: number;
  /** Left failing where the label says the element is gone or what it asserts changed: right to leave it. */
  leftGone: number;
  /** Left failing although the element is there (a miss). */
  leftMissed: number;
  /** Broken steps without a label (heal or not): not judged. */
  unlabelled: number;
  /** Broken steps whose element the label says is still there. */
  present: number;
}

/**
 * The counts of a pair (or a total). A healed step is wrong when its label
 * says the element is gone (or its asserted text changed), or when the judge found another element; a step
 * with no label is counted, never judged right.
 */
export function tally(outcomes: StepOutcome[]): Tally {
  const t: Tally = { broken: 0, healed: 0, right: 0, wrong: 0, unjudged: 0, leftGone: 0, leftMissed: 0, unlabelled: 0, present: 0 };
  for (const o of outcomes) {
    t.broken++;
    const gone = isAbsent(o.label);
    if (!o.label) t.unlabelled++;
    else if (!gone) t.present++;
    if (o.kind === 'healed') {
      t.healed++;
      if (gone || o.verdict === 'wrong') t.wrong++;
      else if (o.label && o.verdict === 'right') t.right++;
      else t.unjudged++;
    } else if (gone) t.leftGone++;
    else t.leftMissed++;
  }
  return t;
}

/** Right heals of the broken steps whose element is still there, in %; null when there is none. */
export function healedShare(t: Tally): number | null {
  return t.present ? (100 * t.right) / t.present : null;
}

export function addTallies(a: Tally, b: Tally): Tally {
  const out = { ...a };
  for (const k of Object.keys(b) as Array<keyof Tally>) out[k] += b[k];
  return out;
}
