/**
 * `npm run bench -- flash`: a flash sale. One coupon with a total limit, a per-customer limit of 1
 * and a per-day limit (neither reached), redeemed 100,000 times by distinct customers at 64
 * connections with 2 workers, in blocks of 10,000 (p50/p99 per block: the last block must cost
 * what the first did); the counters' document sizes sampled throughout; Redis memory before and
 * after; the exact completed count. Then a sell-out: limit 12,345, 20,000 customers at once
 * (exactly 12,345 applied), and the stampede after it: 20,000 more customers, all refused — their
 * p50 and CPU per refusal against the redemptions' (docs/architecture.md, "Sold-out refusals").
 * FLASH_REDEMPTIONS (default 100000) scales the main run.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { campaignCounterId, customerCounterId } from '../../shared/data/limit-counter.repository.js';
import { createCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import { probeCpuMs } from './cpu.js';
import { benchOrder, loadRedeemApp } from './dataset.js';
import { log, measure, median, startStack, type Result } from './stack.js';

const TOTAL = Number(process.env.FLASH_REDEMPTIONS ?? 100_000);
const BLOCK = 10_000;
const EXHAUST_LIMIT = 12_345;
const EXHAUST_ATTEMPTS = 20_000;
const AFTER_ATTEMPTS = 20_000;

const usedMemory = async (redis: { info: (s: string) => Promise<string> }) =>
  Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

export async function flashBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const app = await loadRedeemApp(stack.services, log);
    // The exhaustion run reuses the first customers (none has used its coupon yet).
    const customers = Math.max(TOTAL, EXHAUST_ATTEMPTS + AFTER_ATTEMPTS);
    const campaign = (code: string, limits: Record<string, number>) =>
      createCampaign(stack.services, app.application.id, {
        name: code,
        code,
        discount: { kind: 'discount', type: 'percentage', value: 10 },
        limits,
      }) as Promise<{ id: string }>;
    // Limits the run never reaches (a per-day limit below the run's size would refuse its last redemptions).
    const flash = await campaign('FLASH', { total: 10 * TOTAL, per_customer: 1, per_day: 9 * TOTAL });
    const exhaust = await campaign('EXHAUST', { total: EXHAUST_LIMIT, per_customer: 1 });

    const { url } = await stack.startApi();
    await stack.startWorker();
    await stack.startWorker();
    // Where the CPU goes: each measurement's CPU per request by group (API, workers, Redis, the
    // test database: BENCH_DB_DIR's, or the embedded one the stack started), from `measure`.
    const database = stack.databaseCpu;
    // Inserted directly (the admin upsert of 10,000 customers is slower than this needs), once the
    // processes have made their indexes: the unique (application, sourceId) index checks each one.
    const Customer = stack.db.models.Customer.collection;
    const application = new mongoose.Types.ObjectId(app.application.id);
    for (let from = 0; from < customers; from += 5_000) {
      const n = Math.min(5_000, customers - from);
      await Customer.insertMany(
        Array.from({ length: n }, (_, i) => ({ application, sourceId: `flash-${from + i}` })),
        { ordered: false },
      );
      log(`  customers ${from + n}/${customers}`);
    }
    const order = benchOrder(5, 'flash');
    let next = 0;
    const redeemLoad = (code: string, couponId: string, amount: number) => ({
      connections: 64,
      auth: app.auth,
      amount,
      body: () => ({
        source_id: `flash-${next++ % customers}`,
        coupon_details: [{ coupon_id: couponId, coupon_code: code }],
        order: { ...order, order_id: randomUUID() },
      }),
    });
    // Warm-up on another coupon (BENCHREDEEM), not recorded.
    await measure('warm-up', `${url}/coupons/apply?type=redeem`, {
      connections: 64,
      auth: app.auth,
      amount: 3000,
      body: () => ({
        source_id: app.customers[Math.floor(Math.random() * 200)]!.sourceId,
        coupon_details: [{ coupon_id: app.redeemCoupon.id, coupon_code: 'BENCHREDEEM' }],
        order: { ...order, order_id: randomUUID() },
      }),
    });
    await stack.drain();

    const col = stack.db.connection.db!.collection('limit_counters');
    /** The bench database's data and index bytes (dbStats; null where the server does not say). */
    const databaseBytes = async () => {
      try {
        const s = await stack.db.connection.db!.command({ dbStats: 1 });
        return { data: Number(s.dataSize), index: Number(s.indexSize) };
      } catch {
        return null;
      }
    };
    const sizeOf = async (id: string) => {
      const doc = await col.findOne({ _id: id as never });
      return doc ? mongoose.mongo.BSON.calculateObjectSize(doc) : 0;
    };
    let maxCampaignSize = 0;
    const sampler = setInterval(
      () => void sizeOf(campaignCounterId(flash.id)).then((s) => (maxCampaignSize = Math.max(maxCampaignSize, s))),
      250,
    );
    const memoryBefore = await usedMemory(stack.redis);
    const storageBefore = await databaseBytes();
    const blocks: Result[] = [];
    /** Per block: ms of CPU per redemption (API + workers + Redis + database), and the machine's speed gauge. */
    const costs: { cpuMs: number; probeMs: number }[] = [];
    try {
      for (let b = 0; b < TOTAL / BLOCK; b++) {
        const probes: number[] = [];
        const prober = setInterval(() => probes.push(probeCpuMs()), 500);
        const result = await measure(`flash block ${b + 1}`, `${url}/coupons/apply?type=redeem`, redeemLoad('FLASH', flash.id, BLOCK));
        clearInterval(prober);
        blocks.push(result);
        costs.push({ cpuMs: result.cpuMs ?? NaN, probeMs: median(probes) });
      }
    } finally {
      clearInterval(sampler);
    }
    await stack.drain();
    const memoryAfter = await usedMemory(stack.redis);
    const storageAfter = await databaseBytes();
    const journal = stack.db.connection.db!.collection('redemptions');
    const completed = await journal.countDocuments({ campaign: new mongoose.Types.ObjectId(flash.id), state: 'completed' });
    const counted = (await col.findOne({ _id: campaignCounterId(flash.id) as never }))?.total;
    const campaignSize = await sizeOf(campaignCounterId(flash.id));
    const customerSize = await sizeOf(
      customerCounterId(flash.id, (await stack.services.repos.customers.resolve(app.application.id, 'flash-0'))!.id),
    );
    const ok = blocks.reduce((s, r) => s + r.requests - r.non2xx - r.errors, 0);

    log('sell-out run');
    /** CPU ms per request of a measurement: of `group`, or of all the stack's processes. */
    const perOp = (r: Result) => (group?: string) => (group ? (r.cpuBy?.[group] ?? NaN) : (r.cpuMs ?? NaN));
    const exhaustRun = await measure('sell-out', `${url}/coupons/apply?type=redeem`, redeemLoad('EXHAUST', exhaust.id, EXHAUST_ATTEMPTS));
    await stack.drain();
    const exhaustCompleted = await journal.countDocuments({ campaign: new mongoose.Types.ObjectId(exhaust.id), state: 'completed' });
    const exhaustCounted = (await col.findOne({ _id: campaignCounterId(exhaust.id) as never }))?.total;
    log('the stampede after the sell-out');
    const afterRun = await measure(
      'after the sell-out',
      `${url}/coupons/apply?type=redeem`,
      redeemLoad('EXHAUST', exhaust.id, AFTER_ATTEMPTS),
    );
    await stack.drain();
    const afterCounted = (await col.findOne({ _id: campaignCounterId(exhaust.id) as never }))?.total;
    const refusalCpu = perOp(afterRun);
    const redeemCpuMs = median(costs.map((c) => c.cpuMs));
    const groupCells = (cost: (g?: string) => number) =>
      ['api', 'workers', 'redis', ...(database ? ['database'] : [])].map((g) => cost(g).toFixed(2)).join(' | ');

    const first = blocks[0]!;
    const last = blocks.at(-1)!;
    return [
      '',
      `Flash sale: ${TOTAL} redemptions by distinct customers, 64 connections, 2 workers, ${stack.config.queuePartitions} partitions`,
      '',
      `| block | req/s | p50 ms | p99 ms | non-2xx | CPU ms per redemption (${database ? 'API, workers, Redis, database' : 'API, workers, Redis'}) | speed gauge ms |`,
      '|---|---|---|---|---|---|---|',
      ...blocks.map(
        (r, i) =>
          `| ${i + 1} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} | ${costs[i]!.cpuMs.toFixed(2)} | ${costs[i]!.probeMs.toFixed(1)} |`,
      ),
      '',
      `(speed gauge: CPU time of a fixed SHA-256 workload in the load generator, median per block; it rises when the machine runs slower. Last/first block: CPU per redemption ${(costs.at(-1)!.cpuMs / costs[0]!.cpuMs).toFixed(2)}x, gauge ${(costs.at(-1)!.probeMs / costs[0]!.probeMs).toFixed(2)}x.)`,
      '',
      '| figure | measured | target | |',
      '|---|---|---|---|',
      `| last block p50 / first block p50 | ${(last.p50 / Math.max(first.p50, 1)).toFixed(2)}x | <= 1.25x | ${last.p50 <= 1.25 * Math.max(first.p50, 1) ? 'met' : 'MISSED'} |`,
      `| campaign counter document, largest seen during the run | ${kb(maxCampaignSize)} | < 4 KB | ${maxCampaignSize < 4096 ? 'met' : 'MISSED'} |`,
      `| campaign counter document, after the run | ${kb(campaignSize)} | < 4 KB | ${campaignSize < 4096 ? 'met' : 'MISSED'} |`,
      `| a customer counter document | ${kb(customerSize)} | < 4 KB | ${customerSize < 4096 ? 'met' : 'MISSED'} |`,
      `| answered 200 / completed in the journal / counted | ${ok} / ${completed} / ${counted} | all ${TOTAL} | ${ok === TOTAL && completed === TOTAL && counted === TOTAL ? 'met' : 'MISSED'} |`,
      `| Redis memory after the run - before | ${kb(memoryAfter - memoryBefore)} (${(memoryAfter - memoryBefore) / TOTAL > 0 ? ((memoryAfter - memoryBefore) / TOTAL).toFixed(1) : '0'} B per job) | bounded | |`,
      storageBefore && storageAfter
        ? `| database growth per redemption (dbStats: data + indexes, the customers inserted before) | ${((storageAfter.data - storageBefore.data) / TOTAL).toFixed(0)} B + ${((storageAfter.index - storageBefore.index) / TOTAL).toFixed(0)} B | stated | |`
        : '| database growth per redemption | not reported by this server (dbStats) | stated | |',
      `| sell-out: ${EXHAUST_ATTEMPTS} customers at once, limit ${EXHAUST_LIMIT}: 200 / completed / counted | ${exhaustRun.requests - exhaustRun.non2xx - exhaustRun.errors} / ${exhaustCompleted} / ${exhaustCounted} | exactly ${EXHAUST_LIMIT} | ${exhaustCompleted === EXHAUST_LIMIT && exhaustCounted === EXHAUST_LIMIT && exhaustRun.requests - exhaustRun.non2xx - exhaustRun.errors === EXHAUST_LIMIT ? 'met' : 'MISSED'} |`,
      `| sell-out run | ${exhaustRun.rps.toFixed(0)} req/s, p50 ${exhaustRun.p50} ms, p99 ${exhaustRun.p99} ms | | |`,
      `| after the sell-out: ${AFTER_ATTEMPTS} more customers: refused / errors / counted | ${afterRun.non2xx} / ${afterRun.errors} / ${afterCounted} | all refused, ${EXHAUST_LIMIT} | ${afterRun.non2xx === AFTER_ATTEMPTS && afterRun.errors === 0 && afterCounted === EXHAUST_LIMIT ? 'met' : 'MISSED'} |`,
      `| after the sell-out: refusals | ${afterRun.rps.toFixed(0)} req/s, p50 ${afterRun.p50} ms, p99 ${afterRun.p99} ms (redemptions: p50 ${median(blocks.map((b) => b.p50))} ms) | answer without waiting behind redeems | |`,
      `| CPU ms per refusal after the sell-out / per redemption (median block) | ${refusalCpu().toFixed(2)} / ${redeemCpuMs.toFixed(2)} = ${(refusalCpu() / redeemCpuMs).toFixed(2)} | <= 0.33 | ${refusalCpu() <= redeemCpuMs / 3 ? 'met' : 'MISSED'} |`,
      '',
      `| CPU ms per operation | ${['API', 'workers', 'Redis', ...(database ? ['database'] : [])].join(' | ')} | all |`,
      `|---|${['api', 'workers', 'redis', ...(database ? ['database'] : [])].map(() => '---|').join('')}---|`,
      `| sell-out run (per attempt) | ${groupCells(perOp(exhaustRun))} | ${perOp(exhaustRun)().toFixed(2)} |`,
      `| refusal after the sell-out | ${groupCells(refusalCpu)} | ${refusalCpu().toFixed(2)} |`,
    ];
  } finally {
    await stack.stop();
  }
}
