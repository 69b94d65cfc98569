/**
 * Prometheus metrics (prom-client). One Registry per process — never the global one — so tests
 * can build several apps side by side. The API and the worker each expose theirs on `/metrics`;
 * every series carries `component="api"|"worker"`. docs/operations.md lists names and labels.
 */
import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The metrics of one process. */
export interface Metrics {
  registry: Registry;
  /** `coupons_http_request_duration_seconds{method, route, status}`; `route` is the template. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** `coupons_http_requests_in_flight` (API): requests received and not yet answered or abandoned. */
  httpInFlight: Gauge;
  /** `coupons_http_requests_shed_total` (API): client requests answered 503 at once, the event loop too late (docs/reliability.md). */
  httpShed: Counter;
  /** `coupons_job_duration_seconds{name, outcome}` (worker). */
  jobDuration: Histogram<'name' | 'outcome'>;
  /** `coupons_redemptions_total{type, outcome, reason}` (API, as job outcomes come back). */
  redemptions: Counter<'type' | 'outcome' | 'reason'>;
  /** `coupons_wallet_transactions_total{type, outcome}` (API, as job outcomes come back). */
  walletTransactions: Counter<'type' | 'outcome'>;
  /** `coupons_order_reports_total{status, outcome}` (API, as job outcomes come back; docs/wallets.md). */
  orderReports: Counter<'status' | 'outcome'>;
  /** `coupons_webhook_deliveries_total{outcome}` (worker, per delivery job run; docs/events.md). */
  webhookDeliveries: Counter<'outcome'>;
}

/** States reported by `coupons_queue_jobs`. */
const DEPTH_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/**
 * A scrape must answer even while Redis is away (that is when process metrics matter most):
 * queue connections queue commands until Redis is back, so the depth read is capped.
 * Default 1000 ms.
 */
const DEPTH_TIMEOUT_MS = 1000;

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error('queue depth timed out')), ms).unref());
}

/**
 * Creates the registry of one process.
 * @param component - label value on every series.
 * @param queues - the queues (partitions, webhooks) whose depth is read on each scrape (none by default).
 */
export function createMetrics(component: 'api' | 'worker', queues: () => readonly Queue[] = () => []): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ component });
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'coupons_queue_jobs',
    help: 'Jobs per queue (partitions, webhooks) and state (waiting, active, delayed, failed), read on scrape',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      try {
        const counts = await Promise.race([Promise.all(queues().map((q) => q.getJobCounts(...DEPTH_STATES))), timeout(DEPTH_TIMEOUT_MS)]);
        this.reset();
        queues().forEach((q, i) => {
          for (const state of DEPTH_STATES) this.set({ queue: q.name, state }, counts[i]?.[state] ?? 0);
        });
      } catch {
        // Unknown is not zero: drop the series rather than report a stale or false depth.
        this.reset();
      }
    },
  });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'coupons_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    httpInFlight: new Gauge({
      name: 'coupons_http_requests_in_flight',
      help: 'HTTP requests received and not yet answered (or closed by the client), the scrape included',
      registers: [registry],
    }),
    httpShed: new Counter({
      name: 'coupons_http_requests_shed_total',
      help: 'Client requests answered 503 at once, without any work, while the event loop was later than SHED_LATENESS_MS',
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
      help: 'Redeem and revert outcomes; refused ones carry the reason',
      labelNames: ['type', 'outcome', 'reason'],
      registers: [registry],
    }),
    walletTransactions: new Counter({
      name: 'coupons_wallet_transactions_total',
      help: 'Wallet credit and debit outcomes',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
    orderReports: new Counter({
      name: 'coupons_order_reports_total',
      help: 'Orders reported completed or returned: points earned, taken back, nothing moved, or refused',
      labelNames: ['status', 'outcome'],
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'coupons_webhook_deliveries_total',
      help: 'Webhook delivery job runs by outcome: succeeded, retry, wait, dead, cancelled, stale',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}
