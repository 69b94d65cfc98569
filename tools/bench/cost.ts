/**
 * `npm run bench -- cost` (docs/benchmarks.md "Cost per operation, second round"): a cashback
 * redeem and a wallet credit against the same run's no-op job — CPU per operation of all processes
 * at 64 connections as multiples of the no-op job's, and p50 / p99 at one connection — ROUNDS
 * rounds interleaved, medians kept; each figure printed beside the one measured before this
 * round's changes (`BEFORE`, the same mode on the commit it names) and the target.
 */
import { freshQueueLoads } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, TABLE_HEAD, type Load, type Result } from './stack.js';

/**
 * This mode on commit 38dfbdb, before issue 45's second round (2026-12-03 16:39-17:06, embedded
 * defaults, this kind of 2-core machine, nothing else running): the median of three runs' figures
 * (3, 2 and 2 rounds; redeem 4.56-5.13×, credit 2.41-3.06×). docs/benchmarks.md has every run.
 */
const BEFORE = {
  redeemX: 4.93,
  creditX: 2.67,
  c1: { redeem: { p50: 14, p99: 47 }, credit: { p50: 8, p99: 40 } },
};

const TARGET = { redeemX: 2.2, creditX: 1.6 };

export async function costBench(): Promise<string[]> {
  const stack = await startStack({});
  try {
    log('starting API and one worker');
    const { url } = await stack.startApi();
    await stack.startWorker();
    const runs: Record<string, Result[]> = {};
    const one = async (key: string, name: string, path: string, load: Load) => {
      await stack.drain();
      (runs[key] ??= []).push(await measure(name, `${url}${path}`, load));
    };
    const warm = await freshQueueLoads(stack.services);
    await measure('warm-up', `${url}/bench/noop-job`, { ...warm.noop, connections: 16 });
    for (let r = 0; r < ROUNDS; r++) {
      const round = ` (round ${r + 1}/${ROUNDS})`;
      // A fresh application per round: the test database's unique checks grow with a ledger.
      const loads = await freshQueueLoads(stack.services);
      const at1 = (l: Load): Load => ({ ...l, connections: 1 });
      await one('noop', `no-op job @64${round}`, '/bench/noop-job', loads.noop);
      await one('redeem', `redeem (cashback) @64${round}`, '/coupons/apply?type=redeem', loads.redeem);
      await one('credit', `wallet credit @64${round}`, '/wallets/customer/x/transactions/loyalty', loads.credit);
      await one('noop1', `no-op job @1${round}`, '/bench/noop-job', at1(loads.noop));
      await one('redeem1', `redeem (cashback) @1${round}`, '/coupons/apply?type=redeem', at1(loads.redeem));
      await one('credit1', `wallet credit @1${round}`, '/wallets/customer/x/transactions/loyalty', at1(loads.credit));
    }
    const m = Object.fromEntries(Object.entries(runs).map(([k, rs]) => [k, medianOf(rs, rs[0]!.name.replace(/ \(round.*$/, ''))]));
    /** The median over rounds of each round's CPU per operation as a multiple of that round's no-op job. */
    const times = (k: string) => {
      const xs = runs[k]!.map((r, i) => (r.cpuMs ?? NaN) / (runs.noop![i]!.cpuMs ?? NaN)).sort((a, b) => a - b);
      return xs[Math.floor((xs.length - 1) / 2)]!;
    };
    const beside = (now: number, before: number, digits = 2, unit = '') =>
      `${now.toFixed(digits)}${unit} | ${before.toFixed(digits)}${unit}`;
    const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
    const redeemX = times('redeem');
    const creditX = times('credit');
    const lat = (k: string) => m[k]!;
    return [
      '',
      ...TABLE_HEAD,
      ...Object.values(m).map(row),
      '',
      '| figure | now | before (38dfbdb) | target | |',
      '|---|---|---|---|---|',
      `| redeem (cashback), CPU per operation / the no-op job's @64 | ${beside(redeemX, BEFORE.redeemX, 2, '×')} | ≤ ${TARGET.redeemX}× | ${met(redeemX <= TARGET.redeemX)} |`,
      `| wallet credit, CPU per operation / the no-op job's @64 | ${beside(creditX, BEFORE.creditX, 2, '×')} | ≤ ${TARGET.creditX}× | ${met(creditX <= TARGET.creditX)} |`,
      `| redeem p50 @1 | ${beside(lat('redeem1').p50, BEFORE.c1.redeem.p50, 0, ' ms')} | no worse | |`,
      `| redeem p99 @1 | ${beside(lat('redeem1').p99, BEFORE.c1.redeem.p99, 0, ' ms')} | no worse | |`,
      `| wallet credit p50 @1 | ${beside(lat('credit1').p50, BEFORE.c1.credit.p50, 0, ' ms')} | no worse | |`,
      `| wallet credit p99 @1 | ${beside(lat('credit1').p99, BEFORE.c1.credit.p99, 0, ' ms')} | no worse | |`,
    ];
  } finally {
    await stack.stop();
  }
}
