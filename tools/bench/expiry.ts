/**
 * `npm run bench -- expiry` (docs/wallets.md, docs/benchmarks.md): BENCH_EXPIRY_BUCKETS buckets
 * (default 1,000,000) over BENCH_EXPIRY_CUSTOMERS customers (default 100,000: 10 buckets each, each
 * of its own instant within the same 10 ms) falling due at one instant, with 2 workers and the
 * default sweep (EXPIRY_SWEEP_MS). Reported: the time from the instant until every bucket has
 * expired (the due range empty and the queues drained), CPU ms per expired bucket of all processes
 * together (API, workers, Redis, the database's processes: embedded, or BENCH_DB_DIR's), redeem and
 * credit throughput while it runs against the same loads just before (same stack, same processes),
 * and Redis and database growth per bucket (stored balances; ledger entries written by the expiry).
 *
 * The balances are written directly (one insert per 5,000): a credit through the API per bucket
 * would make the set-up the benchmark. Their ledgers start at the balance (version 0), which the
 * expiry entries continue.
 */
import mongoose from 'mongoose';
import { nextDue, type Bucket } from '../../shared/domain/point-buckets.js';
import { pidsNamed, processSeconds, withCpu } from './cpu.js';
import { freshQueueLoads, loadRedeemApp, queueLoads } from './dataset.js';
import { log, measure, SECONDS, startStack, type Result } from './stack.js';

const BUCKETS = Number(process.env.BENCH_EXPIRY_BUCKETS ?? 1_000_000);
const CUSTOMERS = Number(process.env.BENCH_EXPIRY_CUSTOMERS ?? 100_000);
/** How long after the data is loaded the buckets fall due (the baseline load runs meanwhile). */
const LEAD_MS = (SECONDS * 2 + 15) * 1000;

const usedMemory = async (redis: { info: (s: string) => Promise<string> }) =>
  Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);

