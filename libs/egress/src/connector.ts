import { buildConnector } from 'undici';
import { EgressDeniedError, parseAddress, type EgressPolicy } from './policy.js';

/**
 * An undici connector (the `connect` option of an Agent or Client) that lets
 * a socket open only to an address the policy allows: IP literals are
 * checked as they are, names through the policy's `lookup`, so the checked
 * address is the one connected to. Refusals fail the request with
 * EgressDeniedError (as the error's `cause` in undici's fetch).
 */
export function egressConnector(policy: EgressPolicy, options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const base = buildConnector({ ...options, lookup: policy.lookup } as buildConnector.BuildOptions);
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    if (parseAddress(host)) {
      const verdict = policy.checkAddress(host);
      if (!verdict.allowed) return callback(new EgressDeniedError(`${opts.protocol}//${opts.hostname}${opts.port ? `:${opts.port}` : ''}`, verdict.reason), null);
    }
    return base(opts, callback);
  };
}
