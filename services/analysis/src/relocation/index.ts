// The relocation module's entry: what the analysis service, the bench and the fit use.
export { FEATURES, pageFeatures, pageContext, boxOf, visualGroups, similoScore, type FeatureName } from './features.js';
export { calibrate, checkModel, crossValidateBySite, featureCase, fitModel, outcomeOf, probabilities, rankOf, type FeatureCase, type FitOptions, type LinearModel, type RelocationModel } from './fit.js';
export { formatDetail, formatScore, loadCorpus, scoreCorpus, siteOf, type CorpusScore } from './corpus.js';
export { assayRelocate, assayScorer, contradicts, healeniumScorer, plainSimiloScorer, SCORERS, similoScorer, type Relocation, type Scorer, type ScoredCandidate } from './scorers.js';
export { RELOCATION_MODEL } from './model.js';
export { elementSignature, roleFamily, type Fingerprint, type RelocationCase } from './fingerprint.js';
