/**
 * `npm run bench -- idle`: what a replica costs while nothing happens — the fixed cost every
 * operation of a lightly loaded deployment pays a share of (issue 45, "a second worker ≤ 1.05×").
 * One process at a time, alone with Redis and the database, for IDLE_SECONDS (default 30) after
 * it has settled (SETTLE_MS): an API; a worker with the default partitions (every partition, owners off); the
 * same worker with partition owners on (WORKER_HEARTBEAT_MS=1000); and a worker of 16 partitions.
 * Each phase reports the CPU of every process (ms per second of wall time) and the Redis commands
 * per second it caused (INFO commandstats, by command), ROUNDS times interleaved, medians kept,
 * with the machine's speed gauge around each sample (the CPU ms of a fixed hash: it rises when
 * another tenant shares the cores, and every figure then with it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { probeCpuMs } from './cpu.js';
import { log, median, redisCommandCalls, ROUNDS, startStack, stopChild, withStackCpu } from './stack.js';

const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
/**
 * How long a new process is left before it is measured: its start-up, first fetches and stall
 * checks, and V8's memory reducer — the full collections it runs once a process turns idle (a CPU
 * profile of an idle worker and API showed them 15-25 s after start: 50-80 ms of collection a
 * second for 2-3 s, a one-off that an 8-s settle left inside the window, doubling some figures).
 */
const SETTLE_MS = 30_000;

interface Phase {
  label: string;
  kind: 'api' | 'worker';
  env: Record<string, string>;
}

const PHASES: Phase[] = [
  { label: 'API', kind: 'api', env: {} },
  { label: 'worker, 64 partitions (default)', kind: 'worker', env: {} },
  { label: 'worker, 64 partitions, owners on (WORKER_HEARTBEAT_MS=1000)', kind: 'worker', env: { WORKER_HEARTBEAT_MS: '1000' } },
  { label: 'worker, 16 partitions', kind: 'worker', env: { QUEUE_PARTITIONS: '16' } },
];

interface Sample {
  /** CPU ms per wall second, by group, and all together. */
  cpu: Record<string, number>;
  total: number;
  /** Redis commands per second, by command. */
  commands: Map<string, number>;
  /** The machine's speed gauge ({@link probeCpuMs}) around the sample, the lower of two readings. */
  probeMs: number;
}

export async function idleBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    const calls = () => redisCommandCalls(stack.redis);
    const baseline: Sample[] = [];
    const samples = new Map<string, Sample[]>(PHASES.map((p) => [p.label, []]));
    const sample = async (): Promise<Sample> => {
      const probe = probeCpuMs();
      const before = await calls();
      const { cpu } = await withStackCpu(() => sleep(IDLE_SECONDS * 1000));
      const after = await calls();
      const groups = Object.fromEntries(
        Object.entries(cpu.groups)
          .filter(([g]) => g !== 'load generator')
          .map(([g, cores]) => [g, cores * 1000]),
      );
      const commands = new Map<string, number>();
      for (const [c, n] of after) {
        const d = (n - (before.get(c) ?? 0)) / IDLE_SECONDS;
        if (d > 0) commands.set(c, d);
      }
      return { cpu: groups, total: Object.values(groups).reduce((a, b) => a + b, 0), commands, probeMs: Math.min(probe, probeCpuMs()) };
    };
    for (let r = 0; r < ROUNDS; r++) {
      log(`round ${r + 1}/${ROUNDS}: nothing running (${IDLE_SECONDS} s)`);
      baseline.push(await sample());
      for (const p of PHASES) {
        const env = { ...p.env, QUEUE_PREFIX: `${stack.config.queuePrefix}-${p.env.QUEUE_PARTITIONS ?? 64}` };
        const child = p.kind === 'api' ? (await stack.startApi(env)).child : await stack.startWorker(env);
        await sleep(SETTLE_MS);
        log(`round ${r + 1}/${ROUNDS}: ${p.label} (${IDLE_SECONDS} s)`);
        samples.get(p.label)!.push(await sample());
        await stopChild(child);
      }
    }
    const base = median(baseline.map((s) => s.total));
    const lines = [
      `Idle cost, ${IDLE_SECONDS} s per phase, ${ROUNDS} rounds interleaved, medians (CPU ms per second of wall time; Redis commands per second):`,
      '',
      '| alone with Redis and the database | its own process [range of the rounds] | Redis | database | all, less nothing running | Redis commands/s (the most frequent) | speed gauge, ms |',
      '|---|---|---|---|---|---|---|',
      `| nothing running | — | ${median(baseline.map((s) => s.cpu.redis ?? 0)).toFixed(1)} | ${median(baseline.map((s) => s.cpu.database ?? 0)).toFixed(1)} | 0 (${base.toFixed(1)} in all) | ${topCommands(baseline)} | ${gauge(baseline)} |`,
    ];
    for (const p of PHASES) {
      const s = samples.get(p.label)!;
      const owns = s.map((x) => (p.kind === 'api' ? x.cpu.api : x.cpu.workers) ?? 0);
      lines.push(
        `| ${p.label} | ${median(owns).toFixed(1)} [${Math.min(...owns).toFixed(1)}-${Math.max(...owns).toFixed(1)}] | ${median(s.map((x) => x.cpu.redis ?? 0)).toFixed(1)} | ${median(s.map((x) => x.cpu.database ?? 0)).toFixed(1)} | ${(median(s.map((x) => x.total)) - base).toFixed(1)} | ${topCommands(s)} | ${gauge(s)} |`,
      );
    }
    return lines;
  } finally {
    await stack.stop();
  }
}

/** The speed gauge's median over the samples, with its range: a machine that slowed shows here, not as a change of ours. */
const gauge = (samples: Sample[]) => {
  const ms = samples.map((s) => s.probeMs);
  return `${median(ms).toFixed(1)} [${Math.min(...ms).toFixed(1)}-${Math.max(...ms).toFixed(1)}]`;
};

/** The five most frequent Redis commands of the samples (median per second each). */
function topCommands(samples: Sample[]): string {
  const names = new Set(samples.flatMap((s) => [...s.commands.keys()]));
  const rates = [...names].map((c) => [c, median(samples.map((s) => s.commands.get(c) ?? 0))] as const);
  return (
    rates
      .filter(([, n]) => n >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([c, n]) => `${c} ${n.toFixed(1)}`)
      .join(', ') || 'none'
  );
}
