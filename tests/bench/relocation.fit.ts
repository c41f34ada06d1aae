// Fits Assay's relocation model and writes services/analysis/src/relocation/model.ts.
//
//   node --import tsx tests/bench/relocation.fit.ts            # fit, cross-validate, write model.ts
//   ABLATION=1 node --import tsx tests/bench/relocation.fit.ts # also: cross-validated top-1 without each feature
//
// Both corpora together: the real-site one (tests/fixtures/relocation-real, 20
// sites) and the project's synthetic one (tests/fixtures/relocation, one
// "site" per page template). The model written is what one outer fold of the
// bench's nested cross-validation does, on every site: the setting of FIT_GRID
// and the abstention's L2 penalty and thresholds chosen on 10 folds by site,
// then the ranking and abstention models fitted on everything with them.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FEATURES, FIT_GRID, FIT_OPTIONS, calibrate, chooseAndFit, crossValidateBySite, crossValidatedOutcomes, featureCase, loadCorpus, siteOf, tierFigures, type FeatureCase, type NestedFold, type NestedOutcome } from '@assay/analysis';

/** Features by the property they read (the ablation leaves a whole group out). */
const GROUPS: Record<string, string[]> = {
  'tag and role': ['tag', 'tag_family', 'is_button', 'role_family'],
  'id, name, test id': ['id', 'name', 'id_words', 'name_words', 'testid', 'anchor_id'],
  classes: ['classes', 'class_words', 'class_set', 'class_page_best', 'class_rare'],
  'href and alt': ['href', 'alt', 'href_path', 'href_rare'],
  text: ['text', 'text_exact', 'text_words', 'text_page_best', 'text_rare', 'text_and_neighbours', 'text_and_path'],
  'labels (aria-label, title, alt, placeholder)': ['text_in_label', 'label_words'],
  'neighbour texts': ['neighbours', 'neighbours_by_side', 'neighbours_page_best', 'neighbours_rare', 'text_and_neighbours'],
  'XPath and DOM path': ['xpath', 'idxpath', 'path_tags', 'path_tail', 'xpath_page_best', 'idxpath_page_best', 'text_and_path'],
  'landmarks and region': ['landmarks', 'region'],
  'box (location, area, shape)': ['location', 'area', 'shape', 'near', 'near_page_best'],
  'VON visual overlap': ['von_text', 'von_identity', 'von_similo'],
  'other attributes (Healenium)': ['attributes', 'attributes_rare'],
  "Assay's readings (all but Similo's fourteen)": FEATURES.slice(14) as unknown as string[],
  "Similo's fourteen as Similo compares them": FEATURES.slice(0, 14) as unknown as string[],
};

export async function loadFeatureCases(): Promise<FeatureCase[]> {
  const real = await loadCorpus(fileURLToPath(new URL('../fixtures/relocation-real/', import.meta.url)));
  const synthetic = await loadCorpus(fileURLToPath(new URL('../fixtures/relocation/', import.meta.url)));
  return [...real.map((c) => featureCase(c, siteOf(c), 'real')), ...synthetic.map((c) => featureCase(c, siteOf(c), 'synthetic'))];
}

const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;

/** Cross-validated top-1 / top-3 per corpus, one line each. */
export function cvLines(cases: FeatureCase[], cv: ReturnType<typeof crossValidateBySite>): string[] {
  return ['real', 'synthetic'].map((corpus) => {
    const rel = cases.filter((c) => c.corpus === corpus && c.expected !== null);
    const sites = new Set(cases.filter((c) => c.corpus === corpus).map((c) => c.site)).size;
    return `Assay, cross-validated by site (${corpus}, ${sites} sites): top-1 ${pct(rel.filter((c) => cv.get(c)!.rank === 0).length, rel.length)}, top-3 ${pct(rel.filter((c) => cv.get(c)!.rank < 3).length, rel.length)}, cases ${cases.filter((c) => c.corpus === corpus).length}`;
  });
}

/**
 * Abstention on the cross-validated outcomes (each case scored by a model that never saw its site;
 * thresholds calibrated on all of them): how often "no match" was right, how many picks were wrong,
 * how many confident picks were wrong. The contradiction rule of the product comes on top.
 */
