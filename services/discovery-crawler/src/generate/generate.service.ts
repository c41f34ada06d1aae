import { conflict, isUuid, notFound, validationError } from '@assay/http';
import type { GeneratedCase } from '../clients/test-case.client.js';
import type { DiscoveryContext } from '../context.js';
import type { FlowRow, FlowStep, FormInfo, PageAnalysis } from '../db/database.js';
import { crawledPages, listFlows, recordGeneratedCases } from '../sessions/sessions.repository.js';
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
const DESCRIPTIONS: Record<string, string> = {
  authentication: 'Signing in',
  checkout: 'Checking out',
  search: 'Searching',
  form_submission: 'Filling in a form',
  navigation: 'Moving between pages',
  crud: 'Working with a list of records',
};
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const PRIORITY: Record<string, GeneratedCase['priority']> = { authentication: 'critical', checkout: 'critical', search: 'high', crud: 'high', navigation: 'medium', form_submission: 'medium' };

/**
 * Turns a flow into platform steps with the crawler's own assertions: each
 * page it reaches shows what the crawler saw there (its heading, its form),
 * a click that leads to another page lands on its path (`assert_url`), each
 * filled field holds its value, a search puts its term in the URL. Steps that
 * would need real credentials or pay, or that post a form to the server, stop
 * at "the button is there", so the case passes against the app as crawled.
 */
export function flowToCase(flow: FlowRow, pages: Map<string, PageAnalysis>, path: (url: string) => string): GeneratedCase {
  const steps: Step[] = [];
  const arrive = (url: string | undefined) => {
    const page = url ? pages.get(url) : undefined;
    const heading = page?.headings[0];
    if (heading) steps.push({ action: 'assert_text', selector: heading.selector, value: heading.text, description: `Page shows "${heading.text}"` });
  };
  // A substring of the URL: the target's path (a GET form adds its query after it). "/" is in every URL, so it says nothing.
  const landOn = (url: string) => {
    const u = new URL(url, 'http://x.invalid');
    // A hash route (`#/Books/listBooks`) is where a client-side router put the page.
    const where = u.hash.startsWith('#/') ? u.hash : u.pathname;
    if (where !== '/') steps.push({ action: 'assert_url', value: where, description: `URL is ${where}` });
  };
  const flowSteps = flow.steps as FlowStep[];
  let at: string | undefined;
  for (const [i, s] of flowSteps.entries()) {
    if (s.action === 'navigate' && s.url) {
      steps.push({ action: 'navigate', value: path(s.url), description: `Open ${path(s.url)}` });
      at = s.url;
      arrive(at);
    } else if (s.action === 'fill_form' && s.selector) {
      steps.push({ action: 'fill', selector: s.selector, value: s.value ?? '' }, { action: 'assert_value', selector: s.selector, value: s.value ?? '' });
    } else if (s.action === 'type' && s.selector) {
      // Key by key, as a person types: a type-ahead calls its API on each key.
      steps.push({ action: 'type', selector: s.selector, value: s.value ?? '', description: `Type "${s.value ?? ''}" into the search box` });
    } else if ((s.action === 'press' || s.action === 'dblclick' || s.action === 'hover') && s.selector) {
      steps.push({ action: s.action, selector: s.selector, ...(s.value ? { value: s.value } : {}) });
    } else if (s.action === 'wait_gone' && s.selector) {
      steps.push({ action: 'assert_hidden', selector: s.selector, description: 'It is gone' });
    } else if (s.action === 'wait_for' && s.selector) {
      // Content a script renders (a dialog, suggestions): visible before the next step acts on it.
      steps.push({ action: 'assert_visible', selector: s.selector, description: flow.type === 'search' ? 'Suggestions are shown' : 'It opened' });
      if (s.value) steps.push({ action: 'assert_text', selector: s.selector, value: `/(?i)${escapeRegExp(s.value)}/`, description: `The suggestions mention "${s.value}"` });
    } else if ((s.action === 'click' || s.action === 'submit') && s.selector) {
      const form = at ? pages.get(at)?.forms.find((f) => f.submit === s.selector) : undefined;
      const last = i === flowSteps.length - 1;
      // A final submit to the server (a login, a payment, a POSTed form) is checked, not pressed.
      const postsToServer = form?.method === 'post' || (flow.type === 'authentication' && last);
      if (s.action === 'submit' && (postsToServer || (last && flow.type !== 'search' && flow.type !== 'crud' && form?.action))) {
        steps.push({ action: 'assert_visible', selector: s.selector, description: 'The submit button is there' });
        continue;
      }
      steps.push({ action: 'click', selector: s.selector });
      if (s.url) {
        at = s.url;
        landOn(at);
        arrive(at);
      } else if (flow.type === 'search' && form?.method === 'get' && form.action) {
        searchTermInUrl(form, flowSteps, steps);
      } else if (flow.type === 'crud') {
        const list = (at ? pages.get(at) : undefined)?.lists[0];
        if (list) steps.push({ action: 'assert_visible', selector: list.selector, description: 'Records are listed' });
      }
    }
  }
  // A search form without a button is submitted the way a person does: Enter in its field (a type-ahead needs none).
  if (flow.type === 'search' && !flowSteps.some((s) => s.action === 'submit' || s.action === 'click' || s.action === 'type')) {
    const field = [...flowSteps].reverse().find((s) => s.action === 'fill_form' && s.selector);
    if (field?.selector) steps.push({ action: 'press', selector: field.selector, value: 'Enter', description: 'Search with Enter' });
  }
  const first = flow.pages[0] ? path(flow.pages[0]) : '';
  const title = flow.flow_key.startsWith('navigation list ') ? 'Open an item from the list' : flow.flow_key.startsWith('search typeahead ') ? 'Type-ahead search' : (TITLES[flow.type] ?? flow.type);
  const evidence = (flow.evidence as string[]).slice(0, 3).join('; ');
  return {
    name: `${title} on ${first} (discovered)`.slice(0, 200),
    description: `${DESCRIPTIONS[flow.type] ?? 'A flow'} found by discovery on ${flow.pages.map(path).join(' → ')}${evidence ? ` (${evidence})` : ''}.`.slice(0, 2000),
    priority: PRIORITY[flow.type] ?? 'medium',
    tags: ['discovered', flow.type],
    steps: steps.slice(0, 200),
  };
}

