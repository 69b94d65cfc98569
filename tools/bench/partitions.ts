/**
 * `npm run bench -- partitions`: the concurrency ceiling. At most one job per partition queue
 * runs at a time across all workers, so QUEUE_PARTITIONS bounds how many operations run at once.
 * Measures the no-op job, redeem and wallet credit at 64 connections with 16 and 64 partitions,
 * each with 1 and 2 workers (a fresh queue prefix per partition count: the count is persisted).
 */
import { randomUUID } from 'node:crypto';
import { benchOrder, loadRedeemApp } from './dataset.js';
import { log, measure, row, startStack, stopChild, TABLE_HEAD, type Result } from './stack.js';

export async function partitionsBench(): Promise<string[]> {
  const stack = await startStack();
  try {
    log('loading data set');
    const data = await loadRedeemApp(stack.services, log);
    const order = benchOrder(5, 'bench');
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
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
        await drain();
        results.push(
          await measure(`no-op job (${label})`, `${api.url}/bench/noop-job`, { connections: 64, auth: data.auth, body: () => ({}) }),
        );
        await drain();
        results.push(
          await measure(`redeem (${label})`, `${api.url}/coupons/apply?type=redeem`, {
            connections: 64,
            auth: data.auth,
            body: () => ({
              source_id: pick(data.customers).sourceId,
              coupon_details: [{ coupon_id: data.redeemCoupon.id, coupon_code: 'BENCHREDEEM' }],
              order: { ...order, order_id: randomUUID() },
            }),
          }),
        );
        await drain();
        results.push(
          await measure(`wallet credit (${label})`, `${api.url}/wallets/customer/x/transactions/loyalty`, {
            connections: 64,
            auth: data.auth,
            method: 'PUT',
            body: () => ({ type: 'credit', points: 1 }),
            path: () => `/wallets/customer/${pick(data.customers).sourceId}/transactions/loyalty`,
          }),
        );
        await drain();
      }
      await Promise.all([...workers, api.child].map(stopChild));
    }
    return ['', ...TABLE_HEAD, ...results.map(row)];
  } finally {
    await stack.stop();
  }
}
