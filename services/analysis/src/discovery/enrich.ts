import type { DiscoveryPage, DiscoverySessionInput } from '../clients/discovery.client.js';
import type { LlmClient } from '../llm/llm.client.js';

export interface SuggestedAssertion {
  action: 'assert_text' | 'assert_visible';
  selector: string;
  value?: string;
  description: string;
}

export interface FlowEnrichment {
  flow_id: string;
  name: string;
  description: string;
  suggested_tests: Array<{ name: string; assertions: SuggestedAssertion[] }>;
  /** Where the prose came from; the flow's type, pages and steps are the crawler's, whatever this says. */
  prose_source: 'deterministic' | 'llm';
}

export interface Enrichment {
  status: 'completed';
  summary: string;
  flows: FlowEnrichment[];
  prose_source: 'deterministic' | 'llm';
  model?: string;
  completed_at: string;
}

const pathOf = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
};
const quote = (s: string, max = 60) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};
const list = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

/** What a page shows first: its main heading, else its title, else its path. */
function pageName(page: DiscoveryPage | undefined, url: string): string {
  const h = page?.headings[0]?.text;
  if (h) return quote(h, 50);
  if (page?.title) return quote(page.title, 50);
  return pathOf(url);
}

function arrival(page: DiscoveryPage | undefined, url: string): SuggestedAssertion | undefined {
  const h = page?.headings[0];
  if (h?.text) return { action: 'assert_text', selector: h.selector, value: h.text, description: `${pathOf(url)} shows "${quote(h.text)}"` };
  return undefined;
}

/**
 * Names and describes each discovered flow from what the crawler saw on its
 * pages (headings, form fields and their labels, lists), and suggests tests
 * with assertions a person would write. No model is involved.
 */
