import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { CHART_DIR, REPO_ROOT, helm } from './helm.js';

// `helm upgrade` from the previous chart version (deploy/upgrade/previous-chart, the chart as the
// previous release shipped it; `make upgrade-snapshot` writes it): the values a user ran the previous
// chart with render the new one, and what an upgrade cannot change in place stays the same.
jest.setTimeout(120_000);

const PREVIOUS_CHART = path.join(REPO_ROOT, 'deploy/upgrade/previous-chart');
type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: any };

let home: string;
beforeAll(() => {
  home = mkdtempSync(path.join(tmpdir(), 'assay-helm-upgrade-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const DB = { externalDatabase: { url: 'postgres://assay:pw@db.example.internal:5432/assay' } };
const CASES: Record<string, Record<string, unknown>> = {
  'pg bus': { ...DB, bus: { kind: 'pg' } },
  'kafka bus': { ...DB, bus: { kind: 'kafka', kafka: { brokers: ['kafka-0.kafka:9092'], provisionTopics: false } } },
};

async function render(chart: string, values: Record<string, unknown>): Promise<K8sObject[]> {
  const file = path.join(home, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  const out = await helm(['template', 'assay', chart, '--namespace', 'assay', '-f', file], { home });
  if (out.code !== 0) throw new Error(`helm template ${chart} failed:\n${out.stderr}`);
  return parseAllDocuments(out.stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
const images = (objects: K8sObject[]) =>
  objects.flatMap((o) => {
    const pod = o.kind === 'Job' || o.kind === 'Deployment' ? o.spec?.template?.spec : o.kind === 'Pod' ? o.spec : undefined;
    return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])].map((c: { image: string }) => c.image);
  });

describe.each(Object.keys(CASES))('helm upgrade from the previous chart (%s)', (name) => {
  const values = CASES[name]!;
  let before: K8sObject[];
  let after: K8sObject[];
  const previous = parse(readFileSync(path.join(PREVIOUS_CHART, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };
  const current = parse(readFileSync(path.join(CHART_DIR, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };

  beforeAll(async () => {
    [before, after] = await Promise.all([render(PREVIOUS_CHART, values), render(CHART_DIR, values)]);
  });

  it('renders the previous chart and, with the same values, the new one, a newer version', () => {
    expect(before.length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(10);
    expect(previous.version).not.toBe(current.version);
    expect(current.version.localeCompare(previous.version, undefined, { numeric: true })).toBe(1);
  });

  it('keeps what an upgrade cannot change in place: every Deployment and Service, each Deployment selector', () => {
    const afterByKey = new Map(after.map((o) => [key(o), o]));
    for (const o of before.filter((x) => x.kind === 'Deployment' || x.kind === 'Service')) {
      const next = afterByKey.get(key(o));
      expect({ object: key(o), kept: next !== undefined }).toEqual({ object: key(o), kept: true });
      if (o.kind === 'Deployment') expect({ object: key(o), selector: next!.spec.selector }).toEqual({ object: key(o), selector: o.spec.selector });
    }
  });

  it('rolls the Deployments (no Recreate) after the migration Job, a pre-upgrade hook replaced by each upgrade', () => {
    for (const d of after.filter((o) => o.kind === 'Deployment')) expect({ d: key(d), strategy: d.spec.strategy?.type ?? 'RollingUpdate' }).toEqual({ d: key(d), strategy: 'RollingUpdate' });
    const job = after.find((o) => o.kind === 'Job' && o.metadata.name.endsWith('-migrations'))!;
    expect(job.metadata.annotations?.['helm.sh/hook']).toContain('pre-upgrade');
    expect(job.metadata.annotations?.['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
  });

  it('moves every image from the previous appVersion to the new one, the version everything else carries', () => {
    const tag = (image: string) => image.split(':').pop()!.replace(/-chromium$/, '');
    expect(new Set(images(before).map(tag))).toEqual(new Set([previous.appVersion]));
    expect(new Set(images(after).map(tag))).toEqual(new Set([current.appVersion]));
    expect(images(after).length).toBeGreaterThanOrEqual(7);
  });
});
