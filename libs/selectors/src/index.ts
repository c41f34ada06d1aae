/**
 * The one selector ranking of Assay: which selectors name an element, most
 * robust first (test id, role and accessible name, id, name, label, text,
 * attribute XPath, position), and how stable each kind is. Failure analysis
 * suggests selectors with it and the recorder writes steps with it, both from
 * the element fingerprint the runner reads in the page.
 */
export { isGeneratedName, nameOf, testIdOf, TESTID_ATTRIBUTES, type Fingerprint } from './fingerprint.js';
export { ANCESTOR_ATTRIBUTES, selectorCandidates, stabilityOf, type AncestorAttributes, type SelectorCandidate, type Stability } from './candidates.js';
