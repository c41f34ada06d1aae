/**
 * The package entry of `@assay/analysis` (a service: nothing else of it is
 * imported from outside): the relocation scorers, the fitted model and their
 * corpus and fitting tools, for the analysis service, the relocation bench and
 * its fitting script (tests/bench/relocation.*), which import this and nothing deeper.
 */
export { FEATURES, pageFeatures, pageContext, boxOf, visualGroups, similoScore, type FeatureName } from './features.js';
export {
  calibrate,
  checkModel,
  crossValidateBySite,
  crossValidatedOutcomes,
  FIT_GRID,
  FIT_OPTIONS,
  featureCase,
  fitAbstention,
  fitModel,
  probabilities,
  rankOf,
  rightProbability,
  topReadings,
  type FeatureCase,
  type FitOptions,
  type LinearModel,
  type Outcome,
  type RelocationModel,
} from './fit.js';
export { formatDetail, formatScore, loadCorpus, scoreCorpus, siteOf, type CorpusScore } from './corpus.js';
export { assayRelocate, assayScorer, contradicts, healeniumScorer, plainSimiloScorer, SCORERS, similoScorer, useRelocationModel, type Relocation, type Scorer, type ScoredCandidate } from './scorers.js';
export { readRelocationModel } from './model-file.js';
export { RELOCATION_MODEL } from './model.js';
export { controlKey, elementSignature, roleFamily, sameControlNested, type ControlKey, type Fingerprint, type RelocationCase } from './fingerprint.js';
export { calibrateTiers, chooseAndFit, foldsBySite, nestedCrossValidate, scoreChosen, type Chosen, tierFigures, tierOf, type NestedFold, type NestedOptions, type NestedOutcome, type Thresholds, type TierFigures } from './nested.js';
