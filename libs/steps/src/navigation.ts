import type { StepContext } from './context.js';
import { StepError } from './step-error.js';
import { firstLine } from './values.js';

/**
 * Refuses a navigation the egress policy denies before the browser tries it, with the reason.
 * @throws StepError (`egress_blocked`).
 */
export async function assertEgressAllowed(ctx: Pick<StepContext, 'egress'>, url: string): Promise<void> {
  if (!ctx.egress) return;
  const verdict = await ctx.egress.policy.checkUrl(url);
  if (!verdict.allowed) throw new StepError(`Navigation to ${url} blocked by the egress policy (${verdict.reason})`, 'egress_blocked');
}

/**
 * The step error for a failed navigation (`what`: "Navigation to <url>",
 * "Going back from <url>"): a connection the egress proxy refused (a redirect
 * elsewhere, a name that now resolves to a private address) is named as such,
 * with the proxy's reason.
 */
export function navigationError(ctx: Pick<StepContext, 'egress'>, what: string, err: unknown): StepError {
  if (err instanceof StepError) return err;
  const message = (err as Error).message?.split('\n')[0] ?? firstLine(err);
  const viaProxy = /ERR_SOCKS_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED/.test(message);
  const refused = viaProxy ? ctx.egress?.proxy.peekBlocked().at(-1) : undefined;
  const failed = viaProxy ? ctx.egress?.proxy.lastFailed() : undefined;
  // The more recent of the two is what ended this navigation.
  if (refused && (!failed || refused.at >= failed.at)) return new StepError(`${what} blocked by the egress policy (${refused.host}:${refused.port}: ${refused.reason})`, 'egress_blocked');
  // Say what Chromium would have said without the proxy in between.
  if (failed) return new StepError(`${what} failed: net::${failed.code} (${failed.host}:${failed.port})`, 'navigation_failed');
  return new StepError(`${what} failed: ${message}`, 'navigation_failed');
}
