/**
 * The cluster topology of test/cluster/: a private Redis Cluster (scripts/redis-cluster.ts, 3
 * primaries + 3 replicas on free loopback ports), API processes and worker processes on it
 * (`REDIS_URL=redis+cluster://…`), services on the test database for fixtures, and the checks
 * every cluster test ends with (no CROSSSLOT, queues drained). `useClusterTopology()` starts it in
 * `before` and stops every process — each by its own pid — in `after`, also when a test or the
 * start itself failed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PACE_MARGIN } from './pace.js';
import { startRedisCluster, type ErrorStats, type RedisCluster } from '../../scripts/redis-cluster.js';
import { partitionQueues } from '../../shared/queue/names.js';
import type { Services } from '../../shared/services.js';
import { testServices } from './context.js';
import { startApiProcess, startWorkerProcess, type ServiceProcess } from './service-process.js';

export interface ApiProcess {
  url: string;
  proc: ServiceProcess;
}

export interface TopologyOptions {
  apis: number;
  workers: number;
  /** Environment of every process (and of `services`' config): QUEUE_PARTITIONS, timeouts, … */
  env?: Record<string, string>;
  /** `cluster-node-timeout` (failover speed). Default 2000 ms. */
  nodeTimeoutMs?: number;
}

export interface ClusterTopology {
  cluster: RedisCluster;
  /** The environment the processes run with (REDIS_URL, QUEUE_PREFIX, QUEUE_PARTITIONS, …). */
  env: Record<string, string>;
  /** Repositories and config on the test database, with this topology's Redis and queue settings. */
  services: Services;
  apis: ApiProcess[];
  workers: ServiceProcess[];
  startApi(extra?: Record<string, string>): Promise<ApiProcess>;
  startWorker(extra?: Record<string, string>): Promise<ServiceProcess>;
  /** SIGTERM (a drain), SIGKILL after `ms`; resolves with the exit code. */
  stopProcess(proc: ServiceProcess, ms?: number): Promise<number | null>;
  /** Jobs not finished (waiting, active, delayed, prioritized, waiting for children) per partition queue `ops-{NN}` of `partitions` queues. */
  unfinishedJobs(partitions?: number, prefix?: string): Promise<Record<string, number>>;
  /** Errors the cluster nodes answered since the start, by prefix (INFO errorstats). */
  errorStats(): Promise<ErrorStats>;
  /** Lines of every service process's log that mention CROSSSLOT. */
  crossSlotLogLines(): string[];
  /** Asserts that no node answered CROSSSLOT and no service logged it. */
  expectNoCrossSlot(): Promise<void>;
  stop(): Promise<void>;
}

