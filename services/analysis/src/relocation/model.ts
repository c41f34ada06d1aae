// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on 303 real-site cases (tests/fixtures/relocation-real) and 116 synthetic ones
// (tests/fixtures/relocation) with the setting chosen on 10 folds by site (pairwise, L2 0.001; abstention L2 0.001, pages without their element at 0).
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ["tag","classes","name","id","href","alt","xpath","idxpath","is_button","location","area","shape","text","neighbours","tag_family","class_words","id_words","name_words","testid","href_path","text_exact","text_words","text_in_label","label_words","neighbours_by_side","path_tags","path_tail","near","near_page_best","text_page_best","role_family","von_text","von_identity","von_similo","landmarks","region","anchor_id","class_set","xpath_page_best","idxpath_page_best","neighbours_page_best","class_page_best","text_rare","neighbours_rare","class_rare","href_rare","text_and_neighbours","text_and_path","attributes","attributes_rare"],
  weights: [0.0671,0.4617,0.2211,0.1707,0.117,0.0005,0.2213,0.3107,0,0.2394,0.1728,0.5404,0.8517,0.5079,0,0.4539,0.1779,0.2129,0,0.2651,0.5192,1.0397,0,0,0.483,0.6667,0.7678,0.7125,0.4485,1.0706,0,-0.0046,-0.0017,-0.0598,0.8015,1.3881,0.3604,0.2804,0.267,0.4788,0.8251,0.2932,0.7318,0.2688,0.2655,0.3025,0.1193,0.4253,0.3634,0.4135],
  goneLogit: 5.2255,
  abstention: [-2.2741,-0.066,1.053,0.0199,0.3362,0.3674,-0.4751,0.6251,0.3812,-0.2376,0.2862,0.2734,0.1326,0.0016,-0.0095,-0.5746,-0.0114,-0.8205,-0.54,-0.2952,-0.0053,0.0085,0.707,-0.9048,0.3903,0.0535,0,-0.045,0.0841,0.6423,-0.3016,0.9569,-0.4751,0.0385,1.026,0.0957,0.0343,-0.0874,0.6251,0,0,0.0259,0.5681,-0.2627,1.2549,-0.4463,0.5902,-0.2352,-0.129,-0.4515,0.6023,0.316,1.0292,0.6832,-0.3048,0.286,-0.8271,0.3158,-0.0749,0.3878,0.2204,0.2734,0.2732,0.0016,0.0458,0.2614,-0.4124,-0.8421,0.652,-0.2006,-0.2875,-0.2671,-0.1134,0.5964,0.524,-0.0438,0,0.7986,-0.4435,0.0674,-0.3809,1.1204,0.9309,0.0157,0.1245,0.3286,0.6543,-0.336,-0.8573,-0.0445,0,-0.0057,0.6214,0.9653,-0.0535,-0.0264,-0.6855,-1.037,-0.7195,-0.3073,-0.4954,1.0233,1.0106,0.8732,0.0058,0.2854,1.2294,1.0918],
  pickAt: 0.59,
  pickLead: 1,
  confidentAt: 0.8,
  possibleAt: 0.49,
  possibleLead: 0,
};
