import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * Slowest files first, so no long file starts last and runs alone while the other workers idle.
 * Jest's own cache knows the durations of the last run on this machine; a fresh clone has no cache,
 * so the durations of a recorded full run (tests/setup/durations.json, refreshed with
 * `make test-durations`) stand in; a file in neither counts by its size, as jest does.
 */
const recorded = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8'));
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export default class ByDuration extends (Sequencer.default ?? Sequencer) {
  sort(tests) {
    const seconds = (test) => {
      const cached = this._getCache(test)[test.path];
      if (cached?.[1]) return cached[1] / 1000;
      const known = recorded[path.relative(root, test.path)];
      if (known !== undefined) return known;
      try {
        return statSync(test.path).size / 1000; // about a second per kilobyte of test
      } catch {
        return 0;
      }
    };
    const failed = (test) => this._getCache(test)[test.path]?.[0] === 0;
    return [...tests].sort((a, b) => Number(failed(b)) - Number(failed(a)) || seconds(b) - seconds(a));
  }
}
