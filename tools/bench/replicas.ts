/**
 * `npm run bench -- replicas`: what a second API replica costs per operation (issue 26: replicas
 * add no cost). Two workers throughout; for the no-op job, redeem (cashback) and wallet credit:
 * first one API as fast as it answers (its throughput), then the same offered rate — a share of
 * that throughput, so neither topology is saturated and both do the same work — through one API
 * and through two (the connections split evenly), ROUNDS times interleaved, medians kept. The
 * figure judged is the CPU per operation of every process together (APIs, workers, Redis, the
 * database), without the load generator: at a saturated two-core machine a second replica's
 * throughput tells how the cores were shared, its CPU per operation what it adds on any machine.
 */
import { loadBenchData, loadRedeemApp, queueLoads } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, TABLE_HEAD, type Load, type Result } from './stack.js';

/** The offered rate, as a share of what one API answered as fast as it could. */
const PACED_SHARE = 0.6;

export async function replicasBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data sets');
    const data = await loadBenchData(stack.services, log);
    log('starting two APIs and two workers');
    const [one, two] = [await stack.startApi(), await stack.startApi()];
    await stack.startWorker();
    await stack.startWorker();
    // Each redeem and credit measurement on an application of its own (a fresh ledger: docs/benchmarks.md).
    const fresh = async () => queueLoads(await loadRedeemApp(stack.services, () => undefined));
    const paths = { noop: '/bench/noop-job', redeem: '/coupons/apply?type=redeem', credit: '/wallets/customer/x/transactions/loyalty' };
    const loadOf = async (op: keyof typeof paths): Promise<Load> => (op === 'noop' ? queueLoads(data).noop : (await fresh())[op]);
    const results: Result[] = [];
    const lines: string[] = [];
    await measure('warm-up', `${one.url}/bench/noop-job`, queueLoads(data).noop);
    for (const op of ['noop', 'redeem', 'credit'] as const) {
      await stack.drain();
      const full = await measure(`${op}, 1 API, as fast as answered`, `${one.url}${paths[op]}`, await loadOf(op));
      results.push(full);
      const rate = Math.max(10, Math.round(full.rps * PACED_SHARE));
      const of: Record<'one' | 'two', Result[]> = { one: [], two: [] };
      for (let r = 0; r < ROUNDS; r++) {
        const round = `, ${rate}/s offered (round ${r + 1}/${ROUNDS})`;
        await stack.drain();
        of.one.push(await measure(`${op}, 1 API${round}`, `${one.url}${paths[op]}`, { ...(await loadOf(op)), rate }));
        await stack.drain();
        of.two.push(
          await measure(`${op}, 2 APIs${round}`, [`${one.url}${paths[op]}`, `${two.url}${paths[op]}`], { ...(await loadOf(op)), rate }),
        );
      }
      const [m1, m2] = [medianOf(of.one, `${op}, 1 API, ${rate}/s offered`), medianOf(of.two, `${op}, 2 APIs, ${rate}/s offered`)];
      results.push(m1, m2);
      const ratio = (m2.cpuMs ?? NaN) / (m1.cpuMs ?? NaN);
      lines.push(
        `| ${op === 'noop' ? 'no-op job' : op === 'redeem' ? 'redeem' : 'wallet credit'}: 2 APIs / 1 API at ${rate}/s | ${m2.cpuMs?.toFixed(2)} / ${m1.cpuMs?.toFixed(2)} ms = ${ratio.toFixed(2)}x | <= 1.05x | ${ratio <= 1.05 ? 'met' : 'MISSED'} |`,
      );
    }
    await stack.drain();
    return [
      '',
      ...TABLE_HEAD,
      ...results.map(row),
      '',
      '| CPU per operation, all processes (2 workers) | measured | target | |',
      '|---|---|---|---|',
      ...lines,
    ];
  } finally {
    await stack.stop();
  }
}
