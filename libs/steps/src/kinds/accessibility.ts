import { AxeBuilder } from '@axe-core/playwright';
import { IMPACTS, parseAccessibilityCheck, type Impact } from '@assay/contracts';
import type { StepKind } from '../context.js';
import { visible } from '../elements.js';
import { StepError } from '../step-error.js';
import { firstLine } from '../values.js';

/** One accessibility violation as a failed step reports it. */
export interface AccessibilityViolation {
  rule: string;
  impact: Impact | null;
  help: string;
  help_url: string;
  /** The CSS selectors of the failing nodes (at most 10). */
  nodes: string[];
}

/**
 * Runs axe-core (`@axe-core/playwright`) in the page, on the element (once
 * visible) or the whole page, with the standard's rule tags; fails on every
 * violation at or above the impact level, naming each rule, its impact, its
 * help URL and the nodes.
 */
export const assertAccessible: StepKind = {
  async run(ctx, step) {
    const check = parseAccessibilityCheck(step.value);
    if ('error' in check) throw new StepError(`assert_accessible value ${check.error}`, 'error');
    if (step.selector) await visible(ctx.page, step.selector, ctx.stepTimeoutMs);
    let builder = new AxeBuilder({ page: ctx.page }).withTags([...check.tags]);
    if (step.selector) builder = builder.include(step.selector);
    const started = Date.now();
    let results;
    try {
      results = await builder.analyze();
    } catch (err) {
      throw new StepError(`The accessibility scan failed: ${firstLine(err)}`, 'error');
    }
    ctx.profile?.add('axe', Date.now() - started);
    const floor = IMPACTS.indexOf(check.minImpact);
    const violations: AccessibilityViolation[] = results.violations
      .filter((v) => IMPACTS.indexOf((v.impact ?? 'minor') as Impact) >= floor)
      .map((v) => ({
        rule: v.id,
        impact: (v.impact ?? null) as Impact | null,
        help: v.help,
        help_url: v.helpUrl,
        nodes: v.nodes.slice(0, 10).map((n) => n.target.map(String).join(' >>> ')),
      }));
    if (violations.length === 0) return {};
    const lines = violations.map((v) => `${v.rule} (${v.impact ?? 'unknown'}): ${v.help} [${v.help_url}] at ${v.nodes.join(', ')}`);
    throw new StepError(`${violations.length} accessibility violation${violations.length === 1 ? '' : 's'} (${check.standard}, ${check.minImpact} or worse): ${lines.join('; ')}`, 'assertion_failed');
  },
};
