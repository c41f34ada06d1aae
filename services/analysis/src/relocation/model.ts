// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation) with the setting chosen on 10 folds by site (pairwise, L2 0.001; abstention L2 0.003, pages without their element at 0).
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","region","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare","text_and_neighbours","text_and_path","attributes","attributes_rare"],
  weights: [0.0674,0.4615,0.2214,0.1708,0.117,0.0005,0.2214,0.3108,0,0.2383,0.1733,0.5404,0.8517,0.5067,0,0.4537,0.1781,0.2132,0,0.2651,0.519,1.0397,0,0,0.4821,0.6669,0.7664,0.7127,0.4473,1.07,0,-0.0046,-0.0017,-0.0598,0.8017,1.3882,0.3605,0.2802,0.2661,0.479,0.8244,0.293,0.732,0.2667,0.2655,0.3025,0.1213,0.4267,0.3628,0.4138],
  goneLogit: 5.2289,
  abstention: [-1.4185,-0.0874,0.9055,0.031,0.1085,0.376,-0.281,0.4563,0.3792,-0.1756,0.195,0.141,0.143,0.002,-0.0194,-0.1957,0.0081,-0.4605,-0.3276,-0.2582,0.0244,-0.0634,0.4958,-0.5689,0.2145,0.1046,0,0.0915,0.0627,0.3912,-0.28,0.4016,-0.281,0.0014,0.6431,-0.0913,-0.0922,0.0038,0.4563,0,0,0.0095,0.3151,-0.1873,0.8002,-0.3074,0.2292,-0.2318,-0.1281,-0.3585,0.1967,0.3153,0.5088,0.4158,-0.1831,0.2729,-0.4475,0.2939,-0.0166,0.2624,0.1128,0.141,0.1975,0.002,-0.0377,0.202,-0.2554,-0.455,0.3688,-0.0163,-0.1117,-0.1837,-0.076,0.3,0.249,0.0059,0,0.4097,-0.1391,0.1057,-0.3839,0.4512,0.3645,-0.0311,0.1954,0.1421,0.2894,-0.1905,-0.3875,-0.0245,0,-0.0032,0.3401,0.5207,-0.0199,0.0648,-0.5083,-0.6341,-0.285,-0.1132,-0.3291,0.6307,0.5582,0.4671,0.0563,0.2716,0.6799,0.6743],
  pickAt: 0.76,
  pickLead: 0,
  confidentAt: 0.76,
  possibleAt: 0.76,
  possibleLead: 0,
};
