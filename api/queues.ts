import type { Logger } from '../shared/logger.js';
import { createMetrics, type Metrics } from '../shared/ops/metrics.js';
import { JobGateway } from '../shared/queue/gateway.js';
import type { WebhookQueue } from '../shared/queue/webhook-queue.js';
import type { BacktestQueue } from '../shared/queue/backtest-queue.js';
import type { Services } from '../shared/services.js';
import { soldOutListener } from '../shared/usecases/apply/sold-out.usecase.js';
import { outcomeCounter } from './ops/outcome-metrics.js';

/** An API process's job gateway, and the metrics that count its outcomes. */
export interface ApiQueues {
  jobs: JobGateway;
  metrics: Metrics;
}

/** Every queue an API watches (metrics, Bull Board): the partitions, then the webhook and backtest queues. */
export const queuesOf = (jobs: JobGateway, webhooks: WebhookQueue | undefined, backtests?: BacktestQueue) => [
  ...jobs.partitionQueues,
  ...(webhooks ? [webhooks.queue] : []),
  ...(backtests ? [backtests.queue] : []),
];

/**
 * Starts the job gateway of an API process, built with the listeners of its outcomes: the
 * business counters and the sold-out hints (shared/usecases/apply/sold-out.usecase.ts). Queue
 * depth is read on scrape from its partitions and `webhooks`.
 */
export async function startApiQueues(
  services: Services,
  logger?: Logger,
  webhooks?: WebhookQueue,
  backtests?: BacktestQueue,
): Promise<ApiQueues> {
  const metrics = createMetrics('api', () => queuesOf(jobs, webhooks, backtests));
  const jobs = new JobGateway(services.config, logger, [outcomeCounter(metrics), soldOutListener(services.soldOut)]);
  await jobs.start();
  return { jobs, metrics };
}
