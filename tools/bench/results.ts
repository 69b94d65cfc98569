/**
 * `npm run bench -- results`: what campaign results cost (docs/results.md, docs/benchmarks.md).
 *  1. The results counters on a redeem (target ≤ 1.1× without): one API; a worker counting
 *     results and one that does not (RESULTS_COUNTERS=false), never at once — each round starts
 *     one, warms it up, offers redeems at a fixed rate (BENCH_PACED_SHARE of the throughput) and
 *     stops it; ROUNDS rounds interleaved, medians kept, and each round's pair.
 *  2. The results pages with 1,000,000 redemptions in the application (BENCH_RESULTS_REDEMPTIONS):
 *     100 campaigns' results counters and tallies over 30 days, as the worker leaves them
 *     (written directly: a read never reads the journal, whose size therefore does not matter),
 *     then each call the console makes, one at a time (a person's browser): p50 and p95 over
 *     BENCH_CONSOLE_VIEWS calls (default 30).
 */
import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { hourField, resultsCounterId } from '../../shared/data/limit-counter.repository.js';
import { tallyId } from '../../shared/data/campaign-tally.repository.js';
import { hourKey } from '../../shared/domain/periods.js';
import { createApplicationFromAdmin } from '../../shared/usecases/admin/applications.usecase.js';
import { createCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import { addDays } from '../../shared/usecases/admin/results.usecase.js';
import { freshQueueLoads } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, stopChild, TABLE_HEAD, type Result } from './stack.js';

const PACED_SHARE = Number(process.env.BENCH_PACED_SHARE ?? 0.6);
const REDEMPTIONS = Number(process.env.BENCH_RESULTS_REDEMPTIONS ?? 1_000_000);
const VIEWS = Number(process.env.BENCH_CONSOLE_VIEWS ?? 30);
const CAMPAIGNS = 100;
const DAYS = 30;
const REDEEM = '/coupons/apply?type=redeem';

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

export async function resultsBench(): Promise<string[]> {
  return [...(await redeemCost()), ...(await pages())];
}

/** Phase 1: CPU per redeem of all processes with and without the results counters, at the same offered rate. */
async function redeemCost(): Promise<string[]> {
  const stack = await startStack();
  try {
    const fresh = async () => (await freshQueueLoads(stack.services)).redeem;
    const { url } = await stack.startApi();
    /** A worker of one kind for one measurement: started, warmed up, measured, stopped. */
    const withWorker = async <T>(counting: boolean, run: () => Promise<T>): Promise<T> => {
      const child = await stack.startWorker({ RESULTS_COUNTERS: String(counting) });
      try {
        await measure('warm-up', `${url}${REDEEM}`, { ...(await fresh()), amount: 1000 });
        await stack.drain();
        return await run();
      } finally {
        await stack.drain();
        await stopChild(child);
      }
    };
    log('redeem as fast as answered, results counted');
    const full = await withWorker(true, async () => measure('redeem, as fast as answered', `${url}${REDEEM}`, await fresh()));
    const rate = Math.max(10, Math.round(full.rps * PACED_SHARE));
    const of: Record<'without' | 'with', Result[]> = { without: [], with: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const round = `, ${rate}/s offered (round ${r + 1}/${ROUNDS})`;
      of.without.push(
        await withWorker(false, async () =>
          measure(`redeem, results not counted${round}`, `${url}${REDEEM}`, { ...(await fresh()), rate }),
        ),
      );
      of.with.push(
        await withWorker(true, async () => measure(`redeem, results counted${round}`, `${url}${REDEEM}`, { ...(await fresh()), rate })),
      );
    }
    const without = medianOf(of.without, `redeem, results not counted, ${rate}/s offered`);
    const counted = medianOf(of.with, `redeem, results counted, ${rate}/s offered`);
    const ratio = (counted.cpuMs ?? NaN) / (without.cpuMs ?? NaN);
    const pairs = of.without.map((w, i) => (of.with[i]!.cpuMs ?? NaN) / (w.cpuMs ?? NaN)).sort((a, b) => a - b);
    const pairMedian = pairs[Math.floor((pairs.length - 1) / 2)]!;
    const groups = Object.keys(counted.cpuBy ?? {});
    const added = groups.map((g) => `${g} ${(counted.cpuBy![g]! - (without.cpuBy?.[g] ?? 0)).toFixed(3)}`).join(', ');
    return [
      '',
      '### The results counters on a redeem',
      '',
      ...TABLE_HEAD,
      ...[full, without, counted].map(row),
      '',
      '| CPU per redeem, all processes, the same offered rate | measured | target | |',
      '|---|---|---|---|',
      `| results counted / not counted, at ${rate}/s | ${counted.cpuMs?.toFixed(2)} / ${without.cpuMs?.toFixed(2)} ms = ${ratio.toFixed(2)}x | <= 1.1x | ${ratio <= 1.1 ? 'met' : 'MISSED'} |`,
      `| the same, each round's pair (back to back): ${pairs.map((x) => `${x.toFixed(2)}x`).join(', ')}; median | ${pairMedian.toFixed(2)}x | <= 1.1x | ${pairMedian <= 1.1 ? 'met' : 'MISSED'} |`,
      `| added per redeem, by process: ms | ${added} | | |`,
    ];
  } finally {
    await stack.stop();
  }
}

