/**
 * What every benchmark mode shares: the servers (MONGODB_URI / REDIS_URL when set, embedded
 * otherwise), an API process (tools/bench/bench-server.ts) and worker processes spawned like
 * production, autocannon measurements, and draining the queues between measurements.
 * Progress goes to stderr; modes print their tables on stdout.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import autocannon from 'autocannon';
import { startEmbeddedServers, withDbName, type EmbeddedServers } from '../../scripts/embedded-servers.js';
import { isReadyMessage } from '../../shared/process.js';
import { parseConfig, type Config } from '../../shared/config.js';
import { connectDatabase, type Database } from '../../shared/data/db.js';
import { partitionQueues } from '../../shared/queue/names.js';
import { redisConnection, type RedisClient } from '../../shared/queue/redis.js';
import { createServices, type Services } from '../../shared/services.js';
import { databaseSeconds, pidsNamed, processSeconds, withCpu } from './cpu.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** How many times the queue measurements are repeated (interleaved); their median is reported. */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface Result {
  name: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
  /**
   * CPU ms per request of the stack's processes together (API, workers, Redis, the database when
   * known), without the load generator and the webhook receiver; and per group.
   */
  cpuMs?: number;
  cpuBy?: Record<string, number>;
}

/**
 * Where `measure` reads the CPU of the stack's processes (set by {@link startStack}): every
 * measurement reports its CPU per request beside its throughput.
 */
const cpuSources: Record<string, () => number> = {};

/** Forks a service process; resolves with it and the port it reported once ready (an API listens on PORT, 0 by default). */
export function spawnChild(script: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(script, [], {
    // BENCH_CPU_PROF=<dir>: each spawned process writes a V8 CPU profile there when it exits.
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m) => isReadyMessage(m) && resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export interface Load {
  connections: number;
  auth: string;
  body: () => unknown;
  method?: 'POST' | 'PUT';
  /** A path per request (autocannon keeps `url`'s host); default: `url`'s path. */
  path?: () => string;
  /** A fixed number of requests instead of SECONDS of load. */
  amount?: number;
  /** Requests per second in all (autocannon's overallRate); default: as fast as answered. */
  rate?: number;
}

/**
 * One autocannon measurement. Given several URLs (API replicas), the connections are split evenly
 * and the runs go in parallel: requests and errors add up, and p50/p99 are the slower replica's.
 */
export async function measure(name: string, url: string | string[], load: Load): Promise<Result> {
  const { result, cpu } = await withCpu(cpuSources, () => measureLoad(name, url, load));
  if (Object.keys(cpuSources).length === 0 || result.rps === 0) return result;
  const cpuBy = Object.fromEntries(Object.keys(cpuSources).map((g) => [g, (cpu.groups[g]! * 1000) / result.rps]));
  const cpuMs = Object.values(cpuBy).reduce((a, b) => a + b, 0);
  log(
    `    CPU ${cpuMs.toFixed(2)} ms per request (${Object.entries(cpuBy)
      .map(([g, v]) => `${g} ${v.toFixed(2)}`)
      .join(', ')})`,
  );
  return { ...result, cpuMs, cpuBy };
}

/** Runs `run` and reports the CPU the stack's processes used meanwhile (cores per group: {@link withCpu}). */
export const withStackCpu = <T>(run: () => Promise<T>) => withCpu(cpuSources, run);

async function measureLoad(name: string, url: string | string[], load: Load): Promise<Result> {
  const started = Date.now();
  const ticker = setInterval(() => log(`  ${name} @${load.connections}: ${Math.round((Date.now() - started) / 1000)} s`), 5000);
  const urls = Array.isArray(url) ? url : [url];
  const outs = await Promise.all(
    urls.map((u) =>
      autocannon({
        url: u,
        connections: Math.max(1, Math.round(load.connections / urls.length)),
        ...(load.amount ? { amount: Math.round(load.amount / urls.length) } : { duration: SECONDS }),
        ...(load.rate ? { overallRate: load.rate / urls.length } : {}),
        timeout: 30,
        requests: [
          {
            method: load.method ?? 'POST',
            headers: { authorization: load.auth, 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, ...(load.path ? { path: load.path() } : {}), body: JSON.stringify(load.body()) }),
          },
        ],
      }),
    ),
  );
  clearInterval(ticker);
  const sum = (f: (o: (typeof outs)[number]) => number) => outs.reduce((s, o) => s + f(o), 0);
  const r: Result = {
    name,
    connections: load.connections,
    rps: sum((o) => o.requests.average),
    p50: Math.max(...outs.map((o) => o.latency.p50)),
    p99: Math.max(...outs.map((o) => o.latency.p99)),
    non2xx: sum((o) => o.non2xx),
    errors: sum((o) => o.errors),
    requests: sum((o) => o.requests.total),
  };
  log(
    `  ${name} @${load.connections}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}`,
  );
  return r;
}

/** The median of some figures (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Calls per command name since Redis started (INFO commandstats; commands inside scripts included). */
export const redisCommandCalls = async (redis: RedisClient) =>
  new Map([...(await redis.info('commandstats')).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])] as const));

