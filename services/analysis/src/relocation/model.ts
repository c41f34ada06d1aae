// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation); Assay, cross-validated by site (real, 20 sites): top-1 91.4%, top-3 94.4%, cases 303; Assay, cross-validated by site (synthetic, 14 sites): top-1 88.5%, top-3 96.9%, cases 116.
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare"],
  weights: [0.2776,0.2668,1.401,0.9284,-0.3671,0.1124,-0.5627,-0.7109,0.4985,-0.6374,-0.9897,-0.461,0.9625,0.3715,0.2462,0.2198,1.7268,1.3721,0,0.158,0.0842,1.8977,-2.733,-0.0741,-0.1403,0.6982,1.8012,-0.0453,0.4784,2.1743,0.5198,-0.0108,-0.002,-0.2338,1.3925,1.2269,-0.5705,0.5107,0.4711,1.7812,-0.1049,1.4791,1.1279,2.1157,2.1786],
  goneLogit: 4.4762,
  pickAt: 0.5,
  confidentAt: 0.87,
};
