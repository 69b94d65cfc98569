/**
 * `npm run bench -- replicas`: what a second replica costs per operation (the claim checked:
 * replicas add no cost), for the no-op job, redeem (cashback) and wallet credit. First one API and
 * one worker as fast as they answer (the throughput), then a share of it offered at a fixed rate —
 * so no topology is saturated and all do the same work — ROUNDS times interleaved, medians kept:
 *  - workers: 1 API with 1 worker, then with 2 (the second started and stopped each round);
 *  - APIs: 2 workers with 1 API, then with 2 (the connections split evenly).
 * The figure judged is the CPU per operation of every process together (APIs, workers, Redis, the
 * database), without the load generator: on a saturated two-core machine a second replica's
 * throughput tells how the cores were shared, its CPU per operation what it adds on any machine.
 */
import { freshQueueLoads, loadBenchData, queueLoads } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, stopChild, TABLE_HEAD, type Load, type Result } from './stack.js';

/** The offered rate, as a share of what one API and one worker answered as fast as they could (BENCH_PACED_SHARE, default 0.6). */
const PACED_SHARE = Number(process.env.BENCH_PACED_SHARE ?? 0.6);

export async function replicasBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data sets');
    const data = await loadBenchData(stack.services, log);
    log('starting two APIs and one worker');
    const [one, two] = [await stack.startApi(), await stack.startApi()];
    await stack.startWorker();
    // Each redeem and credit measurement on an application of its own (a fresh ledger: docs/benchmarks.md).
    const fresh = () => freshQueueLoads(stack.services);
    const paths = { noop: '/bench/noop-job', redeem: '/coupons/apply?type=redeem', credit: '/wallets/customer/x/transactions/loyalty' };
    const loadOf = async (op: keyof typeof paths): Promise<Load> => (op === 'noop' ? queueLoads(data).noop : (await fresh())[op]);
    const label = (op: keyof typeof paths) => (op === 'noop' ? 'no-op job' : op === 'redeem' ? 'redeem' : 'wallet credit');
    const results: Result[] = [];
    const lines: string[] = [];
    const line = (what: string, m1: Result, m2: Result) => {
      const ratio = (m2.cpuMs ?? NaN) / (m1.cpuMs ?? NaN);
      lines.push(
        `| ${what} | ${m2.cpuMs?.toFixed(2)} / ${m1.cpuMs?.toFixed(2)} ms = ${ratio.toFixed(2)}x | <= 1.05x | ${ratio <= 1.05 ? 'met' : 'MISSED'} |`,
      );
    };
    await measure('warm-up', `${one.url}/bench/noop-job`, queueLoads(data).noop);
    // BENCH_OPS=credit,redeem: only those operations (default: all three).
    const ops = (['noop', 'redeem', 'credit'] as const).filter(
      (op) => !process.env.BENCH_OPS || process.env.BENCH_OPS.split(',').includes(op),
    );
    for (const op of ops) {
      await stack.drain();
      const full = await measure(`${label(op)}, 1 API + 1 worker, as fast as answered`, `${one.url}${paths[op]}`, await loadOf(op));
      results.push(full);
      const rate = Math.max(10, Math.round(full.rps * PACED_SHARE));
      const of: Record<'w1' | 'w2' | 'a1' | 'a2', Result[]> = { w1: [], w2: [], a1: [], a2: [] };
      for (let r = 0; r < ROUNDS; r++) {
        const round = `, ${rate}/s offered (round ${r + 1}/${ROUNDS})`;
        const paced = async () => ({ ...(await loadOf(op)), rate });
        await stack.drain();
        of.w1.push(await measure(`${label(op)}, 1 API + 1 worker${round}`, `${one.url}${paths[op]}`, await paced()));
        const second = await stack.startWorker();
        await stack.drain();
        of.w2.push(await measure(`${label(op)}, 1 API + 2 workers${round}`, `${one.url}${paths[op]}`, await paced()));
        // 1 API + 2 workers again, right before 2 APIs: each pair is measured back to back (this
        // shared machine drifts by ±20 % between minutes), and the two measurements of the same
        // topology show that drift in the table.
        await stack.drain();
        of.a1.push(await measure(`${label(op)}, 1 API + 2 workers${round}`, `${one.url}${paths[op]}`, await paced()));
        await stack.drain();
        of.a2.push(
          await measure(`${label(op)}, 2 APIs + 2 workers${round}`, [`${one.url}${paths[op]}`, `${two.url}${paths[op]}`], await paced()),
        );
        await stack.drain();
        await stopChild(second);
      }
      const kept = (of: Result[], what: string) => medianOf(of, `${label(op)}, ${what}, ${rate}/s offered`);
      const [w1, w2, a1, a2] = [
        kept(of.w1, '1 API + 1 worker'),
        kept(of.w2, '1 API + 2 workers'),
        kept(of.a1, '1 API + 2 workers'),
        kept(of.a2, '2 APIs + 2 workers'),
      ];
      results.push(w1, w2, a1, a2);
      line(`${label(op)}: 2 workers / 1 worker (1 API) at ${rate}/s`, w1, w2);
      line(`${label(op)}: 2 APIs / 1 API (2 workers) at ${rate}/s`, a1, a2);
    }
    await stack.drain();
    return [
      '',
      ...TABLE_HEAD,
      ...results.map(row),
      '',
      '| CPU per operation, all processes, the same offered rate | measured | target | |',
      '|---|---|---|---|',
      ...lines,
    ];
  } finally {
    await stack.stop();
  }
}
