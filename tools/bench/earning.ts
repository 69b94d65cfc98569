/**
 * `npm run bench -- earning`: what an order reported completed costs against a plain wallet credit
 * (issue 42's target: ≤ 1.3× the credit's CPU per operation of all processes; docs/benchmarks.md
 * "Earning on a reported order"). One API and one worker. Each phase on an application of its own
 * (loadRedeemApp: 200 customers, the wallet `loyalty`, here with one earning rule — 1 point per
 * 10.00 of the selling subtotal): a wallet credit as fast as answered gives the throughput, then a
 * share of it (BENCH_PACED_SHARE, default 0.6) is offered at a fixed rate as credits and as order
 * reports of a 5-item order — ROUNDS times interleaved, medians kept, and each round's pair's ratio.
 * At the same offered rate both share a turn of the event loop with as many operations.
 */
import { randomUUID } from 'node:crypto';
import type { Services } from '../../shared/services.js';
import { validateInput } from '../../shared/usecases/admin/admin-input.js';
import { earningRulesSchema, toEarningRules } from '../../shared/usecases/admin/earning-rules.js';
import { benchOrder, loadRedeemApp } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, TABLE_HEAD, type Load, type Result } from './stack.js';

const PACED_SHARE = Number(process.env.BENCH_PACED_SHARE ?? 0.6);

/** An application with the earning rule (capped per month when `capped`); its credit and order-report loads for random customers. */
async function freshLoads(services: Services, capped = false): Promise<{ credit: Load; report: Load }> {
  const app = await loadRedeemApp(services, () => undefined);
  const wallet = await services.repos.wallets.findByWalletId(app.application.id, 'loyalty');
  await services.repos.wallets.update(app.application.id, wallet!.id, {
    // Through the admin format's own check and conversion: 1 point per 10.00 of the selling subtotal.
    // Capped: a cap no order reaches, so every report still earns and moves the customer's counter too.
    earningRules: toEarningRules(
      validateInput(earningRulesSchema, [
        { name: 'Base points', points: 1, per: 10, ...(capped ? { max_per_period: { points: 1e9, period: 'month' } } : {}) },
      ]),
    ),
  });
  await services.repos.applications.bumpConfigVersion(app.application.id);
  const order = benchOrder(5, 'earning');
  const customer = () => app.customers[Math.floor(Math.random() * app.customers.length)]!.sourceId;
  return {
    credit: {
      connections: 64,
      auth: app.auth,
      method: 'PUT',
      body: () => ({ type: 'credit', points: 1 }),
      path: () => `/wallets/customer/${customer()}/transactions/loyalty`,
    },
    report: {
      connections: 64,
      auth: app.auth,
      body: () => ({ order: { ...order, order_id: randomUUID(), status: 'completed' } }),
      path: () => `/wallets/customer/${customer()}/orders/loyalty`,
    },
  };
}

export async function earningBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('starting one API and one worker');
    const { url } = await stack.startApi();
    await stack.startWorker();
    const warm = await measure('warm-up', url, (await freshLoads(stack.services)).report);
    await stack.drain();
    const full = await measure('wallet credit, as fast as answered', url, (await freshLoads(stack.services)).credit);
    const rate = Math.max(10, Math.round(full.rps * PACED_SHARE));
    const of: Record<'credit' | 'report' | 'capped', Result[]> = { credit: [], report: [], capped: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const round = `, ${rate}/s offered (round ${r + 1}/${ROUNDS})`;
      await stack.drain();
      of.credit.push(await measure(`wallet credit${round}`, url, { ...(await freshLoads(stack.services)).credit, rate }));
      await stack.drain();
      of.report.push(
        await measure(`order reported completed, earning${round}`, url, { ...(await freshLoads(stack.services)).report, rate }),
      );
      await stack.drain();
      of.capped.push(
        await measure(`order reported completed, earning under a monthly cap${round}`, url, {
          ...(await freshLoads(stack.services, true)).report,
          rate,
        }),
      );
    }
    await stack.drain();
    const credit = medianOf(of.credit, `wallet credit, ${rate}/s offered`);
    const report = medianOf(of.report, `order reported completed, earning, ${rate}/s offered`);
    const capped = medianOf(of.capped, `order reported completed, earning under a monthly cap, ${rate}/s offered`);
    const ratio = (report.cpuMs ?? NaN) / (credit.cpuMs ?? NaN);
    const cappedRatio = (capped.cpuMs ?? NaN) / (credit.cpuMs ?? NaN);
    const pairs = of.credit.map((c, i) => (of.report[i]!.cpuMs ?? NaN) / (c.cpuMs ?? NaN)).sort((a, b) => a - b);
    const pairMedian = pairs[Math.floor((pairs.length - 1) / 2)]!;
    // Every report answered 200 earned: one `order` entry each (the warm-up's reports too), and at
    // most one more per connection and measurement — the requests in flight when a load stopped,
    // applied but not counted by the load generator.
    const reportRuns = [warm, ...of.report, ...of.capped];
    const answered = reportRuns.reduce((n, r) => n + r.requests - r.non2xx - r.errors, 0);
    const inFlightAtStops = 64 * reportRuns.length;
    const earnedEntries = await stack.db.connection.db!.collection('wallet_transactions').countDocuments({ origin: 'order' });
    const groups = Object.keys(report.cpuBy ?? {});
    const by = (r: Result) => groups.map((g) => `${g} ${(r.cpuBy?.[g] ?? NaN).toFixed(2)}`).join(', ');
    return [
      '',
      ...TABLE_HEAD,
      ...[full, credit, report, capped].map(row),
      '',
      '| CPU per operation, all processes, the same offered rate | measured | target | |',
      '|---|---|---|---|',
      `| order reported completed (earning) / wallet credit, at ${rate}/s | ${report.cpuMs?.toFixed(2)} / ${credit.cpuMs?.toFixed(2)} ms = ${ratio.toFixed(2)}x | <= 1.3x | ${ratio <= 1.3 ? 'met' : 'MISSED'} |`,
      `| the same, each round's pair (back to back): ${pairs.map((x) => `${x.toFixed(2)}x`).join(', ')}; median | ${pairMedian.toFixed(2)}x | <= 1.3x | ${pairMedian <= 1.3 ? 'met' : 'MISSED'} |`,
      `| the same under a monthly cap (the customer's counter moved with each earning) / wallet credit | ${capped.cpuMs?.toFixed(2)} / ${credit.cpuMs?.toFixed(2)} ms = ${cappedRatio.toFixed(2)}x | <= 1.3x | ${cappedRatio <= 1.3 ? 'met' : 'MISSED'} |`,
      `| order reports answered 200 / ledger entries of origin order | ${answered} / ${earnedEntries} | answered ≤ entries ≤ answered + ${inFlightAtStops} in flight at the loads' stops | ${answered <= earnedEntries && earnedEntries <= answered + inFlightAtStops ? 'met' : 'MISSED'} |`,
      `| by process, ms: credit | ${by(credit)} | | |`,
      `| by process, ms: order report | ${by(report)} | | |`,
      `| by process, ms: order report under a cap | ${by(capped)} | | |`,
    ];
  } finally {
    await stack.stop();
  }
}
