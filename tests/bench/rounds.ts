import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { label } from './cpu.js';

/**
 * Rounds, interleaved: each bench runs its two sides BENCH_ROUNDS times
 * (default 3), the side that goes first alternating, and reports the median
 * ratio with its spread. A machine's load moves over minutes; a side that
 * always went first (or last) would take the same share of it every time.
 */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** `1.23x (1.10-1.31 over 3 rounds)`: the median and the range of the rounds' ratios. */
export function spread(ratios: number[]): string {
  const d = (x: number) => x.toFixed(2);
  return ratios.length > 1 ? `${d(median(ratios))}x (${d(Math.min(...ratios))}-${d(Math.max(...ratios))} over ${ratios.length} rounds)` : `${d(ratios[0]!)}x (1 round)`;
}

/**
 * Runs `baseline` and `assay` ROUNDS times, alternating which goes first
 * (round 1: the baseline), and answers each round's pair. Each side waits for
 * a quiet machine first unless `opts.quiet` is false (a test of the rounds
 * themselves must not wait on the load of the suite around it).
 */
export async function interleaved<B, A>(
  baseline: () => Promise<B>,
  assay: () => Promise<A>,
  onRound?: (i: number, b: B, a: A, first: 'baseline' | 'assay') => void,
  opts: { quiet?: boolean } = {},
): Promise<Array<{ baseline: B; assay: A }>> {
  const afterQuiet = <T>(side: () => Promise<T>) => (opts.quiet === false ? side() : afterQuietMachine(side));
  const out: Array<{ baseline: B; assay: A }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    let b: B;
    let a: A;
    const first = i % 2 === 0 ? 'baseline' : 'assay';
    if (first === 'baseline') {
      b = await afterQuiet(baseline);
      a = await afterQuiet(assay);
    } else {
      a = await afterQuiet(assay);
      b = await afterQuiet(baseline);
    }
    onRound?.(i, b, a, first);
    out.push({ baseline: b, assay: a });
  }
  return out;
}

/** The machine's CPU time so far, busy and all (jiffies, every CPU), from /proc/stat. */
function cpuTimes(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait
    return { busy: total - fields[3]! - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** How many sides waited for the machine to quiet down, for how long in all (ms), and how many went without it; run.ts resets it per bench. */
export const quietWaits = { count: 0, ms: 0, timedOut: 0 };

/**
 * Waits until the machine is quiet (under a fifth of its CPUs busy over half a
 * second; at most 15 s) before a side starts: what the side before it left
 * running (a browser still closing, its processes' exit, Postgres writing out)
 * would otherwise slow the next side down, whichever it is.
 */
async function afterQuietMachine<T>(side: () => Promise<T>): Promise<T> {
  await quiet();
  return side();
}

async function quiet(): Promise<void> {
  const started = Date.now();
  for (;;) {
    const a = cpuTimes();
    await new Promise((r) => setTimeout(r, 500));
    const b = cpuTimes();
    if (!a || !b || b.total === a.total || (b.busy - a.busy) / (b.total - a.total) < 0.2) break;
    if (Date.now() - started > 15_000) {
      quietWaits.timedOut += 1;
      break;
    }
  }
  quietWaits.count += 1;
  quietWaits.ms += Date.now() - started;
}

/** The 1-, 5- and 15-minute load averages, printed beside every figure: a figure taken on a busy machine says so. */
export function load(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

/**
 * What kind of process burnt the CPU: Chromium's renderers apart from the rest
 * of the browser (browser, GPU, zygote, utility), Assay's services, Postgres,
 * Playwright Test's workers, and the bench driver (this process).
 */
export type ProcessKind = 'renderer' | 'browser' | 'node service' | 'postgres' | 'test runner' | 'bench driver' | 'other';

export function kindOf(label: string, isSelf: boolean): ProcessKind {
  if (isSelf) return 'bench driver';
  if (label === 'chromium renderer') return 'renderer';
  if (label.startsWith('chromium') || label.startsWith('chrome') || label === 'chromium-headless-shell' || label === 'headless_shell') return 'browser';
  if (label === 'postgres') return 'postgres';
  if (/^[a-z]+(-[a-z]+)*$/.test(label) && SERVICES.has(label)) return 'node service';
  if (label === 'node') return 'test runner';
  return 'other';
}

const SERVICES = new Set(['gateway', 'auth', 'test-case', 'execution-runner', 'analysis', 'discovery-crawler', 'webhook-dispatcher']);

/**
 * CPU seconds by process kind between `start` and `stop()`, sampled: every
 * 250 ms it reads each process's own CPU (utime + stime, not its reaped
 * children's) from /proc, for this process's descendants and every process in
 * its cgroup (Chromium's zygote and its renderers are reparented away from the
 * tree, but stay in the cgroup the side's meter put this process in). A process
 * that exits loses at most its last 250 ms. Approximate by design: the side's
 * total comes from its cgroup meter, the kinds show where it went.
 */
export function cpuByKind(): { stop(): Map<ProcessKind, number>; byLabel(): Map<string, number> } {
  const seen = new Map<string, { kind: ProcessKind; label: string; first: number; last: number }>();
  const sample = (initial: boolean) => {
    for (const { pid, start, own } of sampledProcesses()) {
      const key = `${pid}:${start}`;
      const known = seen.get(key);
      if (known) known.last = own;
      else {
        const name = label(pid);
        seen.set(key, { kind: kindOf(name, pid === process.pid), label: name, first: initial ? own : 0, last: own });
      }
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      const out = new Map<ProcessKind, number>();
      for (const p of seen.values()) out.set(p.kind, (out.get(p.kind) ?? 0) + Math.max(0, p.last - p.first));
      return out;
    },
    /** The same CPU by process label (each service apart), as of the last sample. */
    byLabel() {
      const out = new Map<string, number>();
      for (const p of seen.values()) out.set(p.label, (out.get(p.label) ?? 0) + Math.max(0, p.last - p.first));
      return out;
    },
  };
}

const TICKS = 100; // USER_HZ

function sampledProcesses(): Array<{ pid: number; start: string; own: number }> {
  const stats = new Map<number, { ppid: number; start: string; own: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const text = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(d), { ppid: Number(f[1]), start: f[19]!, own: (Number(f[11]) + Number(f[12])) / TICKS });
    } catch {
      // exited while read
    }
  }
  const wanted = new Set<number>([process.pid, ...cgroupPids()]);
  // Descendants of this process.
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, s] of stats) {
      if (wanted.has(pid) || !wanted.has(s.ppid) || s.ppid === 1) continue;
      wanted.add(pid);
      grew = true;
    }
  }
  return [...wanted].flatMap((pid) => {
    const s = stats.get(pid);
    return s ? [{ pid, start: s.start, own: s.own }] : [];
  });
}