export async function startClusterTopology(opts: TopologyOptions): Promise<ClusterTopology> {
  const cluster = await startRedisCluster({ nodeTimeoutMs: opts.nodeTimeoutMs ?? 2000 });
  const procs: ServiceProcess[] = [];
  const logs: string[] = [];
  let seq = 0;
  const env: Record<string, string> = {
    REDIS_URL: cluster.url,
    QUEUE_PREFIX: `coupons-cluster-${process.pid}-${Date.now().toString(36)}`,
    QUEUE_PARTITIONS: '16',
    // Warnings and errors are kept in one log per process and grepped for CROSSSLOT.
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const stopProcess = async (proc: ServiceProcess, ms = 30_000): Promise<number | null> => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return proc.child.exitCode;
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), ms);
    try {
      return await proc.stop();
    } finally {
      clearTimeout(timer);
    }
  };
  const topology: ClusterTopology = {
    cluster,
    env,
    services: undefined as unknown as Services,
    apis: [],
    workers: [],
    async startApi(extra = {}) {
      const output = join(cluster.dir, `api-${++seq}.log`);
      logs.push(output);
      const proc = await startApiProcess({ ...env, ...extra }, { output });
      procs.push(proc);
      const api = { url: proc.url!, proc };
      topology.apis.push(api);
      return api;
    },
    async startWorker(extra = {}) {
      const output = join(cluster.dir, `worker-${++seq}.log`);
      logs.push(output);
      const proc = await startWorkerProcess({ ...env, ...extra }, { output });
      procs.push(proc);
      topology.workers.push(proc);
      return proc;
    },
    stopProcess,
    async unfinishedJobs(partitions = Number(env.QUEUE_PARTITIONS), prefix = env.QUEUE_PREFIX) {
      const p = partitionQueues({ ...topology.services.config, queuePartitions: partitions, queuePrefix: prefix! });
      try {
        const counts = await Promise.all(
          p.queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children')),
        );
        return Object.fromEntries(p.queues.map((q, i) => [q.name, Object.values(counts[i]!).reduce((a, b) => a + b, 0)]));
      } finally {
        await p.close();
      }
    },
    errorStats: () => cluster.errorStats(),
    crossSlotLogLines: () =>
      logs.flatMap((file) => {
        try {
          return readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => /CROSSSLOT/i.test(l));
        } catch {
          return [];
        }
      }),
    async expectNoCrossSlot() {
      const stats = await cluster.errorStats();
      expect(stats.CROSSSLOT ?? 0, `CROSSSLOT answers by the cluster nodes (errorstats ${JSON.stringify(stats)})`).to.equal(0);
      expect(topology.crossSlotLogLines(), 'service log lines mentioning CROSSSLOT').to.deep.equal([]);
    },
    async stop() {
      await Promise.all(procs.map((p) => stopProcess(p, 10_000).catch(() => null)));
      // TEST_CLUSTER_KEEP=1 keeps the nodes' and services' logs for a post-mortem.
      const keepDir = !!process.env.TEST_CLUSTER_KEEP;
      await cluster.stop({ keepDir });
      if (keepDir) process.stderr.write(`cluster logs kept in ${cluster.dir}\n`);
    },
  };
  try {
    // The CROSSSLOT check can fail: a node counts a deliberate cross-slot MGET, then the counts restart.
    const probe = cluster.connect(cluster.nodes[0]!);
    await probe.mget('{a}canary', '{b}canary').catch(() => undefined);
    probe.disconnect();
    const counted = (await cluster.errorStats()).CROSSSLOT ?? 0;
    if (counted !== 1) throw new Error(`a cross-slot MGET was counted ${counted} times in INFO errorstats, not once`);
    await cluster.resetErrorStats();
    topology.services = await testServices(env);
    // allSettled: a failed start must not stop the topology while other starts are still running.
    const started = await Promise.allSettled([
      ...Array.from({ length: opts.apis }, () => topology.startApi()),
      ...Array.from({ length: opts.workers }, () => topology.startWorker()),
    ]);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    return topology;
  } catch (err) {
    await topology.stop();
    throw err;
  }
}

/**
 * Mocha hooks: the topology started in `before`, stopped in `after` (every process by its pid).
 *
 * Bounds from what the start measured (docs/testing.md): the start itself may take 120 s (six
 * nodes, a cluster formed, five processes, on a machine the other lanes share); each test then has
 * its own timeout or {@link PACE_MARGIN} times what the start took, whichever is longer — a
 * machine slow enough to take 60 s to start the topology today runs the tests' bursts as slowly.
 */
export function useClusterTopology(opts: TopologyOptions): () => ClusterTopology {
  let topology: ClusterTopology | undefined;
  let starting: Promise<ClusterTopology> | undefined;
  let startMs = 0;
  before(async function () {
    this.timeout(120_000);
    const started = Date.now();
    starting = startClusterTopology(opts);
    topology = await starting;
    startMs = Date.now() - started;
  });
  beforeEach(function () {
    const test = this.currentTest;
    if (test) test.timeout(Math.max(test.timeout(), PACE_MARGIN * startMs));
  });
  after(async function () {
    this.timeout(60_000);
    // A start whose hook timed out is still running: stopped once it is done (failed starts stop themselves).
    const t = topology ?? (await starting?.catch(() => undefined));
    await t?.stop();
  });
  return () => topology!;
}
