import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConnectionOptions } from 'node:tls';
import type { KafkaSaslConfig, KafkaTlsConfig } from '@assay/config';
import type { OauthbearerProviderResponse, SASLOptions } from 'kafkajs';

/** A token provider (the OAUTHBEARER hook): called at every (re)authentication; it caches and refreshes its token itself. */
export type OauthBearerProvider = () => Promise<OauthbearerProviderResponse>;

export interface KafkaClientSecurity {
  ssl?: ConnectionOptions;
  sasl?: SASLOptions;
}

/**
 * The kafkajs `ssl` and `sasl` options of the `KAFKA_TLS*` / `KAFKA_SASL_*`
 * settings. Certificate files are read here, once, at start (a missing file
 * stops the start naming the variable); a token file is read at every
 * authentication so a refreshed token is picked up; a provider module is
 * loaded by `loadProvider` (default: dynamic import) at the first authentication.
 */
export function kafkaClientSecurity(
  cfg: { tls?: KafkaTlsConfig; sasl?: KafkaSaslConfig },
  loadProvider: (modulePath: string) => Promise<OauthBearerProvider> = importProvider,
): KafkaClientSecurity {
  const out: KafkaClientSecurity = {};
  if (cfg.tls) {
    const t = cfg.tls;
    out.ssl = {
      rejectUnauthorized: t.rejectUnauthorized,
      ...(t.caFile ? { ca: [readPem(t.caFile, 'KAFKA_TLS_CA_FILE')] } : {}),
      ...(t.certFile ? { cert: readPem(t.certFile, 'KAFKA_TLS_CERT_FILE') } : {}),
      ...(t.keyFile ? { key: readPem(t.keyFile, 'KAFKA_TLS_KEY_FILE') } : {}),
      ...(t.serverName ? { servername: t.serverName } : {}),
    };
  }
  const s = cfg.sasl;
  if (s?.mechanism === 'oauthbearer') {
    // The module is loaded at the first authentication (the bus's first connect, at start): a bad path stops the start.
    let loaded: Promise<OauthBearerProvider> | undefined;
    const provider: OauthBearerProvider = s.tokenFile
      ? tokenFileProvider(s.tokenFile)
      : async () => (await (loaded ??= loadProvider(s.tokenProvider!)))();
    out.sasl = { mechanism: 'oauthbearer', oauthBearerProvider: provider };
  } else if (s) {
    out.sasl = { mechanism: s.mechanism, username: s.username, password: s.password } as SASLOptions;
  }
  return out;
}

function readPem(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Reads the token at every authentication (a sidecar or a projected service-account token keeps the file fresh). */
export function tokenFileProvider(file: string): OauthBearerProvider {
  return async () => {
    const value = (await readFile(file, 'utf8')).trim();
    if (!value) throw new Error(`KAFKA_SASL_OAUTHBEARER_TOKEN_FILE ${file} is empty`);
    return { value };
  };
}

/** Loads `KAFKA_SASL_OAUTHBEARER_PROVIDER`: a module whose default export (or named `tokenProvider`) is the provider function. */
async function importProvider(modulePath: string): Promise<OauthBearerProvider> {
  const spec = modulePath.startsWith('.') || path.isAbsolute(modulePath) ? pathToFileURL(path.resolve(modulePath)).href : modulePath;
  const mod = (await import(spec)) as { default?: unknown; tokenProvider?: unknown };
  const fn = typeof mod.tokenProvider === 'function' ? mod.tokenProvider : mod.default;
  if (typeof fn !== 'function') throw new Error(`KAFKA_SASL_OAUTHBEARER_PROVIDER ${modulePath} exports no function (default or tokenProvider)`);
  return fn as OauthBearerProvider;
}
