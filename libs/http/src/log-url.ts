/** Query parameters whose values are credentials or one-time secrets: never written to a log. */
const SECRET_PARAMS = /^(token|access_token|id_token|refresh_token|api_key|apikey|key|secret|client_secret|password|signature|sig|code)$/i;

/**
 * The request URL as a log line may show it: the value of every query
 * parameter named like a credential (`token`, `api_key`, `signature`, …) is
 * replaced by `[redacted]`; the path and the other parameters stay.
 */
export function logSafeUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: judge the name as written.
      }
      return eq >= 0 && SECRET_PARAMS.test(name.trim()) ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${query}`;
}
