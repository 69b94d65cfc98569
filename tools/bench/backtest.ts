/**
 * `npm run bench -- backtest`: what recorded carts and backtests cost (docs/results.md, docs/benchmarks.md).
 *  1. Recording on a validate: one API and one worker; validates of `BENCHREDEEM` offered at a
 *     fixed rate (BENCH_PACED_SHARE of the throughput) to an application that records its carts
 *     and to one that does not — ROUNDS times interleaved, medians kept: CPU per validate of all
 *     processes (the database's included: the batched inserts).
 *  2. A backtest over BENCH_BACKTEST_CARTS recorded carts (default 1,000,000: nine validates for
 *     one redeem, 100,000 customers, over 7 days), written directly as the recorder writes them,
 *     then run by the same code a worker runs (shared/usecases/backtest-run.ts) in this process:
 *     carts per second, this process's CPU per cart and its peak memory (RSS and heap), sampled.
 * BENCH_BACKTEST_PHASES=recording or =replay runs one of them.
 */
import { randomUUID } from 'node:crypto';
import { createApplicationFromAdmin } from '../../shared/usecases/admin/applications.usecase.js';
import { createCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import { askBacktest } from '../../shared/usecases/admin/backtests.usecase.js';
import { runBacktest } from '../../shared/usecases/backtest-run.js';
import type { CartToRecord } from '../../shared/data/recorded-cart.repository.js';
import { benchOrder, loadRedeemApp } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, TABLE_HEAD, type Result } from './stack.js';

const PACED_SHARE = Number(process.env.BENCH_PACED_SHARE ?? 0.6);
const CARTS = Number(process.env.BENCH_BACKTEST_CARTS ?? 1_000_000);
const CUSTOMERS = 100_000;
const DAYS = 7;
const VALIDATE = '/coupons/validate';

/** `BENCH_BACKTEST_PHASES`: `recording`, `replay`, or both (the default). */
const PHASES = (process.env.BENCH_BACKTEST_PHASES ?? 'recording,replay').split(',');

export async function backtestBench(): Promise<string[]> {
  return [...(PHASES.includes('recording') ? await recordingCost() : []), ...(PHASES.includes('replay') ? await replay() : [])];
}

/** Phase 1: CPU per validate with and without recording, at the same offered rate. */
async function recordingCost(): Promise<string[]> {
  const stack = await startStack();
  try {
    /** Validate loads on an application of its own, recording its carts or not. */
    const fresh = async (recording: boolean) => {
      const app = await loadRedeemApp(stack.services, () => undefined);
      if (recording)
        await stack.services.repos.applications.update(app.application.id, { cartRecording: { enabled: true, retentionDays: 30 } });
      const order = benchOrder(5, 'bench');
      const customers = app.customers;
      return {
        connections: 64,
        auth: app.auth,
        body: () => ({
          source_id: customers[Math.floor(Math.random() * customers.length)]!.sourceId,
          coupon_details: [{ coupon_code: 'BENCHREDEEM' }],
          order: { ...order, order_id: randomUUID() },
        }),
      };
    };
    const { url } = await stack.startApi();
    await stack.startWorker();
    await measure('warm-up', `${url}${VALIDATE}`, { ...(await fresh(true)), amount: 2000 });
    const full = await measure('validate, recorded, as fast as answered', `${url}${VALIDATE}`, await fresh(true));
    const rate = Math.max(10, Math.round(full.rps * PACED_SHARE));
    const of: Record<'without' | 'with', Result[]> = { without: [], with: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const round = `, ${rate}/s offered (round ${r + 1}/${ROUNDS})`;
      of.without.push(await measure(`validate, not recorded${round}`, `${url}${VALIDATE}`, { ...(await fresh(false)), rate }));
      of.with.push(await measure(`validate, recorded${round}`, `${url}${VALIDATE}`, { ...(await fresh(true)), rate }));
    }
    const without = medianOf(of.without, `validate, not recorded, ${rate}/s offered`);
    const recorded = medianOf(of.with, `validate, recorded, ${rate}/s offered`);
    const ratio = (recorded.cpuMs ?? NaN) / (without.cpuMs ?? NaN);
    const pairs = of.without.map((w, i) => ((of.with[i]!.cpuMs ?? NaN) / (w.cpuMs ?? NaN)).toFixed(2)).join(', ');
    const groups = Object.keys(recorded.cpuBy ?? {});
    const added = groups.map((g) => `${g} ${(recorded.cpuBy![g]! - (without.cpuBy?.[g] ?? 0)).toFixed(3)}`).join(', ');
    return [
      '',
      '### Recording carts on a validate',
      '',
      ...TABLE_HEAD,
      row(full),
      ...of.without.map(row),
      ...of.with.map(row),
      row(without),
      row(recorded),
      '',
      `- CPU per validate, recorded / not recorded (medians): ${ratio.toFixed(2)}× — each round's pair: ${pairs}`,
      `- added per validate, ms of CPU by process group: ${added}`,
    ];
  } finally {
    await stack.stop();
  }
}

