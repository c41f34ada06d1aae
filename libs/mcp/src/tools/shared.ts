import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { AssayApiError, AssayConnectionError, type Schemas } from '@assay/client';

/** What the SDK hands a tool besides its arguments: the abort signal, progress notifications. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const id = (what: string) => z.string().min(1).max(64).describe(what);

export const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] });
export const failure = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/** The annotations of a tool that only reads. */
export const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * An error as a tool result an agent can act on: what went wrong, and what to
 * do next (`hint` names the tool that lists valid ids).
 */
export function toolError(err: unknown, hint?: string): CallToolResult {
  if (err instanceof AssayApiError) {
    const details = Array.isArray(err.details) ? ` Fields: ${(err.details as Array<{ field?: string; message?: string }>).map((d) => `${d.field} ${d.message}`).join('; ')}.` : '';
    const next: Record<number, string> = {
      400: 'Fix the arguments and call again.',
      401: 'The credential was refused: the key is invalid, revoked or expired. Ask the user for a valid Assay key.',
      403: 'This key may not do that (a missing scope or plan limit). Ask the user for a key that can.',
      404: hint ?? 'Check the id.',
      409: 'The resource is not in a state that allows this; read it again and decide.',
      429: `Rate limited: wait ${err.retry_after ?? 60} seconds before calling again.`,
      501: 'This deployment does not run that part of Assay; tell the user.',
      503: 'A part of Assay is temporarily unavailable; try again in a minute.',
    };
    return failure(`${err.error} (HTTP ${err.status}): ${err.message}.${details} ${next[err.status] ?? ''}`.trim());
  }
  if (err instanceof AssayConnectionError) return failure(`${err.message}. Assay is unreachable; try again later.`);
  return failure(err instanceof Error ? err.message : String(err));
}

/** Runs a tool body, turning every error into an actionable tool result. */
export const guarded =
  <A>(fn: (args: A, extra: Extra) => Promise<CallToolResult>, hint?: string) =>
  async (args: A, extra: Extra): Promise<CallToolResult> => {
    try {
      return await fn(args, extra);
    } catch (err) {
      return toolError(err, hint);
    }
  };

export const byId = <P extends Record<string, string>>(path: P) => ({ params: { path } });

export const compactCase = (c: Schemas['TestCase']) => ({ id: c.id, name: c.name, status: c.status, priority: c.priority, tags: c.tags, steps: c.steps.length });
