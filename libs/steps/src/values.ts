import type { Step } from '@assay/contracts';
import { StepError } from './step-error.js';

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/**
 * Replaces `{{name}}` placeholders.
 * @throws StepError naming the first placeholder `variables` lacks.
 */
export function substitute(text: string, variables: Record<string, string>): string {
  return text.replace(VARIABLE, (_, name: string) => {
    if (!Object.hasOwn(variables, name)) throw new StepError(`Unknown variable {{${name}}}: pass it in "variables"`, 'unknown_variable');
    return variables[name]!;
  });
}

/** A path joined to the base URL (keeping the base's own path); absolute URLs pass through. */
export function resolveUrl(baseUrl: string, value: string): string {
  if (/^https?:\/\//i.test(value)) return value;
  return `${baseUrl.replace(/\/+$/, '')}/${value.replace(/^\/+/, '')}`;
}

/** A readable name for a step: its description, or the action and its target. */
export function stepName(step: Pick<Step, 'action' | 'description' | 'selector' | 'value'>): string {
  if (step.description) return step.description;
  const target = step.selector ?? step.value ?? '';
  return target ? `${step.action} ${target}` : step.action;
}

/** Whitespace collapsed, as text assertions compare it. */
export const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The first line of an error's message. */
export const firstLine = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));

/** Retries `read` until `matches` or the timeout; returns the last value read (`initial` until a read succeeds). */
export async function waitUntil<T>(read: () => Promise<T>, matches: (v: T) => boolean, timeoutMs: number, initial: T): Promise<{ ok: boolean; last: T }> {
  const deadline = Date.now() + timeoutMs;
  let last = initial;
  for (;;) {
    last = await read().catch(() => last);
    if (matches(last)) return { ok: true, last };
    if (Date.now() >= deadline) return { ok: false, last };
    await new Promise((r) => setTimeout(r, 100));
  }
}
