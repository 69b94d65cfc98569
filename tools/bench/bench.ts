/**
 * `npm run bench`: starts the stack (MONGODB_URI / REDIS_URL when set, embedded servers
 * otherwise), loads a fixed data set, and measures in ONE run each endpoint against a baseline
 * measured in the same run:
 *   - validate vs baseline (Basic auth + JSON parse + one indexed read) at 64 and 8 connections;
 *   - list (200 coupons, 50-item order) at 8 connections;
 *   - redeem and wallet credit vs a no-op job round trip through the same queues, with 1 and 2
 *     worker processes, 64 connections.
 * Prints requests/s, p50, p99 and the ratios against the targets (docs/benchmarks.md).
 * BENCH_SECONDS (default 10) sets the length of each measurement.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { partitionQueues } from '../../shared/queue/names.js';
import { parseConfig, type Config } from '../../shared/config.js';
import { connectDatabase } from '../../shared/data/db.js';
import { createServices } from '../../shared/services.js';
import { freePort, startEmbeddedServers, withDbName } from '../../scripts/embedded-servers.js';
import { benchOrder, loadBenchData } from './dataset.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Result {
  name: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function spawnChild(script: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m) => m === 'ready' && resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function stopChild(child: ChildProcess) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function measure(
  name: string,
  url: string,
  connections: number,
  auth: string,
  body: () => unknown,
  method: 'POST' | 'PUT' = 'POST',
  /** A path per request (autocannon keeps `url`'s host); default: `url`'s path. */
  path?: () => string,
): Promise<Result> {
  const started = Date.now();
  const ticker = setInterval(() => log(`  ${name} @${connections}: ${Math.round((Date.now() - started) / 1000)}/${SECONDS} s`), 2500);
  const out = await autocannon({
    url,
    connections,
    duration: SECONDS,
    requests: [
      {
        method,
        headers: { authorization: auth, 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, ...(path ? { path: path() } : {}), body: JSON.stringify(body()) }),
      },
    ],
  });
  clearInterval(ticker);
  const r: Result = {
    name,
    connections,
    rps: out.requests.average,
    p50: out.latency.p50,
    p99: out.latency.p99,
    non2xx: out.non2xx,
    errors: out.errors,
  };
  log(`  ${name} @${connections}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}`);
  return r;
}

/**
 * Waits until every partition queue is empty: a phase's requests that timed out leave jobs
 * behind, which must not be counted against the next phase.
 */
