/**
 * `npm run bench -- partitions`: the concurrency ceiling. At most one job per partition queue
 * runs at a time across all workers, so QUEUE_PARTITIONS bounds how many operations run at once.
 * Measures the no-op job, redeem and wallet credit at 64 connections with 16 and 64 partitions,
 * each with 1 and 2 workers (a fresh queue prefix per partition count: the count is persisted).
 */
import { loadRedeemApp, queueLoads } from './dataset.js';
import { log, measure, row, startStack, stopChild, TABLE_HEAD, type Result } from './stack.js';

export async function partitionsBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const data = await loadRedeemApp(stack.services, log);
    const results: Result[] = [];
    for (const partitions of [16, 64]) {
      const env = { QUEUE_PARTITIONS: String(partitions), QUEUE_PREFIX: `${stack.config.queuePrefix}-p${partitions}` };
      const api = await stack.startApi(env);
      const workers = [await stack.startWorker(env)];
      await measure('warm-up', `${api.url}/bench/noop-job`, { connections: 16, auth: data.auth, body: () => ({}), amount: 2000 });
      for (const n of [1, 2]) {
        if (n === 2) workers.push(await stack.startWorker(env));
        const label = `${partitions} partitions, ${n} worker`;
        const drain = () => stack.drain(partitions, env.QUEUE_PREFIX);
        // Each phase on an application of its own (a fresh ledger: see endpoints.ts).
        for (const [what, path, load] of [
          ['no-op job', '/bench/noop-job', () => queueLoads(data).noop],
          ['redeem', '/coupons/apply?type=redeem', async () => queueLoads(await loadRedeemApp(stack.services, () => undefined)).redeem],
          [
            'wallet credit',
            '/wallets/customer/x/transactions/loyalty',
            async () => queueLoads(await loadRedeemApp(stack.services, () => undefined)).credit,
          ],
        ] as const) {
          await drain();
          results.push(await measure(`${what} (${label})`, `${api.url}${path}`, await load()));
        }
      }
      await Promise.all([...workers, api.child].map(stopChild));
    }
    return ['', ...TABLE_HEAD, ...results.map(row)];
  } finally {
    await stack.stop();
  }
}
