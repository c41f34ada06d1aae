import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ASSAY_VERSION } from '@assay/contracts';
import { bundleServices } from '../../deploy/local/src/bundle.js';
import { lastReleaseCommit } from '../../deploy/upgrade/src/previous-release.js';
import { startShop } from '../fixtures/shop/server.js';
import { ApiLog, type CallRecord } from '../soak/api.js';
import { audit, auditKafka, classifyCalls, settle, type FaultWindow } from '../soak/audit.js';
import { startReceiver } from '../soak/receiver.js';
import { replicasAt, SERVICES, startStack, type LogLine, type ReplicaEvent, type ServiceName, type Stack } from '../soak/stack.js';
import { runWorkload, setupOrg, type Org } from '../soak/workload.js';
import { prepareFrom } from './from-build.js';

/**
 * `make upgrade-drill [FROM=ref] [BUS=pg|kafka]`: a rolling upgrade from the FROM release to this
 * repository under the soak's workload, then the soak's audit (docs/upgrading.md, The drill).
 *
 * 1. FROM (default: the commit of CHANGELOG.md's last release) from `git archive` with its node
 *    modules (from-build.ts), built as `make run` builds; this repository built beside it.
 * 2. The FROM stack (every service behind a front, a Kubernetes Service) under the workload.
 * 3. This repository's migrations (`<service> migrate`, the chart's migration Job) while FROM serves.
 * 4. Each service in turn: a replica of this build started (MIGRATE_AT_START=false, as the chart runs
 *    it) and put in the pool beside the FROM one for UPGRADE_SIDE_BY_SIDE seconds, then the FROM one
 *    taken out of the pool and stopped with SIGTERM, all while the workload runs.
 * 5. One service (UPGRADE_ROLLBACK, analysis) rolled back the same way to FROM on the new schema.
 * 6. The workload ends, the started work settles, the audit: lost 0, stuck 0, unexpected 5xx 0 (no
 *    5xx is excused: nothing was down), every webhook delivered, every execution finished.
 *
 * UPGRADE_MINUTES (8), UPGRADE_SIDE_BY_SIDE (20 s), UPGRADE_ROLLBACK (analysis), SOAK_SEED, SOAK_SCALE,
 * SOAK_DRAIN_SECONDS (300). Exit 0 only when everything holds.
 */

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const bus = (process.env.BUS ?? 'pg') as 'pg' | 'kafka';
const minutes = Number(process.env.UPGRADE_MINUTES ?? 8);
const sideBySideMs = Number(process.env.UPGRADE_SIDE_BY_SIDE ?? 20) * 1000;
const rollbackService = (process.env.UPGRADE_ROLLBACK ?? 'analysis') as ServiceName;
const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
const scale = Number(process.env.SOAK_SCALE ?? 1);
const drainSeconds = Number(process.env.SOAK_DRAIN_SECONDS ?? 300);
/** Backends first, the gateway last (its front is the clients' door). */
const ORDER: ServiceName[] = ['auth', 'test-case', 'execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher', 'gateway'];