async function drainQueues(config: Config) {
  const queues = partitionQueues(config);
  for (;;) {
    const counts = await Promise.all(queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')));
    const left = counts.reduce((s, c) => s + Object.values(c).reduce((a, b) => a + b, 0), 0);
    if (left === 0) break;
    log(`  draining: ${left} jobs left`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  await Promise.all(queues.map((q) => q.close()));
}

async function main() {
  log(`bench: ${cpus().length} cores, ${SECONDS} s per measurement`);
  const servers = await startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
  const dbName = `coupons_bench_${Date.now()}`;
  const prefix = `coupons-bench-${process.pid}`;
  const mongodbUri = withDbName(servers.mongodbUri, dbName);
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    MONGODB_URI: mongodbUri,
    REDIS_URL: servers.redisUrl,
    QUEUE_PREFIX: prefix,
    WORKER_PORT: '0',
  };
  const config = parseConfig(env);
  const db = await connectDatabase(mongodbUri);
  const services = createServices(config, db);
  log('loading data set');
  const data = await loadBenchData(services, log);
  const auth = `Basic ${Buffer.from(`${data.apiKey}:${data.secret}`).toString('base64')}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  log('starting API and one worker');
  const apiProc = await spawnChild('tools/bench/bench-server.ts', { ...env, PORT: String(port) });
  const workers = [await spawnChild('worker/main.ts', env)];

  const customer = () => data.customers[Math.floor(Math.random() * data.customers.length)]!.sourceId;
  const smallOrder = benchOrder(5, 'bench-validate');
  const bigOrder = benchOrder(50, 'bench-list');
  const results: Result[] = [];
  const run = async (...args: Parameters<typeof measure>) => {
    const r = await measure(...args);
    results.push(r);
    return r;
  };
  try {
    // Warm-up (JIT, caches, connection pools), not recorded.
    await measure('warm-up', `${url}/coupons/validate`, 16, auth, () => ({
      source_id: customer(),
      coupon_details: [{ coupon_code: 'BENCH001' }],
      order: smallOrder,
    }));
    const validateBody = () => ({
      source_id: customer(),
      coupon_details: [{ coupon_id: data.campaigns[Math.floor(Math.random() * 200)]!.id, coupon_code: '' }],
      order: smallOrder,
    });
    const b64 = await run('baseline', `${url}/bench/baseline`, 64, auth, () => ({ source_id: customer() }));
    const v64 = await run('validate', `${url}/coupons/validate`, 64, auth, validateBody);
    const b8 = await run('baseline', `${url}/bench/baseline`, 8, auth, () => ({ source_id: customer() }));
    const v8 = await run('validate', `${url}/coupons/validate`, 8, auth, validateBody);
    const listBody = () => ({ source_id: customer(), order: bigOrder });
    const l8 = await run('list (200 coupons, 50 items)', `${url}/coupons/list/all`, 8, auth, listBody);
    // One connection: the unloaded latency, without queueing behind other requests.
    await run('list (200 coupons, 50 items)', `${url}/coupons/list/all`, 1, auth, listBody);

    const queueRows: [string, Result, Result, Result][] = [];
    for (const n of [1, 2]) {
      if (n === 2) workers.push(await spawnChild('worker/main.ts', env));
      await drainQueues(config);
      const noop = await run(`no-op job (${n} worker)`, `${url}/bench/noop-job`, 64, auth, () => ({}));
      await drainQueues(config);
      const redeem = await run(`redeem (${n} worker)`, `${url}/coupons/apply?type=redeem`, 64, auth, () => ({
        source_id: customer(),
        coupon_details: [{ coupon_id: data.redeemCoupon.id, coupon_code: 'BENCHREDEEM' }],
        order: { ...smallOrder, order_id: randomUUID() },
      }));
      await drainQueues(config);
      const credit = await run(
        `wallet credit (${n} worker)`,
        `${url}/wallets/customer/bench-cust-0/transactions/loyalty`,
        64,
        auth,
        () => ({ type: 'credit', points: 1 }),
        'PUT',
        () => `/wallets/customer/${customer()}/transactions/loyalty`,
      );
      await drainQueues(config);
      queueRows.push([`${n}`, noop, redeem, credit]);
    }

    const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
    const lines = [
      '',
      '| measurement | conns | req/s | p50 ms | p99 ms | non-2xx |',
      '|---|---|---|---|---|---|',
      ...results.map((r) => `| ${r.name} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} |`),
      '',
      '| ratio | measured | target | |',
      '|---|---|---|---|',
      `| validate / baseline throughput @64 | ${pct(v64.rps / b64.rps)} | >= 50% | ${v64.rps / b64.rps >= 0.5 ? 'met' : 'MISSED'} |`,
      `| validate p99 / baseline p99 @8 | ${(v8.p99 / Math.max(b8.p99, 1)).toFixed(2)}x | <= 2x | ${v8.p99 <= 2 * Math.max(b8.p99, 1) ? 'met' : 'MISSED'} |`,
      `| list p50 @8 (200 coupons, 50 items) | ${l8.p50} ms | < 15 ms | ${l8.p50 < 15 ? 'met' : 'MISSED'} |`,
      ...queueRows.flatMap(([n, noop, redeem, credit]) => [
        `| redeem / no-op job, ${n} worker | ${pct(redeem.rps / noop.rps)} | >= 70% | ${redeem.rps / noop.rps >= 0.7 ? 'met' : 'MISSED'} |`,
        `| wallet credit / no-op job, ${n} worker | ${pct(credit.rps / noop.rps)} | >= 70% | ${credit.rps / noop.rps >= 0.7 ? 'met' : 'MISSED'} |`,
      ]),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await Promise.all(workers.map(stopChild));
    await stopChild(apiProc);
    await db.close();
    await servers.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
