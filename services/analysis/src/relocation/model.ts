// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation); Assay, cross-validated by site (real, 20 sites): top-1 92.7%, top-3 95.0%, cases 303; Assay, cross-validated by site (synthetic, 14 sites): top-1 89.6%, top-3 96.9%, cases 116.
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","region","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare","text_and_neighbours","text_and_path"],
  weights: [0.5893,-0.1439,1.4585,0.871,-0.3385,0.1915,-0.7105,-0.8306,0.7317,-0.815,-0.9256,-0.8497,0.7925,0.4469,0.4966,-0.0642,1.8867,1.466,0,-0.077,-0.4305,1.9319,0,0,-0.3786,-0.0486,1.7921,-0.0543,0.5859,1.8733,0.6769,-0.0099,-0.0012,-0.07,0.6103,1.1167,1.3166,-1.0268,0.5199,0.2697,2.51,-0.0998,2.0904,1.1684,2.8597,2.2276,-1.6453,-0.0248],
  goneLogit: 4.9984,
  pickAt: 0.32,
  confidentAt: 0.88,
};