/** Phase 2: the results pages' calls with REDEMPTIONS redemptions in the application. */
async function pages(): Promise<string[]> {
  const adminToken = randomBytes(24).toString('hex');
  const stack = await startStack({ ADMIN_TOKEN: adminToken });
  try {
    const { services } = stack;
    const app = (await createApplicationFromAdmin(services, { name: 'Results bench', timezone: 'Asia/Kolkata' })) as { id: string };
    const campaigns: string[] = [];
    for (let i = 0; i < CAMPAIGNS; i++)
      campaigns.push(
        (
          (await createCampaign(services, app.id, {
            name: `Campaign ${i}`,
            code: `R${i}`,
            limits: { total: 10_000_000, per_day: 1_000_000 },
            discount: { kind: 'discount', type: 'flat', value: 5 },
          })) as { id: string }
        ).id,
      );
    // Every hour of the last 30 days of every campaign, the redemptions spread evenly: one results
    // counter and one tally document per campaign and day, each hour's figures inside.
    const today = hourKey(new Date(), 'Asia/Kolkata').slice(0, 10);
    const days = Array.from({ length: DAYS }, (_, i) => addDays(today, i - (DAYS - 1)));
    const per = Math.ceil(REDEMPTIONS / (CAMPAIGNS * days.length * 24));
    const all = per * CAMPAIGNS * days.length * 24;
    log(`writing ${CAMPAIGNS * days.length} results counters and tallies (${per} redemptions an hour, ${all} in all)…`);
    const started = Date.now();
    const application = new Types.ObjectId(app.id);
    const { LimitCounter, CampaignTally } = services.db.models;
    const rv = Math.floor(per / 20);
    const hourly = <T>(f: () => T) => Object.fromEntries(Array.from({ length: 24 }, (_, h) => [hourField(h), f()]));
    for (const c of campaigns) {
      const campaign = new Types.ObjectId(c);
      await LimitCounter.collection.insertMany(
        days.map((d) => ({
          _id: resultsCounterId(c, d),
          application,
          campaign,
          kind: 'results',
          total: per * 24,
          rv: rv * 24,
          disc: per * 24 * 500,
          bsk: per * 24 * 100_000,
          ...hourly(() => ({ n: per, rv, d: per * 500, c: 0, b: per * 100_000, a: 0 })),
        })) as never[],
        { ordered: false },
      );
      const ref = { total_limit: 1, min_order_value: 2 };
      await CampaignTally.collection.insertMany(
        days.map((d) => ({
          _id: tallyId(c, d),
          application,
          campaign,
          nc: Math.floor(per / 2) * 24,
          ref: { total_limit: 24, min_order_value: 48 },
          ...hourly(() => ({ nc: Math.floor(per / 2), ref })),
        })) as never[],
        { ordered: false },
      );
    }
    log(`  data in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const { url } = await stack.startApi({ ADMIN_TOKEN: adminToken });
    const headers = { authorization: `Bearer ${adminToken}` };
    const base = `/applications/${app.id}`;
    const calls: [string, string][] = [
      ['campaigns list summary: the application, 30 days by day', `${base}/results`],
      ['a campaign, 30 days by day', `${base}/campaigns/${campaigns[7]}/results`],
      ['a campaign, today by hour', `${base}/campaigns/${campaigns[7]}/results?bucket=hour`],
      ['a campaign, 31 days by hour', `${base}/campaigns/${campaigns[7]}/results?bucket=hour&from=${addDays(today, -30)}`],
      ['a campaign, 30 days as CSV', `${base}/campaigns/${campaigns[7]}/results?format=csv`],
    ];
    const out = ['', `### The results pages with ${all.toLocaleString('en')} redemptions`, ''];
    out.push(`${CAMPAIGNS} campaigns, ${days.length} days of 24 hours each; ${VIEWS} calls each, one at a time`, '');
    out.push('| call | p50 ms | p95 ms | answer bytes |', '|---|---|---|---|');
    for (const [name, path] of calls) {
      const ms: number[] = [];
      let bytes = 0;
      for (let i = 0; i < VIEWS; i++) {
        const t = performance.now();
        const res = await fetch(`${url}/admin${path}`, { headers });
        const text = await res.text();
        if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
        ms.push(performance.now() - t);
        bytes = text.length;
      }
      log(`  ${name}: p50 ${quantile(ms, 0.5).toFixed(1)} ms, p95 ${quantile(ms, 0.95).toFixed(1)} ms`);
      out.push(`| ${name} | ${quantile(ms, 0.5).toFixed(1)} | ${quantile(ms, 0.95).toFixed(1)} | ${bytes} |`);
    }
    return out;
  } finally {
    await stack.stop();
  }
}