export function enrichDeterministically(session: DiscoverySessionInput): Enrichment {
  const pages = new Map(session.pages.map((p) => [p.url, p]));
  const flows: FlowEnrichment[] = session.flows.map((flow) => {
    const first = flow.pages[0] ?? session.target_url;
    const last = flow.pages[flow.pages.length - 1] ?? first;
    const firstPage = pages.get(first);
    const lastPage = pages.get(last);
    const forms = firstPage?.forms ?? [];
    const filled = flow.steps.filter((s) => s.action === 'fill_form' && s.selector).map((s) => s.selector!);
    const labels = filled.map((sel) => forms.flatMap((f) => f.fields).find((f) => f.selector === sel)).map((f) => (f ? `"${quote(f.label || f.name || f.type, 30)}"` : undefined)).filter((x): x is string => !!x);
    const route = flow.pages.map(pathOf).join(' → ');
    const at = pathOf(first);
    const arrive = arrival(lastPage, last);
    const list0 = lastPage?.lists[0];
    let name: string;
    let description: string;
    let tests: FlowEnrichment['suggested_tests'];
    switch (flow.type) {
      case 'authentication':
        name = `Sign in at ${at}`;
        description = `Fills ${labels.length ? list(labels) : 'the credentials'} on ${at} and submits the form${flow.pages.length > 1 ? `, landing on ${pathOf(last)}` : ''}.`;
        tests = [
          { name: `${name}: valid credentials are accepted`, assertions: arrive && last !== first ? [arrive] : [] },
          { name: `${name}: a wrong password is refused`, assertions: forms[0]?.submit ? [{ action: 'assert_visible', selector: forms[0].submit, description: 'The sign-in form is shown again' }] : [] },
        ];
        break;
      case 'search':
        name = `Search ${pageName(firstPage, first)} on ${at}`;
        description = `Types a query into ${labels[0] ?? 'the search field'} on ${at} and reads the results${flow.pages.length > 1 ? ` on ${pathOf(last)}` : ''}.`;
        tests = [
          { name: `${name}: a known term lists results`, assertions: list0 ? [{ action: 'assert_visible', selector: list0.selector, description: 'Results are listed' }] : [] },
          { name: `${name}: an unknown term shows no results`, assertions: [] },
        ];
        break;
      case 'checkout':
        name = `Checkout from ${at}`;
        description = `Goes through ${flow.pages.length} checkout page${flow.pages.length === 1 ? '' : 's'} (${route}), filling ${labels.length ? list(labels) : 'the forms'}.`;
        tests = [{ name: `${name} reaches ${pathOf(last)}`, assertions: flow.pages.map((u) => arrival(pages.get(u), u)).filter((a): a is SuggestedAssertion => !!a) }];
        break;
      case 'form_submission':
        name = `Submit "${pageName(firstPage, first)}" on ${at}`;
        description = `Fills ${labels.length ? list(labels) : 'its fields'} on ${at} and submits it.`;
        tests = [
          { name: `${name} with valid values`, assertions: arrive && last !== first ? [arrive] : [] },
          { name: `${name} with a required field empty shows an error`, assertions: [] },
        ];
        break;
      case 'crud': {
        const writes = session.api_endpoints.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.endpoint}`);
        name = `Manage "${pageName(firstPage, first)}" on ${at}`;
        description = `${writes.some((w) => w.startsWith('DELETE')) ? 'Creates, lists and deletes' : 'Creates and lists'} records on ${at}${writes.length ? ` through ${list(writes.slice(0, 4))}` : ''}.`;
        tests = [
          { name: `${name}: a new record appears in the list`, assertions: list0 ? [{ action: 'assert_visible', selector: list0.selector, description: 'The list shows the records' }] : [] },
          { name: `${name}: a deleted record disappears`, assertions: [] },
        ];
        break;
      }
      default:
        name = `Navigate from ${at} to ${pathOf(last)}`;
        description = `Follows links ${route}${lastPage?.title ? `, ending on "${quote(lastPage.title, 40)}"` : ''}.`;
        tests = [{ name: `${pageName(lastPage, last)} is reachable from ${at}`, assertions: arrive ? [arrive] : [] }];
    }
    return { flow_id: flow.flow_id, name, description, suggested_tests: tests, prose_source: 'deterministic' };
  });
  const byType = new Map<string, number>();
  for (const f of session.flows) byType.set(f.type, (byType.get(f.type) ?? 0) + 1);
  const kinds = [...byType].map(([t, n]) => `${n} ${t.replace('_', ' ')}`);
  const summary = `${session.pages.length} page${session.pages.length === 1 ? '' : 's'} crawled from ${session.target_url}; ${session.flows.length ? `flows: ${list(kinds)}` : 'no user flows found'}${session.api_endpoints.length ? `; the app calls ${session.api_endpoints.length} API endpoint${session.api_endpoints.length === 1 ? '' : 's'}` : ''}.`;
  return { status: 'completed', summary, flows, prose_source: 'deterministic', completed_at: new Date().toISOString() };
}

const SYSTEM = [
  'You write short, plain descriptions of user flows that a web crawler found in an application, for testers.',
  'You get JSON with the flows (type, pages, a draft name and description, suggested test names).',
  'Answer one JSON object: {"summary": string, "flows": [{"flow_id": string, "name": string, "description": string, "test_names": [string]}]}.',
  'Keep every flow_id. Keep facts as given: do not invent pages, fields or behaviour. Names under 60 characters, descriptions one or two sentences.',
].join(' ');

const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.trim().length > 0 && v.length <= max;

/**
 * The same enrichment with a model's prose when ANALYSIS_LLM_URL is set: only
 * names, descriptions and test names may change, and only to valid strings;
 * flows, pages, steps, assertions and anything scored stay the crawler's.
 */
export async function enrich(session: DiscoverySessionInput, llm: LlmClient | undefined): Promise<Enrichment> {
  const base = enrichDeterministically(session);
  if (!llm || base.flows.length === 0) return base;
  const draft = {
    target_url: session.target_url,
    summary: base.summary,
    flows: base.flows.map((f) => {
      const flow = session.flows.find((x) => x.flow_id === f.flow_id)!;
      return { flow_id: f.flow_id, type: flow.type, pages: flow.pages.map(pathOf), name: f.name, description: f.description, test_names: f.suggested_tests.map((t) => t.name) };
    }),
  };
  const answer = await llm.json(SYSTEM, JSON.stringify(draft));
  const proposed = Array.isArray(answer?.flows) ? (answer!.flows as Array<Record<string, unknown>>) : [];
  let changed = false;
  const flows = base.flows.map((f) => {
    const p = proposed.find((x) => x && x.flow_id === f.flow_id);
    if (!p || !isText(p.name, 120) || !isText(p.description, 600)) return f;
    changed = true;
    const names = Array.isArray(p.test_names) ? p.test_names : [];
    return {
      ...f,
      name: p.name.trim(),
      description: p.description.trim(),
      suggested_tests: f.suggested_tests.map((t, i) => (isText(names[i], 200) ? { ...t, name: (names[i] as string).trim() } : t)),
      prose_source: 'llm' as const,
    };
  });
  if (!changed) return base;
  return { ...base, flows, summary: isText(answer?.summary, 800) ? (answer!.summary as string).trim() : base.summary, prose_source: 'llm', model: llm.model };
}
