/**
 * Prometheus metrics (prom-client). One Registry per process (not the global one), so tests can
 * build several apps. API and worker each expose theirs on `/metrics`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  jobDuration: Histogram<'name' | 'outcome'>;
  redemptions: Counter<'type' | 'outcome' | 'reason'>;
  walletTransactions: Counter<'type' | 'outcome'>;
}

export function createMetrics(component: 'api' | 'worker', queues: () => readonly Queue[] = () => []): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ component });
  collectDefaultMetrics({ register: registry });
  const depth = new Gauge({
    name: 'coupons_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed), read on scrape',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const q of queues()) {
        const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed');
        for (const [state, n] of Object.entries(counts)) this.set({ queue: q.name, state }, n);
      }
    },
  });
  void depth;
  return {
    registry,
    httpDuration: new Histogram({
      name: 'coupons_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'coupons_job_duration_seconds',
      help: 'Job processing duration by job name and outcome',
      labelNames: ['name', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    redemptions: new Counter({
      name: 'coupons_redemptions_total',
      help: 'Redeem and revert outcomes (refused carries the reason)',
      labelNames: ['type', 'outcome', 'reason'],
      registers: [registry],
    }),
    walletTransactions: new Counter({
      name: 'coupons_wallet_transactions_total',
      help: 'Wallet credit and debit outcomes',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
  };
}
