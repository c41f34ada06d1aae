import { readFileSync } from 'node:fs';
import { checkModel, type RelocationModel } from './fit.js';

/**
 * A relocation model from a JSON file (the fields of model.ts; the fit writes
 * one with `RELOCATION_MODEL_JSON=<file>`), checked against the features this
 * code computes. Throws a sentence naming the file and what is wrong with it.
 */
export function readRelocationModel(path: string): RelocationModel {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`ANALYSIS_RELOCATION_MODEL: ${path} could not be read as JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  try {
    return checkModel(parsed as RelocationModel);
  } catch (err) {
    throw new Error(`ANALYSIS_RELOCATION_MODEL: ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
