import { conflict, isUuid, notFound, validationError } from '@assay/http';
import type { GeneratedCase } from '../clients/test-case.client.js';
import type { DiscoveryContext } from '../context.js';
import type { FlowRow, FlowStep, PageAnalysis } from '../db/database.js';
import { crawledPages, listFlows } from '../sessions/sessions.repository.js';
import { getSession } from '../sessions/sessions.service.js';

type Step = GeneratedCase['steps'][number];

const TITLES: Record<string, string> = {
  authentication: 'Sign-in form',
  checkout: 'Checkout',
  search: 'Search',
  form_submission: 'Form',
  navigation: 'Navigation',
  crud: 'Records',
};
const PRIORITY: Record<string, GeneratedCase['priority']> = { authentication: 'critical', checkout: 'critical', search: 'high', crud: 'high', navigation: 'medium', form_submission: 'medium' };

/**
 * Turns a flow into platform steps with the crawler's own assertions: each
 * page it reaches shows what the crawler saw there (its heading, its form),
 * each filled field holds its value. Steps that would need real credentials
 * or pay, or that post a form to the server, stop at "the button is there",
 * so the case passes against the app as crawled.
 */
export function flowToCase(flow: FlowRow, pages: Map<string, PageAnalysis>, path: (url: string) => string): GeneratedCase {
  const steps: Step[] = [];
  const arrive = (url: string | undefined) => {
    const page = url ? pages.get(url) : undefined;
    const heading = page?.headings[0];
    if (heading) steps.push({ action: 'assert_text', selector: heading.selector, value: heading.text, description: `Page shows "${heading.text}"` });
  };
  const flowSteps = flow.steps as FlowStep[];
  let at: string | undefined;
  for (const [i, s] of flowSteps.entries()) {
    if (s.action === 'navigate' && s.url) {
      steps.push({ action: 'navigate', value: s.url, description: `Open ${path(s.url)}` });
      at = s.url;
      arrive(at);
    } else if (s.action === 'fill_form' && s.selector) {
      steps.push({ action: 'fill', selector: s.selector, value: s.value ?? '' }, { action: 'assert_value', selector: s.selector, value: s.value ?? '' });
    } else if ((s.action === 'click' || s.action === 'submit') && s.selector) {
      const form = at ? pages.get(at)?.forms.find((f) => f.submit === s.selector) : undefined;
      const last = i === flowSteps.length - 1;
      // A final submit to the server (a login, a payment, a POSTed form) is checked, not pressed.
      const postsToServer = form && (form.method === 'post' || (flow.type === 'authentication' && last));
      if (s.action === 'submit' && (postsToServer || (last && flow.type !== 'search' && flow.type !== 'crud' && form?.action))) {
        steps.push({ action: 'assert_visible', selector: s.selector, description: 'The submit button is there' });
        continue;
      }
      steps.push({ action: 'click', selector: s.selector });
      if (s.url) {
        at = s.url;
        arrive(at);
      } else if (flow.type === 'search' || flow.type === 'crud') {
        const list = (at ? pages.get(at) : undefined)?.lists[0];
        if (list) steps.push({ action: 'assert_visible', selector: list.selector, description: 'Results are listed' });
      }
    }
  }
  if (flow.type === 'search') {
    const target = flow.pages[flow.pages.length - 1];
    const list = target ? pages.get(target)?.lists[0] : undefined;
    if (list && !steps.some((s) => s.selector === list.selector)) steps.push({ action: 'assert_visible', selector: list.selector, description: 'Results are listed' });
  }
  const first = flow.pages[0] ? path(flow.pages[0]) : '';
  return {
    name: `${TITLES[flow.type] ?? flow.type} on ${first} (discovered)`.slice(0, 200),
    description: `Generated from discovery flow ${flow.flow_id} (${flow.type}) across ${flow.pages.map(path).join(' → ')}.`,
    priority: PRIORITY[flow.type] ?? 'medium',
    tags: ['discovered', flow.type],
    steps: steps.slice(0, 200),
  };
}

/**
 * Creates test cases in the session's project from its flows (all, or
 * `flow_ids`), appended to `test_plan_id` when given.
 * @throws AppError 404 for an unknown session, plan or flow id, 409 while no flow is detected.
 */
export async function generateTestCases(ctx: DiscoveryContext, orgId: string, sessionId: string, body: { flow_ids?: string[]; test_plan_id?: string }) {
  const session = await getSession(ctx, orgId, sessionId);
  const flows = await listFlows(ctx.db, session.id);
  let chosen = flows;
  if (body.flow_ids) {
    const known = new Set(flows.map((f) => f.flow_id));
    const unknown = body.flow_ids.filter((id) => !known.has(id));
    if (unknown.length) throw validationError(unknown.map((id) => ({ field: 'flow_ids', message: `unknown flow ${id} in this session` })));
    chosen = flows.filter((f) => body.flow_ids!.includes(f.flow_id));
  }
  if (!chosen.length) throw conflict('The session has detected no flows yet');
  if (body.test_plan_id !== undefined && !isUuid(body.test_plan_id)) throw notFound('Test plan');
  const pages = new Map((await crawledPages(ctx.db, session.id)).flatMap((p) => (p.analysis ? [[p.url, p.analysis] as const] : [])));
  const origin = new URL(session.target_url).origin;
  const path = (url: string) => (url.startsWith(origin) ? url.slice(origin.length) || '/' : url);
  const cases = chosen.map((f) => flowToCase(f, pages, path)).filter((c) => c.steps.length > 0);
  const created = await ctx.testCases.createTestCases(orgId, session.project_id, cases, body.test_plan_id);
  return { session_id: session.id, project_id: session.project_id, test_plan_id: body.test_plan_id ?? null, test_cases: created };
}