/** After a GET search form's submit: the URL carries the term typed in its field (`q=a`). */
function searchTermInUrl(form: FormInfo, flowSteps: FlowStep[], steps: Step[]): void {
  const filled = flowSteps.find((s) => s.action === 'fill_form' && form.fields.some((f) => f.selector === s.selector));
  const field = filled && form.fields.find((f) => f.selector === filled.selector);
  if (!field?.name || filled?.value === undefined) return;
  const pair = new URLSearchParams({ [field.name]: filled.value }).toString();
  steps.push({ action: 'assert_url', value: pair, description: `The search is in the URL (${pair})` });
}

/**
 * The session's flows (all, or `flowIds`) as test cases, in memory: the
 * generator behind both saving them and an exploratory run of the session.
 * @throws AppError 404 for an unknown session, 400 for an unknown flow id, 409 while no flow is detected.
 */
export async function buildSessionCases(ctx: DiscoveryContext, orgId: string, sessionId: string, flowIds?: string[]) {
  const session = await getSession(ctx, orgId, sessionId);
  const flows = await listFlows(ctx.db, session.id);
  let chosen = flows;
  if (flowIds) {
    const known = new Set(flows.map((f) => f.flow_id));
    const unknown = flowIds.filter((id) => !known.has(id));
    if (unknown.length) throw validationError(unknown.map((id) => ({ field: 'flow_ids', message: `unknown flow ${id} in this session` })));
    chosen = flows.filter((f) => flowIds.includes(f.flow_id));
  }
  if (!chosen.length) throw conflict('The session has detected no flows yet');
  const pages = new Map((await crawledPages(ctx.db, session.id)).flatMap((p) => (p.analysis ? [[p.url, p.analysis] as const] : [])));
  // Paths relative to the project's base URL, so the cases follow the plan's environment; absolute where the crawl left it.
  const base = (await ctx.testCases.project(orgId, session.project_id)).base_url.replace(/\/+$/, '');
  const path = (url: string) => (url === base ? '/' : url.startsWith(`${base}/`) || url.startsWith(`${base}#`) ? url.slice(base.length) : url);
  const cases = chosen.map((f) => ({ flow_id: f.flow_id, ...flowToCase(f, pages, path) })).filter((c) => c.steps.length > 0);
  return { session, cases };
}

/**
 * Creates test cases in the session's project from its flows (all, or
 * `flow_ids`), appended to `test_plan_id` when given.
 * @throws AppError 404 for an unknown session, plan or flow id, 409 while no flow is detected.
 */
export async function generateTestCases(ctx: DiscoveryContext, orgId: string, sessionId: string, body: { flow_ids?: string[]; test_plan_id?: string }) {
  if (body.test_plan_id !== undefined && !isUuid(body.test_plan_id)) throw notFound('Test plan');
  const { session, cases } = await buildSessionCases(ctx, orgId, sessionId, body.flow_ids);
  const created = await ctx.testCases.createTestCases(orgId, session.project_id, cases.map(({ flow_id: _flow, ...c }) => c), body.test_plan_id);
  // Created in order: the session lists them, with the flow each came from.
  await recordGeneratedCases(
    ctx.db,
    session.id,
    (created as Array<{ id: string; name: string }>).map((c, i) => ({ test_case_id: c.id, name: c.name, flow_id: cases[i]!.flow_id })),
  );
  return { session_id: session.id, project_id: session.project_id, test_plan_id: body.test_plan_id ?? null, test_cases: created };
}
