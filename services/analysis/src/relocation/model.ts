// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation); Assay, cross-validated by site (real, 20 sites): top-1 94.1%, top-3 97.7%, cases 303; Assay, cross-validated by site (synthetic, 14 sites): top-1 90.6%, top-3 96.9%, cases 116.
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","region","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare","text_and_neighbours","text_and_path","attributes","attributes_rare"],
  weights: [0,0.7898,0.3714,0.3628,0.2287,0.0007,0.5635,0.4075,0,0.3773,0.3982,1.1228,1.05,0.8761,0,0.6346,0.1006,0.3473,0,0.549,0.686,1.1668,0,0,0.7879,1.3453,0.8802,1.2119,0.5861,1.1632,0,-0.0172,-0.0047,-0.224,1.0503,2.1977,0.6364,0.4836,0.2589,0.483,1.0668,0.4424,1.0743,0.5217,0.4793,0.6229,0.3747,0.6858,0.3836,0.6537],
  goneLogit: 6.9907,
  abstention: [-1.269,-0.238,0.8074,0.4359,1.4733,1.0808,-0.7929,2.3924],
  pickAt: 0.78,
  confidentAt: 0.86,
};