const say = (line: string) => process.stdout.write(`[drill] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function seeded(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

/** What a replica's /healthz says it runs (a release before 0.2.0 answered no version). */
async function versionOf(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { version?: string };
    return body.version ?? 'none (before 0.2.0)';
  } catch (err) {
    return `no answer (${String(err)})`;
  }
}

/** This repository's migrations of every service with a schema (tests/upgrade/migrate-all.ts: each `<service> migrate` in one process), as the chart's Job. */
async function migrateAll(databaseUrl: string): Promise<string[]> {
  return new Promise<string[]>((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join('tests', 'upgrade', 'migrate-all.ts')], { cwd: REPO, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    proc.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    proc.once('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').filter(Boolean)) : reject(new Error(`migrations failed (exit ${code}):\n${out.slice(-3000)}`))));
  });
}

/** The commit from which services drain on SIGTERM (libs/http drainServer): a FROM before it stops under requests in flight. */
const DRAIN_COMMIT = '01c1cf6';

/**
 * Why a 5xx (or a call left unanswered) is the FROM release's own stop, when FROM predates the drain: a FROM replica
 * was between its SIGTERM and its exit during the call, and the call shows it was that replica's doing (the gateway's:
 * the client's connection closed, or its log names the request id; a backend's: the answer names that service).
 * Undefined when nothing shows that: the 5xx stays unexpected.
 */
function fromShutdown(c: CallRecord, timeline: ReplicaEvent[], logs: LogLine[], fromBuild: string): string | undefined {
  const stops = new Map<string, { service: ServiceName; port: number; sigterm: number; exited: number }>();
  for (const e of timeline) {
    if (e.build !== fromBuild) continue;
    const k = `${e.service}:${e.port}`;
    if (e.event === 'sigterm') stops.set(k, { service: e.service, port: e.port, sigterm: e.at, exited: Infinity });
    if (e.event === 'exited' && stops.has(k)) stops.get(k)!.exited = e.at;
  }
  const since = (sigterm: number) => (c.start >= sigterm ? `SIGTERM ${c.start - sigterm} ms before the call` : `the call in flight at its SIGTERM`);
  for (const stop of stops.values()) {
    if (!(c.start <= stop.exited && c.end >= stop.sigterm)) continue;
    if (stop.service === 'gateway' && c.status === 0) return `the FROM gateway :${stop.port} closed the client's connection as it stopped (${since(stop.sigterm)})`;
    if (stop.service === 'gateway' && c.requestId) {
      const mine = logs.filter((l) => l.service === 'gateway' && l.port === stop.port && l.at >= c.start && l.at <= c.end + 1000);
      // The error it logged meanwhile (its client or Redis closed under the request), besides the access line naming the request.
      const cause = mine.map((l) => /"err":\{"type":"(\w+)","message":"([^"]*)"/.exec(l.line)).find((m) => m && m[1] !== 'Error');
      if (mine.some((l) => l.line.includes(c.requestId!))) return `answered by the FROM gateway :${stop.port} while it stopped (${since(stop.sigterm)})${cause ? `; it logged ${cause[1]}: ${cause[2]}` : ''}`;
    }
    if (stop.service !== 'gateway' && c.status >= 500 && c.detail?.includes(`The ${stop.service} service`)) return `the FROM ${stop.service} :${stop.port} stopped under it (${since(stop.sigterm)})`;
  }
  return undefined;
}

interface Step {
  service: ServiceName;
  kind: 'upgrade' | 'rollback';
  start: number;
  end: number;
  sideBySide: { from: string; to: string; ms: number };
  newVersion: string;
}

/** One Deployment's roll: a replica of `to` beside the current ones for `sideBySideMs`, then the current ones out and stopped. */
async function roll(stack: Stack, service: ServiceName, to: { bundles: Stack['build']; build: string }, kind: Step['kind']): Promise<Step> {
  const start = Date.now();
  const old = stack.replicas(service);
  const added = await stack.addReplica(service, { ...to, env: { MIGRATE_AT_START: 'false' } });
  const newVersion = await versionOf(added.port);
  say(`${kind} ${service}: ${to.build} replica ready on :${added.port} (healthz version ${newVersion}) beside ${old.map((o) => `${o.build} :${o.port}`).join(', ')}`);
  const together = Date.now();
  await sleep(sideBySideMs);
  for (const o of old) await stack.removeReplica(service, o.port);
  const end = Date.now();
  say(`${kind} ${service}: ${old.map((o) => o.build).join(', ')} stopped after ${((end - together) / 1000).toFixed(0)} s side by side`);
  return { service, kind, start, end, sideBySide: { from: old.map((o) => o.build).join(', '), to: to.build, ms: end - together }, newVersion };
}

