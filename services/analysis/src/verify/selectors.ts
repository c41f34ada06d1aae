// The selector ranking is shared with the recorder (execution-runner): one implementation in @assay/selectors.
export { selectorCandidates, stabilityOf, TESTID_ATTRIBUTES, type SelectorCandidate } from '@assay/selectors';
