import { request } from 'undici';
import type { Logger } from '@assay/logger';

export interface LlmOptions {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/**
 * An OpenAI-compatible chat-completions endpoint (ANALYSIS_LLM_URL), used for
 * prose only. Every failure (down, slow, malformed answer) returns undefined:
 * callers keep their deterministic text. The API key is never logged.
 */
export class LlmClient {
  constructor(
    private readonly o: LlmOptions,
    private readonly logger: Logger,
  ) {}

  get model(): string {
    return this.o.model;
  }

  /** The endpoint: `…/chat/completions` is added unless the URL already ends with it. */
  private endpoint(): string {
    const base = this.o.url.replace(/\/+$/, '');
    return /\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`;
  }

  /** Asks for a JSON object; answers the parsed object or undefined. */
  async json(system: string, user: string): Promise<Record<string, unknown> | undefined> {
    try {
      const res = await request(this.endpoint(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}) },
        body: JSON.stringify({
          model: this.o.model,
          temperature: 0.2,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
        }),
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) {
        this.logger.warn({ status: res.statusCode }, 'the LLM endpoint refused; the deterministic text stands');
        return undefined;
      }
      const content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content;
      if (!content) return undefined;
      const json = /\{[\s\S]*\}/.exec(content)?.[0];
      const parsed: unknown = json ? JSON.parse(json) : undefined;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'the LLM endpoint failed; the deterministic text stands');
      return undefined;
    }
  }
}
