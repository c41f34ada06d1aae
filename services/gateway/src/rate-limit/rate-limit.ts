import type { NextFunction, Request, Response } from 'express';
import { rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import { AppError } from '@assay/http';
import type { Plan, Principal } from '@assay/principal';

/** Requests per key by plan (spec, Limits). `dev` service keys get half ("lower rate limits"). */
export const PLAN_LIMITS: Record<Plan, { minute: number; hour: number; day: number }> = {
  starter: { minute: 30, hour: 500, day: 5_000 },
  growth: { minute: 60, hour: 1_000, day: 10_000 },
  pro: { minute: 120, hour: 5_000, day: 50_000 },
};

const WINDOWS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

function limitFor(p: Principal, window: keyof typeof WINDOWS): number {
  const base = PLAN_LIMITS[p.plan][window];
  return p.environment === 'dev' ? Math.max(1, Math.floor(base / 2)) : base;
}

/**
 * Per-credential limits over three windows. The minute window sets the
 * `X-RateLimit-*` headers; any window over its limit answers 429 with
 * `retry_after` and `Retry-After`. Counters live in this process.
 */
export function rateLimits(): RateLimitRequestHandler[] {
  return (Object.keys(WINDOWS) as Array<keyof typeof WINDOWS>).map((window) =>
    rateLimit({
      windowMs: WINDOWS[window],
      limit: (_req: Request, res: Response) => limitFor(res.locals.principal as Principal, window),
      keyGenerator: (_req: Request, res: Response) => `${(res.locals.principal as Principal).kind}:${(res.locals.principal as Principal).sub}`,
      skip: (_req: Request, res: Response) => !res.locals.principal || (res.locals.principal as Principal).kind === 'service',
      standardHeaders: false,
      legacyHeaders: window === 'minute',
      requestPropertyName: `rateLimit_${window}`,
      validate: false,
      handler: (req: Request, _res: Response, next: NextFunction) => {
        const info = (req as unknown as Record<string, { resetTime?: Date; limit: number }>)[`rateLimit_${window}`];
        const retryAfter = Math.max(1, Math.ceil(((info?.resetTime?.getTime() ?? Date.now() + WINDOWS[window]) - Date.now()) / 1000));
        next(
          new AppError(429, 'rate_limit_exceeded', `Rate limit of ${info?.limit} requests per ${window} exceeded`, undefined, {
            retry_after: retryAfter,
          }),
        );
      },
    }),
  );
}
