/**
 * `npm run bench -- partitions`: the concurrency ceiling. At most one job per partition queue
 * runs at a time across all workers, so QUEUE_PARTITIONS bounds how many operations run at once.
 * Measures the no-op job, redeem and wallet credit at 64 connections with 16 and 64 partitions,
 * each with 1 and 2 workers (a fresh queue prefix per partition count: the count is persisted),
 * and Redis's scripts and blocking pops per no-op job (from its command statistics: a second
 * worker's fetches that find a busy partition show there).
 */
import { freshQueueLoads, loadRedeemApp, queueLoads } from './dataset.js';
import { log, measure, medianOf, pct, redisCommandCalls, ROUNDS, row, startStack, stopChild, TABLE_HEAD, type Result } from './stack.js';

export async function partitionsBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const data = await loadRedeemApp(stack.services, log);
    const results: Result[] = [];
    const calls = () => redisCommandCalls(stack.redis);
    const perJob: string[] = [];
    for (const partitions of [16, 64]) {
      const env = { QUEUE_PARTITIONS: String(partitions), QUEUE_PREFIX: `${stack.config.queuePrefix}-p${partitions}` };
      const api = await stack.startApi(env);
      const workers = [await stack.startWorker(env)];
      await measure('warm-up', `${api.url}/bench/noop-job`, { connections: 16, auth: data.auth, body: () => ({}), amount: 2000 });
      for (const n of [1, 2]) {
        if (n === 2) workers.push(await stack.startWorker(env));
        const label = `${partitions} partitions, ${n} worker`;
        const drain = () => stack.drain(partitions, env.QUEUE_PREFIX);
        // Each phase ROUNDS times, interleaved, the median kept; redeem and credit each on an
        // application of their own (a fresh ledger: see endpoints.ts).
        const phases = [
          ['no-op job', '/bench/noop-job', () => queueLoads(data).noop],
          ['redeem', '/coupons/apply?type=redeem', async () => (await freshQueueLoads(stack.services)).redeem],
          ['wallet credit', '/wallets/customer/x/transactions/loyalty', async () => (await freshQueueLoads(stack.services)).credit],
        ] as const;
        const runs: Result[][] = phases.map(() => []);
        for (let r = 0; r < ROUNDS; r++) {
          for (const [i, [what, path, load]] of phases.entries()) {
            await drain();
            const before = i === 0 && r === 0 ? await calls() : undefined;
            runs[i]!.push(await measure(`${what} (${label}, round ${r + 1}/${ROUNDS})`, `${api.url}${path}`, await load()));
            if (before) {
              await drain();
              const after = await calls();
              const jobs = runs[i]![0]!.requests;
              const of = (c: string) => ((after.get(c) ?? 0) - (before.get(c) ?? 0)) / jobs;
              perJob.push(`| ${partitions} | ${n} | ${of('evalsha').toFixed(2)} | ${of('bzpopmin').toFixed(2)} |`);
            }
          }
        }
        phases.forEach(([what], i) => results.push(medianOf(runs[i]!, `${what} (${label})`)));
      }
      await Promise.all([...workers, api.child].map(stopChild));
    }
    // results: per partition count, per worker count: no-op, redeem, credit.
    const at = (p: number, n: number, k: number) => results[(p === 16 ? 0 : 6) + (n - 1) * 3 + k]!.rps;
    return [
      '',
      ...TABLE_HEAD,
      ...results.map(row),
      '',
      '| partitions | workers | redeem / no-op | credit / no-op | redeem vs 1 worker | credit vs 1 worker |',
      '|---|---|---|---|---|---|',
      ...[16, 64].flatMap((p) =>
        [1, 2].map(
          (n) =>
            `| ${p} | ${n} | ${pct(at(p, n, 1) / at(p, n, 0))} | ${pct(at(p, n, 2) / at(p, n, 0))} | ${pct(at(p, n, 1) / at(p, 1, 1))} | ${pct(at(p, n, 2) / at(p, 1, 2))} |`,
        ),
      ),
      '',
      'Redis per no-op job (first round; every process on this Redis counts):',
      '',
      '| partitions | workers | scripts (evalsha) | blocking pops (bzpopmin) |',
      '|---|---|---|---|',
      ...perJob,
    ];
  } finally {
    await stack.stop();
  }
}
