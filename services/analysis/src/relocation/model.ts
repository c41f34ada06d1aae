// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation) with the setting chosen on 10 folds by site (pairwise, L2 0.001; abstention L2 0.001).
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","region","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare","text_and_neighbours","text_and_path","attributes","attributes_rare"],
  weights: [0.0717,0.4596,0.2374,0.1684,0.1189,0.0021,0.2297,0.32,0,0.2585,0.1974,0.5587,0.855,0.5054,0,0.4494,0.185,0.2324,0,0.2646,0.5233,1.0444,0,0,0.4952,0.6718,0.774,0.7275,0.4488,1.0574,0,-0.0046,-0.0017,-0.0597,0.7979,1.3873,0.3607,0.2785,0.2719,0.4702,0.8345,0.2898,0.7374,0.2622,0.264,0.302,0.068,0.4117,0.3753,0.4374],
  goneLogit: 5.2334,
  abstention: [-1.7743,-0.0863,1.0159,-0.0107,0.4927,0.2893,-0.4088,0.4944,0.3931,-0.275,0.1773,0.2631,0.1225,0.0088,0.0469,-0.4486,-0.2531,-0.8163,-0.6048,-0.3731,0.0057,-0.0602,0.6953,-0.9611,0.5046,-0.0844,0,-0.0737,-0.0435,0.787,-0.2874,1.0374,-0.4088,0.0934,1.1295,0.0951,0.1272,0.1023,0.4944,0,0,0.0246,0.6794,-0.4091,1.1551,-0.4522,0.6204,-0.2324,-0.2433,-0.4096,0.9734,0.2989,0.9612,0.6948,-0.2883,0.3826,-0.9071,0.3723,-0.1424,0.406,0.2563,0.2631,0.191,0.0088,-0.0132,0.3094,-0.2696,-0.801,0.2972,-0.2749,-0.4393,-0.377,-0.0472,0.679,0.591,-0.0402,0,0.7843,-0.5958,-0.1946,-0.2597,1.1614,0.9568,-0.0809,0.0047,0.143,0.7338,-0.5497,-0.2405,-0.0508,-0.006,-0.1825,0.9669,1.045,0.1259,0.0738,-0.6174,-1.0797,-0.6581,-0.2229,-0.1098,0.9878,1.0312,0.9207,0.0999,0.0695,1.2512,1.1994],
  pickAt: 0.78,
  pickLead: 1,
  confidentAt: 0.82,
};
