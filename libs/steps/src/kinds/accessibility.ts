import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
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
 * Runs axe-core (`@axe-core/playwright`) in the page (or inside `include`)
 * with the rule tags, and answers the violations at or above `minImpact`,
 * each with at most 10 node selectors. The one scan of `assert_accessible`
 * and of discovery's `accessibility: true`.
 * @throws Error when axe cannot run in the page.
 */
export async function scanAccessibility(page: Page, o: { tags: readonly string[]; minImpact: Impact; include?: string }): Promise<AccessibilityViolation[]> {
  let builder = new AxeBuilder({ page }).withTags([...o.tags]);
  if (o.include) builder = builder.include(o.include);
  const results = await builder.analyze();
  const floor = IMPACTS.indexOf(o.minImpact);
  return results.violations
    .filter((v) => IMPACTS.indexOf((v.impact ?? 'minor') as Impact) >= floor)
    .map((v) => ({
      rule: v.id,
      impact: (v.impact ?? null) as Impact | null,
      help: v.help,
      help_url: v.helpUrl,
      nodes: v.nodes.slice(0, 10).map((n) => n.target.map(String).join(' >>> ')),
    }));
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
    const started = Date.now();
    let violations: AccessibilityViolation[];
    try {
      violations = await scanAccessibility(ctx.page, { tags: check.tags, minImpact: check.minImpact, ...(step.selector ? { include: step.selector } : {}) });
    } catch (err) {
      throw new StepError(`The accessibility scan failed: ${firstLine(err)}`, 'error');
    }
    ctx.profile?.add('axe', Date.now() - started);
    if (violations.length === 0) return {};
    const lines = violations.map((v) => `${v.rule} (${v.impact ?? 'unknown'}): ${v.help} [${v.help_url}] at ${v.nodes.join(', ')}`);
    throw new StepError(`${violations.length} accessibility violation${violations.length === 1 ? '' : 's'} (${check.standard}, ${check.minImpact} or worse): ${lines.join('; ')}`, 'assertion_failed', {
      accessibility: { standard: check.standard, min_impact: check.minImpact, violations },
    });
  },
};
