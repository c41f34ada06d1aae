// The bundled command's entry point (scripts/bundle.ts); bin/assay.js is the
// same for the TypeScript sources.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
