import { request, type Dispatcher } from 'undici';
import { AppError } from '@assay/http';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';

export interface InternalReply<T> {
  status: number;
  body: T;
}

/**
 * Calls another service's `/internal` routes acting for one organization.
 * Answers every HTTP status to the caller (it decides what a 404 or 409
 * means); throws only when the service cannot be reached.
 */
export class InternalClient {
  constructor(
    private readonly service: string,
    private readonly baseUrl: string,
    private readonly internalTokenSecret: string,
    private readonly dispatcher?: Dispatcher,
  ) {}

  /** @throws AppError 503 when the service is unreachable or answers no JSON. */
  async call<T>(orgId: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<InternalReply<T>> {
    const token = await signPrincipal(this.internalTokenSecret, { ...servicePrincipal('analysis'), org_id: orgId });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.baseUrl}${path}`, {
        method,
        headers: { [PRINCIPAL_HEADER]: token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        headersTimeout: 15_000,
        bodyTimeout: 60_000,
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
      });
    } catch {
      throw new AppError(503, 'service_unavailable', `The ${this.service} service is unavailable; try again shortly`);
    }
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new AppError(503, 'service_unavailable', `The ${this.service} service answered ${res.statusCode} without JSON`);
    }
    return { status: res.statusCode, body: parsed as T };
  }
}
