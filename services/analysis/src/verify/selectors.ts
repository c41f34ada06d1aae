// The selector ranking is shared with the recorder (execution-runner): one implementation in @assay/selectors.
export { selectorCandidates, stabilityOf, type SelectorCandidate } from '@assay/selectors';
