import { unzipSync, zipSync, type Zippable } from 'fflate';
import { SecretMasker } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import type { TestCaseClient } from '../clients/test-case.client.js';
import type { ExecutionRow } from '../db/database.js';

/** What a run's steps substitute, and the masker of its secrets. */
export interface RunVariables {
  /** The project's plain variables, under the run's own, and every secret as `secret.<name>`. */
  variables: Record<string, string>;
  mask: SecretMasker;
}

/**
 * The variables of an execution's run: the project's (its environment's over
 * the project-wide ones) under the run's own `variables`, plus its secrets as
 * `{{secret.name}}`. Secrets are asked for when the run starts and live only
 * in this process's memory: they are never stored with the execution.
 * Without a test-case client (or when it cannot answer) the run has its own
 * variables only; a step that needs another fails naming it.
 */
export async function resolveRunVariables(execution: ExecutionRow, testCases: TestCaseClient | undefined, logger: Logger): Promise<RunVariables> {
  let project: { variables: Record<string, string>; secrets: Record<string, string> } = { variables: {}, secrets: {} };
  if (testCases) {
    try {
      project = await testCases.runVariables(execution.org_id, execution.project_id, execution.environment ?? undefined);
    } catch (err) {
      logger.warn({ err: { message: (err as Error).message }, execution: execution.id }, 'could not read the project’s variables; the run has its own only');
    }
  }
  const secrets = Object.entries(project.secrets);
  return {
    variables: { ...project.variables, ...execution.variables, ...Object.fromEntries(secrets.map(([k, v]) => [`secret.${k}`, v])) },
    mask: new SecretMasker(secrets.map(([, v]) => v)),
  };
}

/**
 * A Playwright trace with the run's secrets masked in every entry (the call
 * parameters of `fill`, DOM snapshots, network bodies); the same zip when
 * there is nothing to mask.
 */
export function maskTrace(zip: Buffer, mask: SecretMasker): Buffer {
  if (!mask.active) return zip;
  const entries = unzipSync(new Uint8Array(zip.buffer, zip.byteOffset, zip.byteLength));
  let changed = false;
  const out: Zippable = {};
  for (const [name, data] of Object.entries(entries)) {
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const masked = mask.bytes(buf);
    if (masked !== buf) changed = true;
    out[name] = new Uint8Array(masked.buffer, masked.byteOffset, masked.byteLength);
  }
  return changed ? Buffer.from(zipSync(out, { level: 6 })) : zip;
}
