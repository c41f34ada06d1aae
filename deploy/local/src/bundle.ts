import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, stop, type Plugin } from 'esbuild';

/**
 * Builds the services the launcher starts into plain JavaScript, one file per
 * service (shared code in chunks beside them), so each process loads a few
 * files instead of compiling hundreds of TypeScript modules through tsx's
 * loader hooks at every start.
 *
 * - Our own code (the service and the `@assay/*` libraries) is bundled; every
 *   other package stays an import, rewritten to the absolute path of the file
 *   Node would load, so the output runs from any directory and loads exactly
 *   the packages the sources do.
 * - Each module keeps its own `import.meta.url` (its source file's URL), so
 *   paths resolved from it (the console's files, the trace viewer, the tracing
 *   hook) are the ones the sources resolve.
 * - The tracing preload is an entry too; its SDK stays a chunk of its own that
 *   is imported only when tracing is on, as from the sources.
 * - Source maps beside the output: run with `--enable-source-maps` and stack
 *   traces name the TypeScript files and lines. Not for the services that
 *   drive Chromium (`PLAYWRIGHT_SERVICES`) unless ASSAY_SOURCE_MAPS=all.
 */

export interface ServiceBundles {
  /** The entry file of each service by name. */
  entry(service: string): string;
  /** Node arguments that load the tracing preload before the service: `node ...nodeArgs(service) entry`. */
  nodeArgs(service: string): string[];
}

export async function bundleServices(repo: string, services: readonly string[], outDir: string): Promise<ServiceBundles> {
  const entryPoints: Record<string, string> = { register: path.join(repo, 'libs', 'telemetry', 'src', 'register.ts') };
  // `services/<name>/main.mjs`: the tracing preload names a service after the directory under `services`.
  for (const name of services) entryPoints[`services/${name}/main`] = path.join(repo, 'services', name, 'src', 'main.ts');
  await build({
    entryPoints,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Resolve packages as Node does ("main", the "import"/"node"/"default" conditions), not as bundlers
    // do ("module"): the rewritten imports must name the files Node itself would load.
    mainFields: ['main'],
    conditions: [],
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
    absWorkingDir: repo,
    plugins: [packagesByPath(), ownImportMetaUrl(repo)],
  }).finally(() =>
    // esbuild's service process would otherwise live as long as the launcher and outlive its exit by a moment.
    stop(),
  );
  return { entry: (service) => entryOf(outDir, service), nodeArgs: (service) => preloadArgs(outDir, service) };
}

const entryOf = (outDir: string, service: string) => path.join(outDir, 'services', service, 'main.mjs');
/**
 * The services that run Playwright. Playwright reads `Error.stack` (up to 50
 * frames) at every API call and in every wait it races, and under
 * `--enable-source-maps` Node formats each of those stacks in JavaScript,
 * frame by frame: 7 % of the runner's CPU in the executions bench (see the
 * execution-runner README, Performance). Without it, V8 formats them natively.
 * Their stack traces name the bundle's files and lines, with the functions'
 * own names (the bundle is not minified); ASSAY_SOURCE_MAPS=all maps them to
 * the TypeScript sources as in the other services.
 */
export const PLAYWRIGHT_SERVICES: ReadonlySet<string> = new Set(['execution-runner', 'discovery-crawler']);

const preloadArgs = (outDir: string, service: string) => [
  ...(PLAYWRIGHT_SERVICES.has(service) && process.env.ASSAY_SOURCE_MAPS !== 'all' ? [] : ['--enable-source-maps']),
  '--import',
  pathToFileURL(path.join(outDir, 'register.mjs')).href,
];

/** The node arguments that start `service` from a build made by bundleServices in `outDir`, or undefined without one. */
export function bundledServiceArgs(outDir: string, service: string): string[] | undefined {
  const entry = entryOf(outDir, service);
  return existsSync(entry) ? [...preloadArgs(outDir, service), entry] : undefined;
}

/** Bare imports of anything but `@assay/*` stay imports, of the absolute path Node would resolve them to. */
function packagesByPath(): Plugin {
  return {
    name: 'packages-by-path',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('@assay/') || args.path.startsWith('node:') || args.pluginData === 'inner') return undefined;
        const found = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: 'inner' });
        if (found.errors.length > 0) return { errors: found.errors };
        // Node's built-in modules come back external under their own name.
        return { path: found.external ? args.path : found.path, external: true };
      });
    },
  };
}

/** Replaces `import.meta.url` in our TypeScript with the module's own source URL. */
function ownImportMetaUrl(repo: string): Plugin {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(repo) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
        return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
      });
    },
  };
}