async function main(): Promise<void> {
  const fromRef = process.env.FROM || lastReleaseCommit(REPO).commit;
  const fromCommit = execFileSync('git', ['rev-parse', `${fromRef}^{commit}`], { cwd: REPO, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8' }).trim() !== '';
  const head = `${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim()}${dirty ? '+changes' : ''}`;
  say(`FROM ${fromRef} (${fromCommit.slice(0, 7)}) -> this repository (${head}, ${ASSAY_VERSION}); bus ${bus}, ${minutes} min, side by side ${sideBySideMs / 1000} s, rollback ${rollbackService}, SOAK_SEED=${seed}`);
  const startedAt = Date.now();
  const fromDir = prepareFrom(REPO, fromCommit, say);
  const buildDir = await mkdtemp(path.join(tmpdir(), 'assay-drill-'));
  const fromBundles = await bundleServices(fromDir, SERVICES, path.join(buildDir, 'from'));
  const from = { bundles: fromBundles, build: `FROM ${fromCommit.slice(0, 7)}` };
  say(`FROM built in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);

  const shop = await startShop({ port: 0 });
  const receiver = await startReceiver(seeded(seed ^ 0x5eed));
  const stack = await startStack({ bus, initial: from, fronts: true });
  const current = { bundles: stack.build, build: `current ${head}` };
  let exitCode = 1;
  try {
    const api = new ApiLog(stack.gatewayUrl);
    const orgs: Org[] = [
      await setupOrg(stack, api, 'Drill A', shop.url, receiver, ['/fast', '/slow', '/flaky'], false),
      await setupOrg(stack, api, 'Drill B', shop.url, receiver, ['/fast'], true),
    ];
    const since = new Date();
    const setupCalls = api.calls.length;
    say(`FROM stack up and serving in ${((Date.now() - startedAt) / 1000).toFixed(0)} s; workload for ${minutes} min`);
    const runMs = minutes * 60_000;
    const t0 = Date.now();
    const until = t0 + runMs;

    const steps: Step[] = [];
    let migrated: { start: number; end: number; services: string[] } | undefined;
    let upgradeError: unknown;
    const upgrade = (async () => {
      await sleep(runMs * 0.08);
      const start = Date.now();
      say('migrations of this repository while FROM serves');
      const services = await migrateAll(stack.databaseUrl);
      migrated = { start, end: Date.now(), services };
      say(`migrated in ${((migrated.end - start) / 1000).toFixed(1)} s: ${services.join(', ')}`);
      await sleep(5000);
      for (const service of ORDER) steps.push(await roll(stack, service, current, 'upgrade'));
      steps.push(await roll(stack, rollbackService, from, 'rollback'));
    })().catch((err) => {
      upgradeError = err;
      say(`the upgrade stopped: ${err instanceof Error ? err.stack : String(err)}`);
    });

    const counts = await runWorkload(api, orgs, shop.url, seeded(seed ^ 0x10ad), until, scale);
    const workloadEnd = Date.now();
    await upgrade;
    say(`workload done after ${((workloadEnd - t0) / 1000).toFixed(0)} s; waiting for started work to settle (at most ${drainSeconds} s)`);

    const orgIds = orgs.map((o) => o.orgId);
    const open = await settle(stack.databaseUrl, stack.kafka, orgIds, since, drainSeconds, say);
    say(open ? `still open after the drain: ${open}` : `settled after ${((Date.now() - workloadEnd) / 1000).toFixed(0)} s`);

    const livePids = SERVICES.flatMap((s) => stack.replicas(s).map((r) => r.pid)).filter((p): p is number => typeof p === 'number');
    const result = await audit(stack.databaseUrl, orgIds, since, receiver.receipts, livePids);
    await auditKafka(stack.kafka, result.stuck);
    // Nothing was down: no window excuses a 5xx or a call left unanswered.
    const windows: FaultWindow[] = [];
    const calls = api.calls.slice(setupCalls);
    const classified = classifyCalls(calls, windows);
    // A FROM before the drain stops under requests in flight (CHANGELOG 0.2.0, Upgrading): its replicas' 5xx while they
    // stopped are counted and printed apart, each with what shows it; with a FROM that drains, none is.
    const fromDrains = (() => {
      try {
        execFileSync('git', ['merge-base', '--is-ancestor', DRAIN_COMMIT, fromCommit], { cwd: REPO, stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    const timeline = stack.timeline();
    const allLogs = stack.logsBetween(0, Date.now());
    const ofFrom: Array<{ call: CallRecord; why: string }> = [];
    if (!fromDrains) {
      classified.unexpected5xx = classified.unexpected5xx.filter((c) => {
        const why = fromShutdown(c, timeline, allLogs, from.build);
        if (why) ofFrom.push({ call: c, why });
        return !why;
      });
    }
    const finalVersions: Record<string, string> = {};
    for (const s of SERVICES) finalVersions[s] = `${await versionOf(stack.ports[s])} (${stack.replicas(s).map((r) => r.build).join(', ')})`;

    const answered = calls.filter((c) => c.status > 0);
    const latencies = (list: CallRecord[]) => list.map((c) => c.end - c.start).sort((a, b) => a - b);
    const all = latencies(answered);
    const statusClass = (lo: number, hi: number) => answered.filter((c) => c.status >= lo && c.status < hi).length;
    const upgraded = steps.filter((s) => s.kind === 'upgrade' && s.end <= workloadEnd && s.newVersion === ASSAY_VERSION);
    const rolledBack = steps.filter((s) => s.kind === 'rollback' && s.end <= workloadEnd);
    const midWorkload = migrated !== undefined && migrated.end <= workloadEnd;
    const stuck = result.stuck.length;
    const unexpected = classified.unexpected5xx.length;
    const lost = result.events.lost.length;
    const leaks = counts.crossOrgLeaks.length;
    const resultProblems = result.executions.missingResults.length + result.executions.duplicateResults.length + result.executions.unfinishedResults.length;
    const [l1, l5, l15] = loadavg().map((n) => n.toFixed(2));
    const rel = (t: number) => `+${((t - t0) / 1000).toFixed(0)} s`;
    const lines = [
      `FROM ${fromCommit.slice(0, 7)} -> ${head} (${ASSAY_VERSION}), bus ${bus}, ${minutes} min, seed ${seed}, load average ${l1} ${l5} ${l15} at the end`,
      `migrations while FROM served: ${migrated ? `${rel(migrated.start)} .. ${rel(migrated.end)}: ${migrated.services.join(', ')}` : 'not run'}`,
      `services replaced mid-workload ${upgraded.length}/${ORDER.length}: ${steps.filter((s) => s.kind === 'upgrade').map((s) => `${s.service} ${rel(s.start)}..${rel(s.end)} (side by side ${(s.sideBySide.ms / 1000).toFixed(0)} s)`).join(', ')}`,
      `rolled back mid-workload ${rolledBack.length}/1: ${steps.filter((s) => s.kind === 'rollback').map((s) => `${s.service} to ${s.sideBySide.to} ${rel(s.start)}..${rel(s.end)}`).join(', ') || 'none'}`,
      `versions at the end (GET /healthz through each front): ${Object.entries(finalVersions).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `requests ${answered.length} answered (2xx ${statusClass(200, 300)}, 4xx ${statusClass(400, 500)}, 5xx ${statusClass(500, 600)}), ${calls.length - answered.length} unanswered; latency p50 ${percentile(all, 50)} ms p99 ${percentile(all, 99)} ms`,
      `workload ${counts.executionsStarted} async + ${counts.syncExecutions} sync executions, ${counts.testRuns} test runs, ${counts.discoveries} discoveries, ${counts.imports} imports, ${counts.cancellations} cancellations, ${counts.keyRotations} key rotations (revoked keys still accepted: ${counts.revokedKeyAccepted}), ${counts.reads} reads`,
      `executions ${result.executions.total} (${Object.entries(result.executions.byStatus).map(([k, v]) => `${k} ${v}`).join(', ')}), results missing/duplicate/unfinished ${result.executions.missingResults.length}/${result.executions.duplicateResults.length}/${result.executions.unfinishedResults.length}`,
      `events produced ${result.events.committed}, to deliver ${result.events.expected}, delivered ${result.events.delivered}, lost ${lost}; duplicates ${result.events.duplicates}, never-committed ${result.events.phantom.length}, altered ${result.events.mismatched.length}`,
      `lost ${lost}`,
      `stuck ${stuck}`,
      `unexpected 5xx ${unexpected}`,
      `5xx of FROM replicas while they stopped ${fromDrains ? `none counted apart (FROM drains on SIGTERM, ${DRAIN_COMMIT})` : `${ofFrom.length} (FROM predates the drain on SIGTERM, ${DRAIN_COMMIT}: it closes its clients and database under requests in flight; each below)`}`,
      `cross-org leaks ${leaks}`,
      `unexpected exits ${Object.entries(stack.unexpectedExits()).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`,
    ];
    process.stdout.write(`\n=== upgrade drill figures ===\n${lines.join('\n')}\n`);
    const details: string[] = [];
    // Each 5xx with what served at that moment and every replica's log lines around it (docs/upgrading.md, Reading a 5xx).
    const relMs = (t: number) => `${t >= t0 ? '+' : '-'}${(Math.abs(t - t0) / 1000).toFixed(1)} s`;
    const listed = [...classified.unexpected5xx.map((c) => ({ call: c, why: undefined as string | undefined })), ...ofFrom].slice(0, 30);
    for (const [i, { call: c, why }] of listed.entries()) {
      details.push(`${why ? `5xx of a FROM replica stopping (${why})` : 'unexpected 5xx'} ${i + 1}: ${relMs(c.start)} (answered after ${c.end - c.start} ms): ${c.method} ${c.route} -> ${c.status || 'no answer'}${c.error ? ` (${c.error})` : ''}${c.requestId ? `, request id ${c.requestId}` : ''}${c.detail ? `, body ${c.detail}` : ''}`);
      const then = replicasAt(timeline, c.start, relMs);
      const during = replicasAt(timeline, c.end, relMs);
      for (const s of SERVICES) {
        const a = then[s] ?? { serving: [], stopping: [] };
        const b = during[s] ?? { serving: [], stopping: [] };
        const fmt = (x: { serving: string[]; stopping: string[] }) => `serving ${x.serving.join(' + ') || 'none'}${x.stopping.length ? `; stopping ${x.stopping.join(' + ')}` : ''}`;
        details.push(`    ${s}: ${fmt(a)}${fmt(b) !== fmt(a) ? ` | at the answer: ${fmt(b)}` : ''}`);
      }
      for (const l of stack.logsBetween(c.start - 2000, c.end + 2000).slice(-40)) details.push(`    log ${relMs(l.at)} ${l.service} ${l.build} :${l.port}: ${l.line.slice(0, 600)}`);
    }
    for (const s of result.stuck.slice(0, 30)) details.push(`stuck: ${s.what} ${s.id}: ${s.detail}`);
    for (const l of result.events.lost.slice(0, 30)) details.push(`lost: ${l.event} ${l.eventId} to webhook ${l.webhook}`);
    for (const p of [...result.events.phantom, ...result.events.mismatched].slice(0, 20)) details.push(`delivery: ${p}`);
    for (const m of [...result.executions.missingResults, ...result.executions.duplicateResults, ...result.executions.unfinishedResults].slice(0, 20)) details.push(`results: ${m}`);
    if (details.length) process.stdout.write(`\n=== details ===\n${details.join('\n')}\n`);

    const everyStep = upgraded.length === ORDER.length && rolledBack.length === 1 && midWorkload && !upgradeError;
    exitCode = lost + stuck + unexpected + leaks + resultProblems + counts.revokedKeyAccepted + result.events.phantom.length + result.events.mismatched.length === 0 && everyStep ? 0 : 1;
    if (!everyStep) say('not every step of the upgrade happened while the workload ran (raise UPGRADE_MINUTES?)');
    say(exitCode === 0 ? 'PASS' : 'FAIL');
  } finally {
    await stack.stop().catch((err) => say(`stopping the stack: ${String(err)}`));
    await receiver.close();
    await shop.close();
    await rm(buildDir, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

main().catch((err) => {
  process.stderr.write(`[drill] ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
