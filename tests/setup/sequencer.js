// Test order for `make test`. Jest's own order puts the slowest files first only
// when its cache knows their durations; a fresh clone (CI) has no cache, and
// then the long end-to-end files could start last and leave one worker running
// alone for minutes. So: files with known durations keep jest's order (slowest
// first); files without one go end-to-end first, then integration, then unit,
// each largest first, before the quick files jest already knows.
import TestSequencer from '@jest/test-sequencer';
import { statSync } from 'node:fs';

const Sequencer = TestSequencer.default ?? TestSequencer;

const rank = (path) => (path.includes('/tests/e2e/') ? 0 : /\/(libs|services|deploy|apps)\/[^/]+\/test\//.test(path) ? 1 : 2);
const size = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

export default class AssaySequencer extends Sequencer {
  sort(tests) {
    const known = [];
    const unknown = [];
    for (const t of tests) (this.time(t) !== undefined ? known : unknown).push(t);
    if (unknown.length === 0) return super.sort(tests);
    unknown.sort((a, b) => rank(a.path) - rank(b.path) || size(b.path) - size(a.path));
    return [...unknown, ...super.sort(known)];
  }
}
