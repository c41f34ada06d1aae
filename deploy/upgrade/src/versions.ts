import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * Every place the release's version is written: the root package.json and
 * every workspace package's, the chart's version and appVersion (the image tag
 * defaults to appVersion), the image tags in values.yaml (empty: the
 * appVersion), ASSAY_VERSION (GET /healthz and the event envelope) and the MCP
 * server's version. `make release-version V=x.y.z` writes them all; the
 * versions test reads them all.
 */

/** The repository: the nearest directory up from the working directory with pnpm-workspace.yaml (jest and make run there). */
export const REPO_ROOT = ((): string => {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dir === path.dirname(dir)) throw new Error('not inside the Assay repository (no pnpm-workspace.yaml above the working directory)');
  }
})();

export interface VersionSite {
  file: string;
  /** What is read there (the version, or an image tag that must be empty or the version). */
  what: string;
  value: string;
}

const WORKSPACE_DIRS = ['libs', 'services', 'deploy', 'apps'];
const EXTRA_PACKAGES = ['package.json', 'tests/package.json', 'tests/discovery-panel/package.json'];
export const VERSION_TS = 'libs/contracts/src/version.ts';
export const MCP_TS = 'libs/mcp/src/server.ts';
const CHART = 'helm/assay/Chart.yaml';
const VALUES = 'helm/assay/values.yaml';

export function packageJsonFiles(root = REPO_ROOT): string[] {
  const files = [...EXTRA_PACKAGES];
  for (const dir of WORKSPACE_DIRS) {
    for (const name of readdirSync(path.join(root, dir))) {
      const file = path.join(dir, name, 'package.json');
      if (existsSync(path.join(root, file))) files.push(file);
    }
  }
  return files.filter((f) => existsSync(path.join(root, f)));
}

/** Image tags in values.yaml: `image.tag` and every `services.<name>.image.tag`. */
function imageTags(values: Record<string, unknown>): Array<{ what: string; value: string }> {
  const tags: Array<{ what: string; value: string }> = [];
  const image = values.image as { tag?: string } | undefined;
  tags.push({ what: 'image.tag', value: String(image?.tag ?? '') });
  const services = (values.services ?? {}) as Record<string, { image?: { tag?: string } | string }>;
  for (const [name, svc] of Object.entries(services)) {
    if (svc && typeof svc.image === 'object' && svc.image.tag !== undefined) tags.push({ what: `services.${name}.image.tag`, value: String(svc.image.tag) });
  }
  return tags;
}

export function versionSites(root = REPO_ROOT): VersionSite[] {
  const read = (f: string) => readFileSync(path.join(root, f), 'utf8');
  const sites: VersionSite[] = packageJsonFiles(root).map((file) => ({ file, what: 'version', value: String((JSON.parse(read(file)) as { version?: string }).version ?? '') }));
  const chart = parse(read(CHART)) as { version: string; appVersion: string };
  sites.push({ file: CHART, what: 'version', value: String(chart.version) }, { file: CHART, what: 'appVersion', value: String(chart.appVersion) });
  for (const tag of imageTags(parse(read(VALUES)) as Record<string, unknown>)) sites.push({ file: VALUES, what: tag.what, value: tag.value });
  sites.push({ file: VERSION_TS, what: 'ASSAY_VERSION', value: /ASSAY_VERSION = '([^']*)'/.exec(read(VERSION_TS))?.[1] ?? '' });
  sites.push({ file: MCP_TS, what: 'MCP_SERVER_VERSION', value: /MCP_SERVER_VERSION = '([^']*)'/.exec(read(MCP_TS))?.[1] ?? '' });
  return sites;
}

/** The sites that disagree with `version` (an image tag may also be empty: the chart's appVersion). */
export function disagreements(version: string, sites: VersionSite[]): string[] {
  return sites
    .filter((s) => s.value !== version && !(s.what.endsWith('image.tag') && s.value === ''))
    .map((s) => `${s.file} ${s.what} is "${s.value}", not ${version}`);
}
