/**
 * Everything a worker runs, started and stopped in one place for the three composition roots that
 * host one (worker/main.ts, scripts/dev.ts, test/support/context.ts): the webhook queue and its
 * delivery pool, the backtest queue and its pool, the partition pool and the expiry sweep. A pool
 * added here reaches all three; one wired by hand in each once reached two (the dev server answered
 * a backtest 503: nothing took it).
 */
import type { Queue } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { BacktestQueue } from '../shared/queue/backtest-queue.js';
import type { Services } from '../shared/services.js';
import type { DeliveryStep } from '../shared/usecases/events/deliver-webhook.usecase.js';
import { BacktestWorker } from './backtest-worker.js';
import { ExpirySweeper } from './expiry-sweeper.js';
import { createProcessor } from './processors/index.js';
import { startWorkerWebhooks, type WorkerWebhooks } from './webhook-worker.js';
import { WorkerPool, type JobListener } from './worker-pool.js';

export interface WorkerSideOptions {
  /** The partition pool runs (default: `WORKER_OPERATIONS`); off, a delivery and backtest replica. */
  operations?: boolean;
  /** The expiry sweep runs where the partition pool does (default), or not at all (false). */
  expiry?: boolean;
  /** Handles on every partition queue for the sweep, closed by their owner (else it opens its own). */
  partitionQueues?: readonly Queue[];
  onStep?: (step: DeliveryStep) => void;
  onJob?: JobListener;
}

export interface WorkerSide {
  webhooks: WorkerWebhooks;
  backtests: BacktestQueue;
  /** The queues this side adds to besides the partitions (for metrics and Bull Board). */
  queues: Queue[];
  /** Stops taking work (delivery, sweep, backtests, operations); what is in hand finishes. */
  stopTaking(): Promise<void>;
  /** After stopTaking: the queues' connections. */
  close(): Promise<void>;
}

export async function startWorkerSide(
  config: Config,
  logger: Logger,
  services: Services,
  opts: WorkerSideOptions = {},
): Promise<WorkerSide> {
  const operations = opts.operations ?? config.workerOperations;
  const webhooks = await startWorkerWebhooks(config, logger, services, opts.onStep);
  const backtests = new BacktestQueue(config);
  const backtestPool = new BacktestWorker(config, logger, services);
  await backtestPool.start();
  const pool = operations ? new WorkerPool(config, logger, createProcessor(services, webhooks.recorder), opts.onJob) : null;
  await pool?.start();
  const expiry = pool && opts.expiry !== false ? new ExpirySweeper(config, logger, services, opts.partitionQueues) : null;
  expiry?.start();
  return {
    webhooks,
    backtests,
    queues: [webhooks.queue.queue, backtests.queue],
    stopTaking: async () => {
      await webhooks.stopDelivering();
      await expiry?.close();
      await backtestPool.close();
      await pool?.close(); // the jobs in hand finish; no new one is taken
    },
    close: async () => {
      await backtests.close();
      await webhooks.close();
    },
  };
}
