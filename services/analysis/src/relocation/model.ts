// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation) with the setting chosen on 10 folds by site (pairwise, L2 0.001; abstention L2 0.001, pages without their element at 0).
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","region","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare","text_and_neighbours","text_and_path","attributes","attributes_rare"],
  weights: [0.0717,0.4596,0.2374,0.1684,0.1189,0.0021,0.2297,0.32,0,0.2585,0.1974,0.5587,0.855,0.5054,0,0.4494,0.185,0.2324,0,0.2646,0.5233,1.0444,0,0,0.4952,0.6718,0.774,0.7275,0.4488,1.0574,0,-0.0046,-0.0017,-0.0597,0.7979,1.3873,0.3607,0.2785,0.2719,0.4702,0.8345,0.2898,0.7374,0.2622,0.264,0.302,0.068,0.4117,0.3753,0.4374],
  goneLogit: 5.2334,
  abstention: [-1.9294,-0.1004,1.0777,0.0037,0.4042,0.3615,-0.4239,0.5316,0.4023,-0.2035,0.1757,0.2449,0.1251,0.008,-0.0068,-0.4954,-0.1817,-0.8068,-0.4511,-0.3172,-0.0285,0.0116,0.6818,-0.8925,0.5085,-0.0355,0,-0.0427,0.0532,0.6566,-0.2471,1.0121,-0.4239,0.0646,1.0574,0.1091,0.0489,-0.0763,0.5316,0,0,0.0282,0.5603,-0.2547,1.1719,-0.4618,0.679,-0.2083,-0.2214,-0.4595,0.7146,0.2999,1.034,0.6847,-0.2821,0.31,-0.8474,0.2867,-0.1372,0.3523,0.2713,0.2449,0.2938,0.008,0.0152,0.2859,-0.1854,-0.7745,0.3916,-0.2788,-0.3056,-0.358,-0.1868,0.5905,0.6008,0.0238,0,0.798,-0.5778,0.021,-0.3403,1.1952,0.9517,-0.044,0.0836,0.2832,0.6601,-0.4413,-0.6046,-0.0448,0,-0.0058,0.6517,0.9867,-0.0889,-0.053,-0.722,-1.0744,-0.6811,-0.2916,-0.1837,0.9497,1.0029,0.8691,0.0283,0.3095,1.2236,1.1276],
  pickAt: 0.76,
  pickLead: 1,
  confidentAt: 0.81,
  possibleAt: 0.35,
};
