import { checkExpectation, parseExpectation, parseJsonPath, readJsonPath, type Step } from '@assay/contracts';
import type { StepKind } from '../context.js';
import { assertEgressAllowed } from '../navigation.js';
import { StepError } from '../step-error.js';
import { firstLine, resolveUrl, substitute } from '../values.js';

/** `{{variables}}` replaced in every string of a JSON-like value. */
function substituteDeep(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') return substitute(value, vars);
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteDeep(v, vars)]));
  return value;
}

/**
 * An HTTP call from the test with the page's browser context (its cookies,
 * its proxy), after the egress policy has allowed the URL. Redirects are not
 * followed (a redirect could lead where the policy would refuse): a 3xx is the
 * response the assertions see. Every `expect` line must hold; `save_as` keeps
 * response values in the run's variables for later steps.
 */
export const request: StepKind = {
  async run(ctx, step: Step) {
    const spec = step.request;
    if (!spec) throw new StepError('Step "request" has no request', 'error');
    const vars = ctx.variables;
    const url = resolveUrl(ctx.baseUrl, substitute(spec.url, vars));
    const method = spec.method.toUpperCase();
    await assertEgressAllowed(ctx, url).catch((err: StepError) => {
      throw new StepError(err.message.replace(/^Navigation to/, `Request ${method}`), err.type);
    });
    const headers = Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k, substitute(v, vars)]));
    let data: string | undefined;
    if (spec.body !== undefined) {
      const body = substituteDeep(spec.body, vars);
      data = typeof body === 'string' ? body : JSON.stringify(body);
      if (typeof body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    let status: number;
    let text: string;
    try {
      const res = await ctx.page.context().request.fetch(url, { method, headers, data, maxRedirects: 0, timeout: ctx.navigationTimeoutMs, failOnStatusCode: false });
      status = res.status();
      text = method === 'HEAD' ? '' : await res.text();
      await res.dispose();
    } catch (err) {
      const message = firstLine(err);
      const refused = ctx.egress?.proxy.peekBlocked().at(-1);
      if (refused && /proxy|socks|tunnel|ECONNREFUSED|ECONNRESET/i.test(message)) {
        throw new StepError(`Request ${method} ${url} blocked by the egress policy (${refused.host}:${refused.port}: ${refused.reason})`, 'egress_blocked');
      }
      throw new StepError(`Request ${method} ${url} failed: ${message.replace(/^apiRequestContext\.fetch: /, '')}`, 'navigation_failed');
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    const failures: string[] = [];
    for (const line of step.expect ?? []) {
      const e = parseExpectation(substitute(line, vars));
      if ('error' in e) throw new StepError(`Assertion "${line}" ${e.error}`, 'error');
      const problem = checkExpectation(e, status, json);
      if (problem) failures.push(problem);
    }
    if (failures.length) throw new StepError(`${method} ${url}: ${failures.join('; ')}`, 'assertion_failed');
    for (const [name, p] of Object.entries(step.save_as ?? {})) {
      const path = parseJsonPath(p);
      if ('error' in path) throw new StepError(`save_as ${name}: ${path.error}`, 'error');
      const v = readJsonPath(json, path);
      if (v === undefined) throw new StepError(`${method} ${url}: save_as ${name}: the response has no ${p} (status ${status})`, 'assertion_failed');
      vars[name] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    return {};
  },
};
