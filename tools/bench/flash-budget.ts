/**
 * `npm run bench -- flash-budget`: the flash sale with a money budget (docs/benchmarks.md, "Money
 * budgets"). Two coupons of 10% off with the same count limits (total, per customer 1, per day,
 * none reached); the second also has a budget (total, per day and per customer, never reached,
 * `cap`), so its redeems count their cents in `amt` and the period amounts too. Each is redeemed
 * FLASH_BUDGET_REDEMPTIONS times (default 100,000) by distinct customers at 64 connections with
 * 2 workers, in blocks (10,000, or a quarter of the run when smaller), the two coupons' blocks
 * interleaved (which goes first alternates), so both meet the same machine and the same data
 * growth. Reported: the budget's last-against-first block p50, its p50 and CPU per redeem of all
 * processes against the count-limited coupon's (medians of the blocks), and its exactness: every
 * 200 completed, the counter's `amt` = the journal's completed `budgetCents`.
 */
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { campaignCounterId } from '../../shared/data/limit-counter.repository.js';
import { createCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import { benchOrder, loadRedeemApp } from './dataset.js';
import { log, measure, median, startStack, type Result } from './stack.js';

const TOTAL = Number(process.env.FLASH_BUDGET_REDEMPTIONS ?? 100_000);
const BLOCK = Math.min(10_000, Math.ceil(TOTAL / 4));

export async function flashBudgetBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const app = await loadRedeemApp(stack.services, log);
    const order = benchOrder(5, 'flash-budget');
    // 10% of the order's selling subtotal, in currency units; the budget is ten times what the run spends.
    const discount = Math.round(order.selling_price_subtotal * 10) / 100;
    const limits = { total: 10 * TOTAL, per_customer: 1, per_day: 9 * TOTAL };
    const campaign = (code: string, extra: Record<string, unknown>) =>
      createCampaign(stack.services, app.application.id, {
        name: code,
        code,
        discount: { kind: 'discount', type: 'percentage', value: 10 },
        limits,
        ...extra,
      }) as Promise<{ id: string }>;
    const counted = await campaign('COUNTED', {});
    const budgeted = await campaign('BUDGETED', {
      budget: {
        total: Math.ceil(10 * TOTAL * discount),
        per_day: Math.ceil(9 * TOTAL * discount),
        per_customer: Math.ceil(10 * discount),
        when_exceeded: 'cap',
      },
    });

    const { url } = await stack.startApi();
    await stack.startWorker();
    await stack.startWorker();
    const database = stack.databaseCpu;
    // Inserted directly, as the flash mode does, once the processes have made their indexes.
    const Customer = stack.db.models.Customer.collection;
    const application = new mongoose.Types.ObjectId(app.application.id);
    for (let from = 0; from < TOTAL; from += 5_000) {
      const n = Math.min(5_000, TOTAL - from);
      await Customer.insertMany(
        Array.from({ length: n }, (_, i) => ({ application, sourceId: `fb-${from + i}` })),
        { ordered: false },
      );
      log(`  customers ${from + n}/${TOTAL}`);
    }
    const next = { COUNTED: 0, BUDGETED: 0 };
    const redeemLoad = (code: 'COUNTED' | 'BUDGETED', couponId: string, amount: number) => ({
      connections: 64,
      auth: app.auth,
      amount,
      body: () => ({
        source_id: `fb-${next[code]++ % TOTAL}`,
        coupon_details: [{ coupon_id: couponId, coupon_code: code }],
        order: { ...order, order_id: randomUUID() },
      }),
    });
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

    const blocks = { COUNTED: [] as Result[], BUDGETED: [] as Result[] };
    const started = Date.now();
    for (let b = 0; b < Math.ceil(TOTAL / BLOCK); b++) {
      const amount = Math.min(BLOCK, TOTAL - b * BLOCK);
      const order2 = b % 2 === 0 ? (['COUNTED', 'BUDGETED'] as const) : (['BUDGETED', 'COUNTED'] as const);
      for (const code of order2) {
        const id = code === 'COUNTED' ? counted.id : budgeted.id;
        blocks[code].push(
          await measure(`${code.toLowerCase()} block ${b + 1}`, `${url}/coupons/apply?type=redeem`, redeemLoad(code, id, amount)),
        );
      }
    }
    const minutes = (Date.now() - started) / 60_000;
    await stack.drain();

    const journal = stack.db.connection.db!.collection('redemptions');
    const counters = stack.db.connection.db!.collection('limit_counters');
    const completed = (id: string) => journal.countDocuments({ campaign: new mongoose.Types.ObjectId(id), state: 'completed' });
    const [journaled] = await journal
      .aggregate([
        { $match: { campaign: new mongoose.Types.ObjectId(budgeted.id), state: 'completed' } },
        { $group: { _id: null, cents: { $sum: '$budgetCents' } } },
      ])
      .toArray();
    const counter = await counters.findOne({ _id: campaignCounterId(budgeted.id) as never });
    const ok = (rs: Result[]) => rs.reduce((s, r) => s + r.requests - r.non2xx - r.errors, 0);
    const p50 = (rs: Result[]) => median(rs.map((r) => r.p50));
    const cpu = (rs: Result[]) => median(rs.map((r) => r.cpuMs ?? NaN));
    const groups = ['api', 'workers', 'redis', ...(database ? ['database'] : [])];
    const cpuBy = (rs: Result[], g: string) => median(rs.map((r) => r.cpuBy?.[g] ?? NaN));
    const B = blocks.BUDGETED;
    const C = blocks.COUNTED;
    const firstLast = B.at(-1)!.p50 / Math.max(B[0]!.p50, 1);
    const cpuRatio = cpu(B) / cpu(C);
    const budgetOk = ok(B) === TOTAL && (await completed(budgeted.id)) === TOTAL && counter?.total === TOTAL;
    const amtOk = counter?.amt === journaled?.cents && journaled?.cents === Math.round(TOTAL * discount * 100);
    return [
      '',
      `Flash sale with a money budget: ${TOTAL} redemptions of each coupon by distinct customers, blocks of ${BLOCK} interleaved, 64 connections, 2 workers, ${stack.config.queuePartitions} partitions (${minutes.toFixed(1)} min for the blocks)`,
      '',
      `| block | count-limited: req/s, p50, p99 ms, CPU ms | budget: req/s, p50, p99 ms, CPU ms | non-2xx (count / budget) |`,
      '|---|---|---|---|',
      ...B.map(
        (r, i) =>
          `| ${i + 1} | ${C[i]!.rps.toFixed(0)}, ${C[i]!.p50}, ${C[i]!.p99}, ${(C[i]!.cpuMs ?? NaN).toFixed(2)} | ${r.rps.toFixed(0)}, ${r.p50}, ${r.p99}, ${(r.cpuMs ?? NaN).toFixed(2)} | ${C[i]!.non2xx + C[i]!.errors} / ${r.non2xx + r.errors} |`,
      ),
      '',
      '| figure | measured | target | |',
      '|---|---|---|---|',
      `| budget: last block p50 / first block p50 | ${B.at(-1)!.p50} / ${B[0]!.p50} = ${firstLast.toFixed(2)}x | <= 1.25x | ${firstLast <= 1.25 ? 'met' : 'MISSED'} |`,
      `| p50, budget / count-limited (median block) | ${p50(B)} / ${p50(C)} ms | stated | |`,
      `| CPU ms per redeem of all processes, budget / count-limited (median block) | ${cpu(B).toFixed(2)} / ${cpu(C).toFixed(2)} = ${cpuRatio.toFixed(2)}x | <= 1.1x | ${cpuRatio <= 1.1 ? 'met' : 'MISSED'} |`,
      `| budget: answered 200 / completed in the journal / counted | ${ok(B)} / ${await completed(budgeted.id)} / ${counter?.total} | all ${TOTAL} | ${budgetOk ? 'met' : 'MISSED'} |`,
      `| budget: counter amt / journal's completed budgetCents / ${TOTAL} x ${discount.toFixed(2)} | ${counter?.amt} / ${journaled?.cents} / ${Math.round(TOTAL * discount * 100)} cents | equal | ${amtOk ? 'met' : 'MISSED'} |`,
      `| count-limited: answered 200 / completed | ${ok(C)} / ${await completed(counted.id)} | all ${TOTAL} | |`,
      '',
      `| CPU ms per redeem (median block) | ${groups.join(' | ')} | all |`,
      `|---|${groups.map(() => '---|').join('')}---|`,
      `| count-limited | ${groups.map((g) => cpuBy(C, g).toFixed(2)).join(' | ')} | ${cpu(C).toFixed(2)} |`,
      `| budget | ${groups.map((g) => cpuBy(B, g).toFixed(2)).join(' | ')} | ${cpu(B).toFixed(2)} |`,
    ];
  } finally {
    await stack.stop();
  }
}