/** The run with the median throughput of several, named `name`, its throughput range in `spread`. */
export function medianOf(runs: Result[], name: string): Result {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const m = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const spread = sorted.length > 1 ? ` [${sorted[0]!.rps.toFixed(0)}-${sorted.at(-1)!.rps.toFixed(0)}]` : '';
  return { ...m, name: `${name}${spread}` };
}

/** CPU ms per request of the stack's processes, with the groups' shares. */
export const cpuCell = (r: Result) =>
  r.cpuMs === undefined
    ? ''
    : `${r.cpuMs.toFixed(2)} (${Object.entries(r.cpuBy!)
        .map(([g, v]) => `${g} ${v.toFixed(2)}`)
        .join(', ')})`;
export const row = (r: Result) =>
  `| ${r.name} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} | ${cpuCell(r)} |`;
export const TABLE_HEAD = [
  '| measurement | conns | req/s | p50 ms | p99 ms | non-2xx | CPU ms per request, all processes (API, workers, Redis, database) |',
  '|---|---|---|---|---|---|---|',
];
export const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** Servers, database and the services a mode seeds its data with. */
export interface Stack {
  servers: EmbeddedServers;
  /** The environment of the processes this stack spawns (QUEUE_PARTITIONS etc. overridable per spawn). */
  env: Record<string, string>;
  config: Config;
  db: Database;
  services: Services;
  /** A connection to the stack's Redis (a cluster client for a `redis+cluster://` URL). */
  redis: RedisClient;
  /** CPU seconds of the database's processes so far (BENCH_DB_DIR's, or the embedded test database's); undefined when unknown. */
  databaseCpu: (() => number) | undefined;
  /** Starts an API process; resolves with its URL. */
  startApi(extra?: Record<string, string>): Promise<{ url: string; child: ChildProcess }>;
  startWorker(extra?: Record<string, string>): Promise<ChildProcess>;
  /** Waits until every partition queue (of `partitions`, default the stack's) is empty. */
  drain(partitions?: number, prefix?: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * @param extraEnv - environment of every process the stack spawns (and of its config).
 * @param opts.redisUrl - the Redis to use instead of REDIS_URL / an embedded one (the cluster mode's cluster).
 */
export async function startStack(extraEnv: Record<string, string> = {}, opts: { redisUrl?: string } = {}): Promise<Stack> {
  const servers = await startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: opts.redisUrl ?? process.env.REDIS_URL });
  const mongodbUri = withDbName(servers.mongodbUri, `coupons_bench_${Date.now()}`);
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    MONGODB_URI: mongodbUri,
    REDIS_URL: servers.redisUrl,
    QUEUE_PREFIX: `coupons-bench-${process.pid}`,
    WORKER_PORT: '0',
    ...extraEnv,
  };
  const config = parseConfig(env);
  const db = await connectDatabase(mongodbUri);
  const services = createServices(config, db);
  const redis = redisConnection(servers.redisUrl);
  const children: ChildProcess[] = [];
  const apis: ChildProcess[] = [];
  const workers: ChildProcess[] = [];
  const spawn = async (script: string, extra: Record<string, string>) => {
    const started = await spawnChild(script, { ...env, ...extra });
    children.push(started.child);
    (script.startsWith('worker/') ? workers : apis).push(started.child);
    return started;
  };
  // Every measurement's CPU: the live APIs and workers (one stopped is no longer counted), Redis
  // (every redis-server of the machine), the database (its directory: BENCH_DB_DIR, or the
  // embedded test database's).
  const live = (cs: ChildProcess[]) => cs.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid);
  const databaseDir = process.env.BENCH_DB_DIR ?? (servers.databaseLog ? dirname(dirname(servers.databaseLog)) : undefined);
  const database = databaseSeconds(databaseDir);
  for (const k of Object.keys(cpuSources)) delete cpuSources[k];
  Object.assign(cpuSources, {
    api: () => processSeconds(live(apis)),
    workers: () => processSeconds(live(workers)),
    redis: () => processSeconds(pidsNamed('redis-server')),
    ...(database ? { database } : {}),
  });
  return {
    servers,
    env,
    config,
    db,
    services,
    redis,
    databaseCpu: database,
    async startApi(extra = {}) {
      const { child, port } = await spawn('tools/bench/bench-server.ts', { PORT: '0', WORKER_PORT: '0', ...extra });
      return { url: `http://127.0.0.1:${port}`, child };
    },
    startWorker: async (extra = {}) => (await spawn('worker/main.ts', { WORKER_PORT: '0', ...extra })).child,
    async drain(partitions = config.queuePartitions, prefix = config.queuePrefix) {
      const p = partitionQueues({ ...config, queuePartitions: partitions, queuePrefix: prefix });
      try {
        for (;;) {
          const counts = await Promise.all(p.queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')));
          const left = counts.reduce((s, c) => s + Object.values(c).reduce((a, b) => a + b, 0), 0);
          if (left === 0) break;
          log(`  draining: ${left} jobs left`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      } finally {
        await p.close();
      }
    },
    async stop() {
      await Promise.all(children.map(stopChild));
      redis.disconnect();
      await db.close();
      await servers.stop();
    },
  };
}
