import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readRelocationModel } from './model-file.js';
import { RELOCATION_MODEL } from './model.js';
import { assayRelocate, useRelocationModel } from './scorers.js';
import type { Fingerprint } from './fingerprint.js';

// ANALYSIS_RELOCATION_MODEL: a model fitted on an installation's own sites, read and checked at start.
const dir = mkdtempSync(path.join(tmpdir(), 'assay-model-'));
const file = (name: string, body: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, body);
  return p;
};

describe('a relocation model from a file', () => {
  it('reads a model of the features this code computes', () => {
    const p = file('good.json', JSON.stringify({ ...RELOCATION_MODEL, pickAt: 0.9, confidentAt: 0.95 }));
    expect(readRelocationModel(p)).toMatchObject({ pickAt: 0.9, confidentAt: 0.95 });
  });

  it('refuses, naming the file and the fault, what is not such a model', () => {
    expect(() => readRelocationModel(path.join(dir, 'missing.json'))).toThrow(/ANALYSIS_RELOCATION_MODEL: .*missing\.json could not be read as JSON/);
    expect(() => readRelocationModel(file('text.json', 'not json'))).toThrow(/could not be read as JSON/);
    expect(() => readRelocationModel(file('empty.json', '{}'))).toThrow(/empty\.json: the relocation model must have features, weights and abstention/);
    expect(() => readRelocationModel(file('old.json', JSON.stringify({ ...RELOCATION_MODEL, features: RELOCATION_MODEL.features.slice(1), weights: RELOCATION_MODEL.weights.slice(1) })))).toThrow(/fitted for other features/);
    expect(() => readRelocationModel(file('nan.json', JSON.stringify({ ...RELOCATION_MODEL, weights: RELOCATION_MODEL.weights.map((w, i) => (i ? w : 'x')) })))).toThrow(/numbers/);
    expect(() => readRelocationModel(file('order.json', JSON.stringify({ ...RELOCATION_MODEL, pickAt: 0.9, confidentAt: 0.5 })))).toThrow(/pickAt <= confidentAt/);
    expect(() => readRelocationModel(file('band.json', JSON.stringify({ ...RELOCATION_MODEL, possibleAt: 2 })))).toThrow(/possibleAt/);
  });

  it('is what relocation uses once set, until another is', () => {
    const target: Fingerprint = { tag: 'button', id: 'save', text: 'Save', role: 'button', bbox: { x: 10, y: 10, width: 80, height: 30 } };
    const candidates: Fingerprint[] = [{ tag: 'button', id: 'store', text: 'Save', role: 'button', bbox: { x: 12, y: 12, width: 80, height: 30 } }];
    expect(assayRelocate(target, candidates).best?.index).toBe(0);
    const was = useRelocationModel({ ...RELOCATION_MODEL, pickAt: 1, confidentAt: 1 });
    try {
      expect(assayRelocate(target, candidates).best).toBeUndefined();
    } finally {
      useRelocationModel(was);
    }
    expect(assayRelocate(target, candidates).best?.index).toBe(0);
    expect(() => useRelocationModel({ ...RELOCATION_MODEL, weights: [] })).toThrow(/other features/);
  });
});
