import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime: its own CPU and that of the children it reaped. */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i - 3]);
    return { pid, ppid: n(4), ticks: n(14) + n(15) + n(16) + n(17) };
  } catch {
    return undefined; // it exited while we read
  }
}

/**
 * CPU seconds used so far by `root` and every process below it, including
 * those that already exited and were reaped inside the tree. The difference of
 * two readings is the tree's CPU use between them, whatever else the machine
 * runs meanwhile: a figure that outside load barely moves, unlike wall time.
 */
export function treeCpuSeconds(root: number): number {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readStat(Number(d)))
    .filter((s): s is ProcStat => s !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  let ticks = 0;
  const stack = all.filter((s) => s.pid === root);
  while (stack.length) {
    const s = stack.pop()!;
    ticks += s.ticks;
    stack.push(...(children.get(s.pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}
