export {
  classifyAddress,
  DEFAULT_EGRESS,
  EgressDeniedError,
  EgressPolicy,
  egressSettingsProblems,
  normaliseHost,
  parseAddress,
  type AddressCategory,
  type Classified,
  type EgressPolicyOptions,
  type EgressSettings,
  type Resolve,
  type Verdict,
} from './policy.js';
export { readEgressSettings } from './settings.js';
export { EgressProxy, type BlockedConnection, type FailedConnection } from './proxy.js';
export { egressConnector } from './connector.js';
