/**
 * `npm run bench -- cluster`: the service on a Redis Cluster (3 primaries + 3 replicas on loopback,
 * scripts/redis-cluster.ts — the same helper the cluster tests use), 16 partitions. The no-op job,
 * redeem and wallet credit at 64 connections with 1, 2 and 3 workers behind one API, then 3 workers
 * behind two APIs (the connections split between them), and as a reference the last topology on a
 * single Redis. Each measurement also says where the CPU went (tools/bench/cpu.ts); BENCH_DB_DIR,
 * the directory of tools/testdb/start.sh, names the database's processes (FerretDB, PostgreSQL).
 */
import type { ChildProcess } from 'node:child_process';
import { startRedisServer } from '../../scripts/embedded-servers.js';
import { startRedisCluster, type RedisCluster } from '../../scripts/redis-cluster.js';
import { partitionQueues } from '../../shared/queue/names.js';
import { processSeconds, withCpu, type CpuShares } from './cpu.js';
import { freshQueueLoads, loadRedeemApp, queueLoads } from './dataset.js';
import { log, measure, startStack, stopChild, type Result, type Stack } from './stack.js';

const PARTITIONS = 16;

interface Row {
  topology: string;
  apis: number;
  workers: number;
  results: { noop: Result; redeem: Result; credit: Result };
  cpu: { noop: CpuShares; redeem: CpuShares; credit: CpuShares };
}

export async function clusterBench(): Promise<string[]> {
  log('starting a Redis Cluster: 3 primaries + 3 replicas');
  const cluster: RedisCluster = await startRedisCluster();
  let stack: Stack | undefined;
  let single: Awaited<ReturnType<typeof startRedisServer>> | undefined;
  try {
    stack = await startStack({ QUEUE_PARTITIONS: String(PARTITIONS) }, { redisUrl: cluster.url });
    const s = stack;
    log('loading data set');
    const data = await loadRedeemApp(s.services, log);
    const loads = queueLoads(data);
    const paths = { noop: '/bench/noop-job', redeem: '/coupons/apply?type=redeem', credit: '/wallets/customer/x/transactions/loyalty' };
    const rows: Row[] = [];

    /** Measures the three operations on the running APIs and workers of one topology. */
    const measureTopology = async (
      topology: string,
      apis: { url: string; child: ChildProcess }[],
      workers: ChildProcess[],
      redisPids: () => (number | undefined)[],
      drain: () => Promise<void>,
    ) => {
      const database = stack!.databaseCpu;
      const groups: Record<string, () => number> = {
        API: () => processSeconds(apis.map((a) => a.child.pid)),
        workers: () => processSeconds(workers.map((w) => w.pid)),
        Redis: () => processSeconds(redisPids()),
        ...(database ? { database } : {}),
      };
      const label = `${topology}, ${apis.length} API, ${workers.length} worker`;
      const one = async (op: 'noop' | 'redeem' | 'credit') => {
        // Redeem and credit on an application of their own (a fresh ledger: see endpoints.ts).
        const load = op === 'noop' ? loads.noop : (await freshQueueLoads(s.services))[op];
        await drain();
        const { result, cpu } = await withCpu(groups, () =>
          measure(
            `${op} (${label})`,
            apis.map((a) => `${a.url}${paths[op]}`),
            load,
          ),
        );
        return { result, cpu };
      };
      const noop = await one('noop');
      const redeem = await one('redeem');
      const credit = await one('credit');
      await drain();
      rows.push({
        topology,
        apis: apis.length,
        workers: workers.length,
        results: { noop: noop.result, redeem: redeem.result, credit: credit.result },
        cpu: { noop: noop.cpu, redeem: redeem.cpu, credit: credit.cpu },
      });
    };

    // On the cluster: 1, 2, 3 workers behind one API, then a second API.
    const clusterPids = () => cluster.nodes.map((n) => n.child.pid);
    const apis = [await s.startApi()];
    const workers = [await s.startWorker()];
    await measure('warm-up', `${apis[0]!.url}/bench/noop-job`, { ...loads.noop, connections: 16, amount: 2000 });
    for (const n of [1, 2, 3]) {
      while (workers.length < n) workers.push(await s.startWorker());
      await measureTopology('cluster', apis, workers, clusterPids, () => s.drain());
    }
    apis.push(await s.startApi());
    await measure('warm-up', `${apis[1]!.url}/bench/noop-job`, { ...loads.noop, connections: 16, amount: 2000 });
    await measureTopology('cluster', apis, workers, clusterPids, () => s.drain());
    await Promise.all([...apis.map((a) => a.child), ...workers].map(stopChild));

    // Reference: the same two APIs and three workers on one Redis (REDIS_URL, or a private one).
    single = process.env.REDIS_URL ? undefined : await startRedisServer();
    const singleUrl = process.env.REDIS_URL ?? single!.url;
    const env = { REDIS_URL: singleUrl, QUEUE_PREFIX: `${s.config.queuePrefix}-single` };
    const singleApis = [await s.startApi(env), await s.startApi(env)];
    const singleWorkers = [await s.startWorker(env), await s.startWorker(env), await s.startWorker(env)];
    const drainSingle = async () => {
      const p = partitionQueues({ ...s.config, redisUrl: singleUrl, queuePrefix: env.QUEUE_PREFIX });
      try {
        for (;;) {
          const counts = await Promise.all(p.queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')));
          if (counts.every((c) => Object.values(c).every((n) => n === 0))) break;
          await new Promise((r) => setTimeout(r, 1000));
        }
      } finally {
        await p.close();
      }
    };
    for (const a of singleApis) await measure('warm-up', `${a.url}/bench/noop-job`, { ...loads.noop, connections: 16, amount: 2000 });
    // The single Redis's pid is known only when this mode started it.
    await measureTopology('single Redis', singleApis, singleWorkers, () => [single?.child.pid], drainSingle);

    const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
    const cores = (x: number | undefined) => (x === undefined ? '' : x.toFixed(2));
    const cell = (r: Result) => `${r.rps.toFixed(0)} (${r.p50} / ${r.p99})${r.non2xx + r.errors ? ` ${r.non2xx + r.errors} non-2xx` : ''}`;
    return [
      '',
      `16 partitions, 64 connections, ${rows[0]!.cpu.noop.cores.toFixed(0)} cores; req/s (p50 / p99 ms)`,
      '',
      '| Redis | APIs | workers | no-op job | redeem | wallet credit |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.topology} | ${r.apis} | ${r.workers} | ${cell(r.results.noop)} | ${cell(r.results.redeem)} | ${cell(r.results.credit)} |`,
      ),
      '',
      `Where the CPU went (cores busy on average; "rest" is anything else on the machine${stack!.databaseCpu ? '' : ', the database included'}):`,
      '',
      '| measurement | machine busy | APIs | workers | Redis | database | load generator | rest |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.flatMap((r) =>
        (['noop', 'redeem', 'credit'] as const).map((op) => {
          const c = r.cpu[op];
          return `| ${op}, ${r.topology}, ${r.apis} API, ${r.workers} worker | ${pct(c.machineBusy)} | ${cores(c.groups.API)} | ${cores(c.groups.workers)} | ${r.topology === 'single Redis' && !single ? 'n/a' : cores(c.groups.Redis)} | ${c.groups.database === undefined ? 'in rest' : cores(c.groups.database)} | ${cores(c.groups['load generator'])} | ${cores(c.rest)} |`;
        }),
      ),
    ];
  } finally {
    await stack?.stop();
    await single?.stop();
    await cluster.stop();
  }
}