export function calibrationLines(cases: FeatureCase[], cv: ReturnType<typeof crossValidateBySite>): string[] {
  const { outcomes } = crossValidatedOutcomes(cases, cv, FIT_OPTIONS.caseWeight);
  const { pickAt, confidentAt } = calibrate([...outcomes.values()]);
  return ['real', 'synthetic'].map((corpus) => {
    const o = cases.filter((c) => c.corpus === corpus).map((c) => outcomes.get(c)!);
    const none = o.filter((x) => x.p < pickAt);
    const picks = o.filter((x) => x.p >= pickAt);
    const confident = o.filter((x) => x.p >= confidentAt);
    const share = (n: number, d: number) => (d ? pct(n, d) : 'n/a');
    const withTarget = o.filter((x) => !x.gone).length;
    return `Assay's abstention, cross-validated (${corpus}; pick at ${pickAt}, confident at ${confidentAt}): heal rate ${share(confident.filter((x) => x.right).length, withTarget)}, wrong heals ${share(confident.filter((x) => !x.right).length, confident.length)}, no-match precision ${share(none.filter((x) => x.gone).length, none.length)} (${none.length} said, ${o.filter((x) => x.gone).length} gone), wrong picks ${share(picks.filter((x) => !x.right).length, picks.length)} of ${picks.length}, wrong confident picks ${share(confident.filter((x) => !x.right).length, confident.length)} of ${confident.length}`;
  });
}

/**
 * The nested figures per corpus: ranking, and what the product does with each
 * case (apply a confident pick; offer a plausible one only once a re-run with
 * it passes, a possible one only once that re-run is one the case needed;
 * else say "no match").
 */
