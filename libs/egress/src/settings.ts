import type { ConfigReader } from '@assay/config';
import { egressSettingsProblems, type EgressSettings } from './policy.js';

/**
 * Reads EGRESS_ALLOW_LOOPBACK, EGRESS_ALLOW_PRIVATE, EGRESS_ALLOW_CIDRS and
 * EGRESS_DENY_CIDRS (one naming scheme for the runner, the crawler and the
 * webhook dispatcher). `legacy` names older per-service switches still
 * honoured when the EGRESS_ one is unset.
 */
export function readEgressSettings(r: ConfigReader, legacy: { loopback?: string; private?: string } = {}): EgressSettings {
  const flag = (name: string, old: string | undefined) =>
    r.optionalString(name) === undefined && old && r.optionalString(old) !== undefined ? r.bool(old) : r.bool(name, { default: false });
  const settings: EgressSettings = {
    allowLoopback: flag('EGRESS_ALLOW_LOOPBACK', legacy.loopback),
    allowPrivate: flag('EGRESS_ALLOW_PRIVATE', legacy.private),
    allowCidrs: r.list('EGRESS_ALLOW_CIDRS'),
    denyCidrs: r.list('EGRESS_DENY_CIDRS'),
  };
  for (const p of egressSettingsProblems(settings)) r.fail(p);
  return settings;
}
