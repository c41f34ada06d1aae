// The selector ranking is shared with the recorder (execution-runner): one implementation in @assay/selectors.
export { ANCESTOR_ATTRIBUTES, selectorCandidates, stabilityOf, TESTID_ATTRIBUTES, type AncestorAttributes, type SelectorCandidate } from '@assay/selectors';
