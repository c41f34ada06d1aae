import { AssayConnectionError, retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** First backoff for a 503 without Retry-After (default 500 ms); doubles each time, with jitter. */
  baseDelayMs?: number;
  /** Longest single wait (default 30 s). A Retry-After longer than this is not waited for: the 429 is returned. */
  maxDelayMs?: number;
}

type Fetch = (input: Request) => Promise<Response>;

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

/**
 * A fetch that retries 429 (after `Retry-After`) and 503 (after `Retry-After`,
 * else exponential backoff with jitter). Both answers mean the request was not
 * processed (the gateway refused it, or could not reach the service), so every
 * method is retried. Connection failures become AssayConnectionError.
 */
export function retryingFetch(fetchImpl: Fetch, opts: RetryOptions = {}): Fetch {
  const retries = opts.retries ?? 4;
  const base = opts.baseDelayMs ?? 500;
  const max = opts.maxDelayMs ?? 30_000;
  return async (request: Request) => {
    for (let attempt = 0; ; attempt++) {
      // A body can be read once: each attempt sends a clone.
      const sent = attempt < retries ? request.clone() : request;
      let response: Response;
      try {
        response = await fetchImpl(sent);
      } catch (err) {
        if (request.signal.aborted) throw err;
        throw new AssayConnectionError(new URL(request.url).origin, err);
      }
      if ((response.status !== 429 && response.status !== 503) || attempt >= retries) return response;
      const after = retryAfterSeconds(response.headers.get('retry-after'));
      const delay = after !== undefined ? after * 1000 : Math.min(max, base * 2 ** attempt) * (0.5 + Math.random() / 2);
      if (delay > max) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}
