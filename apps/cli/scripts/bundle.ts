// Builds the publishable package of the CLI: one self-contained ES module with
// every dependency inlined (the workspace libraries are TypeScript sources and
// are not published), a package.json without dependencies, and the README.
// `npm pack dist/package` gives the tarball that `npx @assay/cli` installs.
//
//   pnpm --filter @assay/cli bundle [outDir]      (default apps/cli/dist/package)
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist', 'package'));
const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string; description: string };

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const result = await build({
  metafile: true,
  entryPoints: [path.join(root, 'src', 'entry.ts')],
  outfile: path.join(out, 'assay.mjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  legalComments: 'linked',
  // Some bundled CommonJS packages call require() or read __dirname (re2-wasm loads re2.wasm beside itself): give the module both.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __assayCreateRequire } from 'node:module';\nimport { dirname as __assayDirname } from 'node:path';\nimport { fileURLToPath as __assayFileURLToPath } from 'node:url';\nconst require = __assayCreateRequire(import.meta.url);\nconst __filename = __assayFileURLToPath(import.meta.url);\nconst __dirname = __assayDirname(__filename);",
  },
  logLevel: 'warning',
});
await writeFile(
  path.join(out, 'package.json'),
  `${JSON.stringify(
    {
      name: '@assay/cli',
      version: manifest.version,
      description: manifest.description,
      type: 'module',
      bin: { assay: 'assay.mjs' },
      engines: { node: '>=20.19' },
      files: ['assay.mjs', 're2.wasm', 'assay.mjs.LEGAL.txt', 'THIRD_PARTY_LICENSES.txt', 'README.md'],
      license: 'UNLICENSED',
    },
    null,
    2,
  )}\n`,
);
await copyFile(path.join(root, 'README.md'), path.join(out, 'README.md'));
// The safe regular expressions of step validation (libs/contracts) run in re2-wasm: its module file travels with the bundle.
const contracts = createRequire(path.join(root, '..', '..', 'libs', 'contracts', 'package.json'));
await copyFile(path.join(path.dirname(contracts.resolve('re2-wasm')), '..', 'wasm', 're2.wasm'), path.join(out, 're2.wasm'));
await writeFile(path.join(out, 'THIRD_PARTY_LICENSES.txt'), await thirdPartyLicenses(Object.keys(result.metafile.inputs)));
console.error(`Built ${out}`);

/** The name, version, licence and licence text of every npm package inlined in the bundle. */
async function thirdPartyLicenses(inputs: string[]): Promise<string> {
  const roots = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at === -1) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    roots.add(path.resolve(input.slice(0, at + 'node_modules/'.length) + rest.slice(0, rest[0]!.startsWith('@') ? 2 : 1).join('/')));
  }
  const sections: string[] = [];
  for (const dir of [...roots].sort()) {
    if (!existsSync(path.join(dir, 'package.json'))) continue;
    const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const file = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file ? await readFile(path.join(dir, file), 'utf8') : '(no licence file in the package)';
    sections.push(`${pkg.name}@${pkg.version} (${pkg.license ?? 'see below'})\n\n${text.trim()}\n`);
  }
  return `The assay command bundles these packages:\n\n${sections.join('\n' + '-'.repeat(72) + '\n\n')}`;
}
