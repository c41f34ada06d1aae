/**
 * The package entry of `@assay/analysis` (a service: nothing else of it is
 * imported from outside): the relocation scorers and their corpus tools, for
 * the relocation bench and its fitting script (tests/bench/relocation.*),
 * which import this and nothing deeper.
 */
export { formatDetail, formatScore, loadCorpus, scoreCorpus, type CorpusScore } from './corpus.js';
export { ASSAY_THRESHOLDS, ASSAY_WEIGHTS, SCORERS, assayRelocate, type AssayWeights, type Scorer } from './scorers.js';
