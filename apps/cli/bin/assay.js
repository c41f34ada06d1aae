#!/usr/bin/env node
// The `assay` command in this repository: the TypeScript sources run through
// tsx, like every package here. The npm package is a bundle of the same
// sources with its own entry (scripts/bundle.ts, src/entry.ts).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