export function nestedLines(cases: FeatureCase[], outcomes: Map<FeatureCase, NestedOutcome>, folds: NestedFold[]): string[] {
  const lines = folds.map((f, i) => `  outer fold ${i + 1} (${f.sites.join(', ')}): ${f.setting}; confident at ${f.thresholds.confidentAt}, plausible at ${f.thresholds.plausibleAt} with a lead of ${f.thresholds.plausibleLead}, possible at ${f.thresholds.possibleAt} with a lead of ${f.thresholds.possibleLead}`);
  for (const corpus of ['real', 'synthetic']) {
    const f = tierFigures(cases.filter((c) => c.corpus === corpus).map((c) => outcomes.get(c)!));
    const sites = new Set(cases.filter((c) => c.corpus === corpus).map((c) => c.site)).size;
    const share = (n: number, d: number) => (d ? pct(n, d).replace('%', ' %') : 'n/a');
    const wrongConfident = f.confident - f.confidentRight;
    lines.push(
      `Assay, nested cross-validation by site (${corpus}, ${sites} sites, ${f.cases} cases): top-1 ${share(f.top1, f.withTarget)}, top-3 ${share(f.top3, f.withTarget)}, heal rate ${share(f.confidentRight, f.withTarget)}, wrong heals ${share(wrongConfident, f.confident)} (${wrongConfident} of ${f.confident} confident picks)` +
        `, no-match precision ${share(f.noneGone, f.none)} (${f.none} said, ${f.gone} gone)`,
      `  plausible picks (offered only once a re-run with them passes): ${f.plausible}, ${f.plausibleRight} right; heal rate counting a plausible pick as a heal when it is right (its re-run assumed to pass then and fail when it is wrong): ${share(f.confidentRight + f.plausibleRight, f.withTarget)}; if every wrong plausible pick's re-run passed too, wrong heals ${share(wrongConfident + f.plausible - f.plausibleRight, f.confident + f.plausible)}`,
      `  possible picks (offered only once a re-run with them passes and the case without the step fails): ${f.possible}, ${f.possibleRight} right`,
    );
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const cases = await loadFeatureCases();
  const chosen = chooseAndFit(cases, { grid: FIT_GRID, innerFolds: 10 });
  const { confidentAt, plausibleAt, plausibleLead, possibleAt, possibleLead } = chosen.thresholds;
  console.warn(`chosen on 10 folds by site: ${chosen.setting}; abstention L2 ${chosen.abstentionL2}, pages without their element at ${chosen.removalWeight}; confident at ${confidentAt}, plausible at ${plausibleAt} with a lead of ${plausibleLead}, possible at ${possibleAt} with a lead of ${possibleLead}`);
  const body = `// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on ${cases.filter((c) => c.corpus === 'real').length} real-site cases (tests/fixtures/relocation-real) and ${cases.filter((c) => c.corpus === 'synthetic').length} synthetic ones
// (tests/fixtures/relocation) with the setting chosen on 10 folds by site (${chosen.setting}; abstention L2 ${chosen.abstentionL2}, pages without their element at ${chosen.removalWeight}).
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ${JSON.stringify(FEATURES)},
  weights: ${JSON.stringify(chosen.model.weights)},
  goneLogit: ${chosen.model.goneLogit},
  abstention: ${JSON.stringify(chosen.abstention)},
  pickAt: ${plausibleAt},
  pickLead: ${plausibleLead},
  confidentAt: ${confidentAt},
  possibleAt: ${possibleAt},
  possibleLead: ${possibleLead},
};
`;
  // RELOCATION_MODEL_JSON=<file>: the model as JSON instead, for ANALYSIS_RELOCATION_MODEL (model.ts left as it is).
  const json = process.env.RELOCATION_MODEL_JSON;
  if (json) {
    const model = { features: FEATURES, weights: chosen.model.weights, goneLogit: chosen.model.goneLogit, abstention: chosen.abstention, pickAt: plausibleAt, pickLead: plausibleLead, confidentAt, possibleAt, possibleLead };
    await writeFile(json, `${JSON.stringify(model)}\n`);
    console.warn(`wrote ${json} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } else {
    await writeFile(fileURLToPath(new URL('../../services/analysis/src/relocation/model.ts', import.meta.url)), body);
    console.warn(`wrote model.ts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  if (process.env.ABLATION) {
    const cv = crossValidateBySite(cases, FIT_OPTIONS);
    console.warn(`\nablation (cross-validated by site, one group of features left out):`);
    for (const [group, features] of Object.entries(GROUPS)) {
      const without = crossValidateBySite(cases, { ...FIT_OPTIONS, without: new Set(features) });
      console.warn(`without ${group}: ${cvLines(cases, without).map((l) => l.replace(/^.*\((\w+),.*top-1 ([\d.]+%), top-3 ([\d.]+%).*$/, '$1 $2 / $3')).join(', ')}`);
    }
    // Misses: where the element ranked, and what changed about it.
    const sources = new Map([...(await loadCorpus(fileURLToPath(new URL('../fixtures/relocation-real/', import.meta.url)))), ...(await loadCorpus(fileURLToPath(new URL('../fixtures/relocation/', import.meta.url))))].map((c) => [c.name, c]));
    for (const corpus of ['real', 'synthetic']) {
      const misses = cases.filter((c) => c.corpus === corpus && c.expected !== null && cv.get(c)!.rank > 0);
      const kinds: Record<string, number> = {};
      const ranks: Record<string, number> = { '2': 0, '3': 0, '4-10': 0, '> 10': 0 };
      for (const m of misses) {
        const r = cv.get(m)!.rank + 1;
        ranks[r === 2 ? '2' : r === 3 ? '3' : r <= 10 ? '4-10' : '> 10']!++;
        const src = sources.get(m.name)!;
        const t = src.target;
        const e = src.candidates[m.expected!]!;
        const norm = (x?: string) => (x ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
        const tags = (x?: string) => (x ?? '').split('/').filter(Boolean).map((s) => s.replace(/\[.*$/, ''));
        const kind = t.tag !== e.tag ? 'tag changed' : norm(t.text) !== norm(e.text) ? 'text changed' : tags(t.xpath).join('/') !== tags(e.xpath).join('/') ? 'restructured (other DOM path)' : 'moved or reordered (same path shape, same text)';
        kinds[kind] = (kinds[kind] ?? 0) + 1;
      }
      console.warn(`\n${corpus}: ${misses.length} misses; expected element ranked ${Object.entries(ranks).map(([k, v]) => `${k}: ${v}`).join(', ')}; kinds: ${Object.entries(kinds).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      console.warn(`  ${misses.map((m) => `${m.name} (#${cv.get(m)!.rank + 1})`).join('; ')}`);
    }
  }
}
