/**
 * `npm run bench -- tiers` (docs/wallets.md "Tiers", docs/benchmarks.md): BENCH_TIER_CUSTOMERS
 * customers (default 100,000) whose tier re-assessment falls due at one instant (a month end), half
 * of them keeping Silver on what they earned, half going down to Member, with 2 workers and the
 * default sweep (EXPIRY_SWEEP_MS). Reported: the time from the instant until every customer is
 * re-assessed (queues drained), CPU ms per customer of all processes together (API, workers, Redis,
 * the database's processes: embedded, or BENCH_DB_DIR's), and redeem throughput while it runs
 * against the same load just before (same stack, same processes; expected within 10 %).
 *
 * The balances are written directly (one insert per 5,000): earning through the API per customer
 * would make the set-up the benchmark. Their ledgers start at the balance (version 0), which the
 * re-assessment entries continue.
 */
import mongoose from 'mongoose';
import { monthOf, type TierRecord } from '../../shared/domain/tiers.js';
import { pidsNamed, processSeconds, withCpu } from './cpu.js';
import { freshQueueLoads, loadRedeemApp, queueLoads } from './dataset.js';
import { log, measure, SECONDS, startStack, type Result } from './stack.js';

const CUSTOMERS = Number(process.env.BENCH_TIER_CUSTOMERS ?? 100_000);
/** How long after the data is loaded the re-assessments fall due (the baseline load runs meanwhile). */
const LEAD_MS = (SECONDS + 15) * 1000;

export async function tiersBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const app = await loadRedeemApp(stack.services, log);
    const { db } = stack;
    // A wallet of its own: the redeem load's cashback goes to `loyalty`, never into these balances.
    const wallet = await stack.services.repos.wallets.create(app.application.id, {
      walletId: 'club',
      name: 'Club',
      currency: 'INR',
      singularUnitName: 'point',
      pluralUnitName: 'points',
      timezone: 'UTC',
      tiers: {
        basis: { kind: 'calendar', period: 'month' },
        levels: [
          { name: 'Member', minHundredths: 0, multiplier: 100 },
          { name: 'Silver', minHundredths: 100_000, multiplier: 125 },
        ],
      },
    });
    const { url, child: api } = await stack.startApi();
    const workers = [await stack.startWorker(), await stack.startWorker()];
    const application = new mongoose.Types.ObjectId(app.application.id);
    const walletId = new mongoose.Types.ObjectId(wallet.id);
    const Balance = db.models.WalletBalance.collection;
    const fresh: ReturnType<typeof queueLoads>[] = [];
    for (let i = 0; i < 2; i++) fresh.push(await freshQueueLoads(stack.services));
    const at = new Date(Date.now() + LEAD_MS + Math.ceil(CUSTOMERS / 5000) * 1000);
    const month = monthOf(new Date(at.getTime() - 1), 'UTC');
    log(`writing ${CUSTOMERS} Silver balances, re-assessed at ${at.toISOString()}`);
    for (let from = 0; from < CUSTOMERS; from += 5000) {
      const docs = Array.from({ length: Math.min(5000, CUSTOMERS - from) }, (_, i) => {
        const customer = new mongoose.Types.ObjectId();
        // Every other customer earned Silver's worth in the month that ends (kept); the rest nothing (down to Member).
        const keeps = (from + i) % 2 === 0;
        const tier: TierRecord = {
          level: 'Silver',
          held: 'Silver',
          until: at,
          earned: keeps ? [{ month, hundredths: 150_000 }] : [],
          due: at,
        };
        return {
          _id: `${app.application.id}:${customer.toHexString()}:${wallet.id}`,
          application,
          customer,
          wallet: walletId,
          points: 150_000,
          version: 0,
          tier,
          nextDue: at,
          updatedAt: new Date(),
        };
      });
      await Balance.insertMany(docs as never[], { ordered: false });
    }

    const phase = (when: string) => measure(`redeem ${when}`, `${url}/coupons/apply?type=redeem`, fresh.shift()!.redeem);
    const before: Result = await phase('before');
    const wait = at.getTime() - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    log('due: the sweep takes over');

    const database = stack.databaseCpu;
    const redisPids = pidsNamed('redis-server');
    const all = () => processSeconds([api.pid, ...workers.map((w) => w.pid), ...redisPids]) + (database?.() ?? 0);
    const reassessed = () => db.models.WalletTransaction.collection.countDocuments({ application, wallet: walletId, type: 'tier' });
    const started = Date.now();
    // The redeem load while the re-assessment runs (its first SECONDS); then the rest alone, whose CPU
    // per customer is the cost of re-assessing (the load's own CPU is not in it).
    const during = await phase('during re-assessment');
    const alone0 = await reassessed();
    const aloneStart = Date.now();
    const { cpu } = await withCpu({ all }, async () => {
      for (;;) {
        const n = await reassessed();
        if (n >= CUSTOMERS) break;
        log(`  re-assessed ${n} of ${CUSTOMERS}`);
        await new Promise((r) => setTimeout(r, 2000));
      }
      await stack.drain();
    });
    const aloneWall = (Date.now() - aloneStart) / 1000;
    const total = Date.now() - started;
    const aloneCustomers = CUSTOMERS - alone0;
    const aloneSeconds = (cpu.groups.all ?? 0) * aloneWall;
    const down = await Balance.countDocuments({ application, wallet: walletId, 'tier.level': 'Member' });
    return [
      `| | figure |`,
      `|---|---|`,
      `| customers re-assessed at one month end | ${CUSTOMERS} (${down} went down to Member, ${CUSTOMERS - down} kept Silver) |`,
      `| all re-assessed (queues drained) | ${(total / 1000).toFixed(1)} s → ${((CUSTOMERS / total) * 1000).toFixed(0)} customers/s |`,
      `| CPU of all processes per customer (after the load: ${aloneCustomers} customers) | ${aloneCustomers > 0 ? ((aloneSeconds * 1000) / aloneCustomers).toFixed(2) : '—'} ms${database ? '' : ' (database not counted: no database processes found)'} |`,
      `| redeem: before → during | ${before.rps.toFixed(0)} → ${during.rps.toFixed(0)} req/s (${(((during.rps - before.rps) / before.rps) * 100).toFixed(0)}%), p50 ${before.p50} → ${during.p50} ms, non-2xx ${during.non2xx + during.errors} |`,
    ];
  } finally {
    await stack.stop();
  }
}
