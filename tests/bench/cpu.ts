import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * CPU seconds used by everything a benchmark side starts: a figure that
 * outside load barely moves, unlike wall time, on a CPU-bound machine.
 *
 * The bench process joins a fresh cgroup before it starts a side; the processes
 * it starts inherit it, and the cgroup counts them all, including processes
 * reparented away from the tree (Chromium's zygote outlives its browser, so
 * summing a process tree loses the renderers). Without a writable cgroup
 * (not root, no cpuacct) it falls back to the process tree, marked approximate.
 */
export interface CpuMeter {
  /** CPU seconds so far. */
  read(): number;
  /** How it measures, for the printed figures. */
  readonly method: 'cgroup' | 'process tree (approximate)';
  /** Leaves the cgroup (processes started later are not counted) and removes it once empty. */
  close(): void;
}

const V1 = '/sys/fs/cgroup/cpuacct';
const V2_CANDIDATES = ['/sys/fs/cgroup/unified', '/sys/fs/cgroup'];

function cgroupMeter(name: string): CpuMeter | undefined {
  const v2Root = V2_CANDIDATES.find((d) => existsSync(path.join(d, 'cgroup.procs')) && existsSync(path.join(d, 'cgroup.controllers')));
  const root = existsSync(path.join(V1, 'cpuacct.usage')) ? V1 : v2Root;
  if (!root) return undefined;
  const dir = path.join(root, `assay-bench-${name}-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
  } catch {
    return undefined;
  }
  const read =
    root === V1
      ? () => Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9
      : () => Number(/usage_usec (\d+)/.exec(readFileSync(path.join(dir, 'cpu.stat'), 'utf8'))?.[1] ?? 0) / 1e6;
  return {
    method: 'cgroup',
    read,
    close() {
      try {
        writeFileSync(path.join(root, 'cgroup.procs'), String(process.pid));
        rmdirSync(dir);
      } catch {
        // Processes of the side still alive keep the cgroup; it is empty and removable later.
      }
    },
  };
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime: its own CPU and that of the children it reaped. */
  seconds: number;
}

/** `root` and every live process below it, from one scan of /proc. */
function processTree(root: number): ProcStat[] {
  const stats = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d): ProcStat[] => {
      try {
        const text = readFileSync(`/proc/${d}/stat`, 'utf8');
        // The command name may hold spaces and parentheses: fields start after the last ')'.
        const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(d), ppid: Number(f[1]), seconds: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND }];
      } catch {
        return []; // it exited while we read
      }
    });
  const children = new Map<number, ProcStat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const out: ProcStat[] = [];
  const stack = stats.filter((s) => s.pid === root);
  while (stack.length) {
    const s = stack.pop()!;
    out.push(s);
    stack.push(...(children.get(s.pid) ?? []));
  }
  return out;
}

/** CPU seconds of `root` and every live process below it. */
export const treeCpuSeconds = (root: number) => processTree(root).reduce((sum, s) => sum + s.seconds, 0);

/** A meter for the processes this process starts from now on (and itself). */
export function startCpuMeter(name: string): CpuMeter {
  return cgroupMeter(name) ?? { method: 'process tree (approximate)', read: () => treeCpuSeconds(process.pid), close: () => undefined };
}

/** A readable name for a process: the service a node process runs, Chromium's process type, or the command. */
export function label(pid: number): string {
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return 'gone';
  }
  const joined = args.join(' ');
  const service = /services\/([a-z-]+)\/(?:src\/main\.ts|main\.mjs)/.exec(joined);
  if (service) return service[1]!;
  if (/chromium/.test(args[0] ?? '')) return `chromium ${/--type=([a-z-]+)/.exec(joined)?.[1] ?? 'browser'}`;
  if (/postgres/.test(joined)) return 'postgres';
  return path.basename(args[0] ?? '?');
}

/** CPU seconds (own plus reaped children) of every live process below `root`, summed by label. */
export function cpuByProcess(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of processTree(root)) out.set(label(s.pid), (out.get(label(s.pid)) ?? 0) + s.seconds);
  return out;
}
