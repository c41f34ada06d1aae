import { fileURLToPath } from 'node:url';
import { loadCorpus, siteOf } from '../../services/analysis/src/relocation/corpus.js';
import { featureCase, crossValidateBySite, fitModel, rankOf, type FeatureCase } from '../../services/analysis/src/relocation/fit.js';
import { FEATURES } from '../../services/analysis/src/relocation/features.js';

const t0 = Date.now();
const real = await loadCorpus(fileURLToPath(new URL('../fixtures/relocation-real/', import.meta.url)));
const syn = await loadCorpus(fileURLToPath(new URL('../fixtures/relocation/', import.meta.url)));
const cases: FeatureCase[] = [...real.map((c) => featureCase(c, siteOf(c), 'real')), ...syn.map((c) => featureCase(c, siteOf(c), 'synthetic'))];
console.log(`features: ${Date.now() - t0} ms, sites ${new Set(cases.map((c) => c.corpus + c.site)).size}`);
const l2 = Number(process.env.L2 ?? 0.01);
const without = new Set((process.env.WITHOUT ?? '').split(',').filter(Boolean));
const t1 = Date.now();
const opts = { l2, without, keep: Number(process.env.KEEP ?? 40), iterations: Number(process.env.ITER ?? 200) };
const cv = crossValidateBySite(cases, opts);
console.log(`cv: ${Date.now() - t1} ms`);
for (const corpus of ['real', 'synthetic']) {
  const rel = cases.filter((c) => c.corpus === corpus && c.expected !== null);
  const top1 = rel.filter((c) => cv.get(c)!.rank === 0).length;
  const top3 = rel.filter((c) => cv.get(c)!.rank < 3).length;
  console.log(`${corpus}: cv top-1 ${((100 * top1) / rel.length).toFixed(1)}% top-3 ${((100 * top3) / rel.length).toFixed(1)}% of ${rel.length}`);
}
const full = fitModel(cases, opts);
console.log(FEATURES.map((f, i) => `${f}=${full.weights[i]}`).join(' '), 'gone', full.goneLogit);
for (const corpus of ['real', 'synthetic']) {
  const rel = cases.filter((c) => c.corpus === corpus && c.expected !== null);
  console.log(`${corpus}: train top-1 ${((100 * rel.filter((c) => rankOf(full, c) === 0).length) / rel.length).toFixed(1)}%`);
}
if (process.env.MISSES) for (const c of cases) if (c.expected !== null && cv.get(c)!.rank > 0) console.log(`miss ${c.corpus} ${c.name} rank ${cv.get(c)!.rank}`);
if (process.env.SHOW) {
  const all = [...real, ...syn];
  const brief = (f: any) => JSON.stringify({ tag: f.tag, id: f.id, cl: (f.classes ?? []).join(' ').slice(0, 40), text: (f.text ?? '').slice(0, 50), href: f.attributes?.href?.slice(0, 60), x: f.xpath?.slice(-60), idx: f.idxpath?.slice(0, 50), nb: f.neighbor_text, box: f.bbox });
  for (const c of cases) {
    const r = cv.get(c)!;
    if (c.expected === null || r.rank === 0 || !c.name.match(new RegExp(process.env.SHOW))) continue;
    const src = all.find((x) => x.name === c.name)!;
    const w = r.model.weights;
    const scores = c.rows.map((row) => row.reduce((a, x, k) => a + w[k]! * x, 0));
    const top = scores.indexOf(Math.max(...scores));
    console.log(`\n== ${c.name} rank ${r.rank}\nT ${brief(src.target)}\nE ${brief(src.candidates[c.expected])}\nP ${brief(src.candidates[top])}`);
    const diff = FEATURES.map((f, k) => [f, w[k]! * (c.rows[c.expected!]![k]! - c.rows[top]![k]!)] as const).filter(([, d]) => Math.abs(d) > 0.05).sort((a, b) => a[1] - b[1]);
    console.log('  E-P:', diff.map(([f, d]) => `${f}:${d.toFixed(2)}`).join(' '));
  }
}