export async function expiryBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const app = await loadRedeemApp(stack.services, log);
    const { db } = stack;
    const dbBytes = async () => {
      const s = (await db.connection.db!.command({ dbStats: 1 })) as { dataSize?: number; indexSize?: number };
      return (s.dataSize ?? 0) + (s.indexSize ?? 0);
    };
    // A wallet of its own: the redeem load's cashback goes to `loyalty`, never into these balances.
    const wallet = await stack.services.repos.wallets.create(app.application.id, {
      walletId: 'expiring',
      name: 'Expiring',
      currency: 'INR',
      singularUnitName: 'point',
      pluralUnitName: 'points',
      timezone: 'UTC',
      pointsExpiry: { kind: 'end_of', period: 'month' },
    });
    const { url, child: api } = await stack.startApi();
    const workers = [await stack.startWorker(), await stack.startWorker()];
    const per = Math.max(1, Math.round(BUCKETS / CUSTOMERS));
    const application = new mongoose.Types.ObjectId(app.application.id);
    const walletId = new mongoose.Types.ObjectId(wallet.id);
    const Balance = db.models.WalletBalance.collection;
    // Each load phase on an application of its own (a fresh ledger, as the other modes: endpoints.ts).
    const fresh: ReturnType<typeof queueLoads>[] = [];
    for (let i = 0; i < 4; i++) fresh.push(await freshQueueLoads(stack.services));
    const db0 = await dbBytes();
    const at = Date.now() + LEAD_MS + Math.ceil(CUSTOMERS / 5000) * 1000;
    log(`writing ${CUSTOMERS} balances with ${per} buckets each, due at ${new Date(at).toISOString()}`);
    for (let from = 0; from < CUSTOMERS; from += 5000) {
      const docs = Array.from({ length: Math.min(5000, CUSTOMERS - from) }, () => {
        const customer = new mongoose.Types.ObjectId();
        const buckets: Bucket[] = Array.from({ length: per }, (_, i) => ({
          id: `e${at + i}.0`,
          points: 100,
          availableAt: null,
          expiresAt: new Date(at + i),
        }));
        return {
          _id: `${app.application.id}:${customer.toHexString()}:${wallet.id}`,
          application,
          customer,
          wallet: walletId,
          points: 100 * per,
          version: 0,
          buckets,
          nextDue: nextDue({ points: 100 * per, buckets }),
          updatedAt: new Date(),
        };
      });
      await Balance.insertMany(docs as never[], { ordered: false });
    }
    const db1 = await dbBytes();
    const buckets = CUSTOMERS * per;
    log(`  ${buckets} buckets written; ${((db1 - db0) / buckets).toFixed(0)} database bytes per bucket`);

    const paths = { redeem: '/coupons/apply?type=redeem', credit: '/wallets/customer/x/transactions/loyalty' };
    const phase = (op: 'redeem' | 'credit', when: string) => measure(`${op} ${when}`, `${url}${paths[op]}`, fresh.shift()![op]);
    const baseline: Result[] = [await phase('redeem', 'before'), await phase('credit', 'before')];
    const wait = at - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (Date.now() < at + 10) await new Promise((r) => setTimeout(r, at + 10 - Date.now()));
    log('due: the sweep takes over');

    const database = stack.databaseCpu;
    const redisPids = pidsNamed('redis-server');
    const all = () => processSeconds([api.pid, ...workers.map((w) => w.pid), ...redisPids]) + (database?.() ?? 0);
    const expiredCount = () => db.models.WalletTransaction.collection.countDocuments({ application, wallet: walletId, type: 'expired' });
    const redis0 = await usedMemory(stack.redis);
    let redisPeak = redis0;
    const peak = setInterval(() => {
      void usedMemory(stack.redis).then((m) => (redisPeak = Math.max(redisPeak, m)));
    }, 500);
    const during: Result[] = [];
    const started = Date.now();
    let firstAt = 0;
    const first = (async () => {
      while ((await expiredCount()) === 0) await new Promise((r) => setTimeout(r, 50));
      firstAt = Date.now() - started;
    })();
    // The loads while the expiry runs (the first SECONDS of it each); then the rest of the expiry
    // alone, whose CPU per bucket is the cost of expiring (the loads' own CPU is not in it).
    during.push(await phase('redeem', 'during expiry'), await phase('credit', 'during expiry'));
    const alone0 = await expiredCount();
    const aloneStart = Date.now();
    const { cpu } = await withCpu({ all }, async () => {
      for (;;) {
        const n = await expiredCount();
        if (n >= buckets) break;
        log(`  expired ${n} of ${buckets}`);
        await new Promise((r) => setTimeout(r, 2000));
      }
      await stack.drain();
    });
    const aloneWall = (Date.now() - aloneStart) / 1000;
    const total = Date.now() - started;
    const aloneBuckets = buckets - alone0;
    const aloneSeconds = (cpu.groups.all ?? 0) * aloneWall;
    clearInterval(peak);
    await first;
    const db2 = await dbBytes();
    const lines = [
      `| | figure |`,
      `|---|---|`,
      `| buckets (customers × buckets each) | ${buckets} (${CUSTOMERS} × ${per}) |`,
      `| first expiry posted after the instant | ${(firstAt / 1000).toFixed(1)} s (sweep every ${stack.config.expirySweepMs} ms) |`,
      `| all expired (due range empty, queues drained) | ${(total / 1000).toFixed(1)} s → ${((buckets / total) * 1000).toFixed(0)} buckets/s |`,
      `| CPU of all processes per expired bucket (after the loads: ${aloneBuckets} buckets) | ${aloneBuckets > 0 ? ((aloneSeconds * 1000) / aloneBuckets).toFixed(2) : '—'} ms${database ? '' : ' (database not counted: no database processes found)'} |`,
      ...baseline.map((b, i) => {
        const d = during[i]!;
        return `| ${b.name.replace(' before', '')}: before → during | ${b.rps.toFixed(0)} → ${d.rps.toFixed(0)} req/s (${(((d.rps - b.rps) / b.rps) * 100).toFixed(0)}%), p50 ${b.p50} → ${d.p50} ms, non-2xx ${d.non2xx + d.errors} |`;
      }),
      `| Redis: peak growth while the settle jobs are queued | ${((redisPeak - redis0) / buckets).toFixed(0)} bytes per bucket (${((redisPeak - redis0) / 1e6).toFixed(1)} MB) |`,
      `| database: stored buckets (balances written) | ${((db1 - db0) / buckets).toFixed(0)} bytes per bucket |`,
      `| database: after the expiry (ledger entries written, buckets removed) | ${((db2 - db1) / buckets).toFixed(0)} bytes per bucket |`,
    ];
    return lines;
  } finally {
    await stack.stop();
  }
}
