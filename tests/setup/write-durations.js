// Writes tests/setup/durations.json (seconds per test file) from a jest --json report: the order
// tests/setup/sequencer.js starts files in on a machine whose jest cache is empty.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [report] = process.argv.slice(2);
if (!report) throw new Error('usage: node tests/setup/write-durations.js <jest --json report>');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const seconds = Object.fromEntries(
  testResults.map((f) => [path.relative(root, f.name), Math.round((f.endTime - f.startTime) / 100) / 10]).sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(new URL('./durations.json', import.meta.url), `${JSON.stringify(seconds, null, 1)}\n`);
console.warn(`tests/setup/durations.json: ${testResults.length} files`);