/** Phase 2: a backtest over CARTS recorded carts. */
async function replay(): Promise<string[]> {
  const stack = await startStack();
  const { services } = stack;
  try {
    const created = await createApplicationFromAdmin(services, { name: 'backtest bench', timezone: 'Asia/Kolkata', currency: 'INR' });
    const appId = created.id;
    const start = Date.now() - DAYS * 86_400_000;
    const campaign = await createCampaign(services, appId, {
      name: 'Flash',
      code: 'FLASH',
      // Live over the whole week the carts span.
      valid_from: new Date(start).toISOString(),
      discount: { kind: 'discount', type: 'percentage', value: 10 },
      limits: { total: Math.floor(CARTS / 20), per_customer: 3 },
      cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 500 }],
    });
    // In batches of 10,000 (the database takes at most 25,000 writes in one command).
    const customers = [];
    for (let i = 0; i < CUSTOMERS; i += 10_000)
      customers.push(
        ...(await services.repos.customers.upsertMany(
          appId,
          Array.from({ length: 10_000 }, (_, j) => ({ sourceId: `bt-${i + j}` })),
        )),
      );
    const step = (DAYS * 86_400_000) / CARTS;
    const orders = [1, 3, 5].map((n) => benchOrder(n, 'x'));
    log(`writing ${CARTS} recorded carts`);
    const written = Date.now();
    const BATCH = 10_000;
    for (let i = 0; i < CARTS; i += BATCH) {
      const rows: CartToRecord[] = [];
      for (let j = i; j < Math.min(CARTS, i + BATCH); j++) {
        const order = orders[j % 3]!;
        const redeem = j % 10 === 9;
        const at = new Date(start + j * step);
        rows.push({
          id: `${redeem ? 'A' : 'V'}${j.toString(36).padStart(8, '0')}`,
          applicationId: appId,
          at,
          kind: redeem ? 'r' : 'v',
          customerId: customers[j % CUSTOMERS]!.id,
          order: { ...order, order_id: `o-${j}` },
          codes: ['FLASH'],
          ...(redeem ? { orderId: `o-${j}` } : {}),
          outcomes: [{ cp: String(campaign.id), ok: true, d: 100, cb: 0, b: 1000 }],
          expiresAt: new Date(at.getTime() + 30 * 86_400_000),
        });
      }
      await services.repos.recordedCarts.append(rows);
      if ((i / BATCH) % 10 === 9) log(`  ${i + BATCH} carts`);
    }
    const writeSeconds = (Date.now() - written) / 1000;
    const asked = await askBacktest({ ...services, backtests: { add: async () => undefined } as never }, appId, {
      campaign_id: campaign.id,
      changes: { limits: { total: Math.floor(CARTS / 40) } },
      from: new Date(start).toISOString().slice(0, 10),
    });
    // Peak memory, sampled while it runs.
    let rss = 0;
    let heap = 0;
    const sample = () => {
      const m = process.memoryUsage();
      rss = Math.max(rss, m.rss);
      heap = Math.max(heap, m.heapUsed);
    };
    sample();
    const baseRss = rss;
    const baseHeap = heap;
    const timer = setInterval(sample, 100);
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    await runBacktest(services, String(asked.id));
    const seconds = (Date.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(timer);
    sample();
    const done = await services.repos.backtests.byId(String(asked.id));
    const figures = done!.result as { replayed: { orders: number; checks: number }; backtest: { orders: number } };
    const mb = (b: number) => (b / 1_048_576).toFixed(0);
    log(`backtest: ${done!.done} carts in ${seconds.toFixed(1)} s`);
    return [
      '',
      `### A backtest over ${CARTS.toLocaleString('en-US')} recorded carts`,
      '',
      `- ${CARTS.toLocaleString('en-US')} carts (${figures.replayed.checks} validates, ${figures.replayed.orders} redeems; ${CUSTOMERS.toLocaleString('en-US')} customers; ${DAYS} days) written in ${writeSeconds.toFixed(0)} s`,
      `- replayed in ${seconds.toFixed(1)} s: **${Math.round(done!.done / seconds).toLocaleString('en-US')} carts/s**; the backtest's own CPU ${(((cpu.user + cpu.system) / 1000 / done!.done) * 1000).toFixed(1)} µs per cart (the database's reads not included)`,
      `- peak memory of the process running it: RSS ${mb(rss)} MB (${mb(rss - baseRss)} MB above its start), heap ${mb(heap)} MB (${mb(heap - baseHeap)} MB above)`,
      `- figures: ${figures.backtest.orders} orders would have been redeemed of ${figures.replayed.orders}`,
    ];
  } finally {
    await stack.stop();
  }
}
