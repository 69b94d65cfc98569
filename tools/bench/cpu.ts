/**
 * Where the CPU went during a measurement, from /proc (Linux): the busy share of the whole machine
 * and, per group of processes (APIs, workers, Redis nodes, the database when its pids are known,
 * this load generator), the cores they used. What is left of the busy time is everything else
 * running on the machine.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const HZ = 100;

/** The fields of /proc/<pid>/stat after the command name (which may contain spaces); null once it is gone. */
function statOf(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime of processes, in seconds (0 for those gone). */
export function processSeconds(pids: (number | undefined)[]): number {
  return pids.reduce<number>((s, pid) => {
    const f = pid ? statOf(pid) : null;
    return s + (f ? (Number(f[11]) + Number(f[12])) / HZ : 0);
  }, 0);
}

/**
 * CPU seconds of a process tree: the root, its live descendants, and the children it has reaped
 * (cutime + cstime) — so a short-lived child (a PostgreSQL backend) is counted after it exits too.
 */
export function treeSeconds(root: number): number {
  const rootStat = statOf(root);
  if (!rootStat) return 0;
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statOf(Number(name));
    if (f) parents.set(Number(f[1]), [...(parents.get(Number(f[1])) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const walk = (pid: number) => {
    tree.push(pid);
    for (const child of parents.get(pid) ?? []) walk(child);
  };
  walk(root);
  return processSeconds(tree) + (Number(rootStat[13]) + Number(rootStat[14])) / HZ;
}

/** Busy and total seconds of every core together, from /proc/stat. */
function machineSeconds(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = cpu[3]! + (cpu[4] ?? 0); // idle + iowait
  return { busy: (total - idle) / HZ, total: total / HZ };
}

export interface CpuShares {
  /** Busy share of the whole machine (all cores), 0-1. */
  machineBusy: number;
  /** Cores used per group (1.0 = one core busy the whole time). */
  groups: Record<string, number>;
  /** Cores used by everything else on the machine (other tenants; the database too when its pids are unknown). */
  rest: number;
  cores: number;
}

/** Runs `run` and reports the CPU used meanwhile by each group (its CPU seconds so far) and by this process (`load generator`). */
export async function withCpu<T>(groups: Record<string, () => number>, run: () => Promise<T>): Promise<{ result: T; cpu: CpuShares }> {
  const read = () => Object.fromEntries(Object.entries(groups).map(([g, seconds]) => [g, seconds()]));
  const m0 = machineSeconds();
  const g0 = read();
  const self0 = process.cpuUsage();
  const t0 = Date.now();
  const result = await run();
  const wall = (Date.now() - t0) / 1000;
  const self = process.cpuUsage(self0);
  const g1 = read();
  const m1 = machineSeconds();
  const used: Record<string, number> = {};
  for (const g of Object.keys(groups)) used[g] = Math.max(0, g1[g]! - g0[g]!) / wall;
  used['load generator'] = (self.user + self.system) / 1e6 / wall;
  const cores = (m1.total - m0.total) / wall;
  const busyCores = (m1.busy - m0.busy) / wall;
  const ours = Object.values(used).reduce((a, b) => a + b, 0);
  return { result, cpu: { machineBusy: busyCores / Math.max(cores, 1e-9), groups: used, rest: Math.max(0, busyCores - ours), cores } };
}

/** The test database's CPU seconds (FerretDB and the PostgreSQL tree) in `dir`, when known (the stack decides which: tools/bench/stack.ts). */
export function databaseSeconds(dir: string | undefined): (() => number) | undefined {
  if (!dir) return undefined;
  const pid = (file: string) => Number(readFileSync(join(dir, file), 'utf8').trim().split('\n')[0]);
  const ferret = pid('ferretdb.pid');
  const postgres = pid('pgdata/postmaster.pid');
  return () => processSeconds([ferret]) + treeSeconds(postgres);
}

/** Pids of the processes whose command name is `name` (e.g. the machine's `redis-server`). */
export function pidsNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const PROBE = Buffer.alloc(64 * 1024, 7);

/**
 * The CPU time, in ms, of a fixed piece of work (SHA-256 of 4 MB): a gauge of how fast this
 * machine runs right now. On a shared virtual machine it rises when another tenant uses the same
 * physical cores (or the clock drops), and every process then needs that much more CPU for the
 * same work — a change no code of ours makes.
 */
export function probeCpuMs(): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < 64; i++) createHash('sha256').update(PROBE).digest();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}