/** The processes of this process's CPU cgroup, unless that is the root one (then: none, the tree serves). */
function cgroupPids(): number[] {
  try {
    const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
    const v1 = lines.find((l) => /:(cpu,cpuacct|cpuacct|cpuacct,cpu):/.test(l))?.split(':')[2];
    const v2 = lines.find((l) => l.startsWith('0::'))?.slice(3);
    const candidates = [v1 && v1 !== '/' ? path.join('/sys/fs/cgroup/cpuacct', v1, 'cgroup.procs') : '', v2 && v2 !== '/' ? path.join('/sys/fs/cgroup/unified', v2, 'cgroup.procs') : '', v2 && v2 !== '/' ? path.join('/sys/fs/cgroup', v2, 'cgroup.procs') : ''];
    for (const c of candidates) if (c && existsSync(c)) return readFileSync(c, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    // no cgroup to read
  }
  return [];
}

/** `renderer 12.3, browser 4.1, node service 6.0, ...`, largest first, in CPU seconds. */
export function formatKinds(by: Map<ProcessKind, number>): string {
  return [...by]
    .filter(([, s]) => s >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([k, s]) => `${k} ${s.toFixed(1)}`)
    .join(', ');
}

/** One figure a bench reports, as `make bench-check` compares it with the one recorded. */
export interface Figure {
  bench: string;
  /** Stable name: the key in tests/bench/recorded.json. */
  name: string;
  value: number;
  /** Which way is better: a wall-time ratio is better lower, a throughput higher. */
  better: 'higher' | 'lower';
}

/** A figure may be this much worse than the recorded one before the check fails. */
export const TOLERANCE = 0.15;

export interface Recorded {
  [name: string]: { value: number; better: 'higher' | 'lower'; recorded_at: string; load: string };
}

/** The figures that are worse than recorded by more than the tolerance, as messages. */
export function regressions(figures: Figure[], recorded: Recorded, tolerance = TOLERANCE): string[] {
  return figures.flatMap((f) => {
    const r = recorded[f.name];
    if (!r) return [];
    const worse = f.better === 'higher' ? f.value < r.value * (1 - tolerance) : f.value > r.value * (1 + tolerance);
    return worse ? [`${f.name}: ${f.value.toFixed(2)} against ${r.value.toFixed(2)} recorded (${f.better} is better; more than ${tolerance * 100} % worse)`] : [];
  });
}

