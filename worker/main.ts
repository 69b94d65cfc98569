/**
 * Worker process: connects, consumes every partition
 * queue, the webhook queue and the backtest queue, runs the webhook sweep, and drains on SIGTERM (finishes the
 * current jobs and deliveries, exits 0). With WORKER_OPERATIONS=false it is a dedicated delivery
 * replica: the webhook queue and the sweep only.
 */
import { bootstrap } from '../shared/bootstrap.js';
import type { AddressInfo } from 'node:net';
import { drainOnSignal, keepRunningOnStrayErrors, reportReady } from '../shared/process.js';
import { createProcessor } from './processors/index.js';
import { startOpsServer } from './ops-server.js';
import { WorkerPool } from './worker-pool.js';
import { startWorkerWebhooks } from './webhook-worker.js';
import { createMetrics } from '../shared/ops/metrics.js';
import { partitionQueues } from '../shared/queue/names.js';
import { ExpirySweeper } from './expiry-sweeper.js';
import { redisConnection } from '../shared/queue/redis.js';
import { BacktestWorker } from './backtest-worker.js';
import { BacktestQueue } from '../shared/queue/backtest-queue.js';

async function main() {
  const { config, logger, services } = await bootstrap('worker');
  keepRunningOnStrayErrors(logger);
  const { db } = services;
  const partitions = partitionQueues(config);
  const observed = [...partitions.queues];
  const metrics = createMetrics('worker', () => observed);
  const webhooks = await startWorkerWebhooks(config, logger, services, (step) =>
    metrics.webhookDeliveries.inc({ outcome: step.next === 'done' ? step.status : step.next }),
  );
  observed.push(webhooks.queue.queue);
  const backtestQueue = new BacktestQueue(config);
  observed.push(backtestQueue.queue);
  const backtests = new BacktestWorker(config, logger, services);
  await backtests.start();
  const pool = new WorkerPool(config, logger, createProcessor(services, webhooks.recorder), ({ job, outcome, durationMs }) =>
    metrics.jobDuration.observe({ name: job.name, outcome }, durationMs / 1000),
  );
  // Expiring and pending points: settle jobs for the balances due (docs/wallets.md).
  const expiry = new ExpirySweeper(config, logger, services, partitions.queues);
  if (config.workerOperations) {
    await pool.start();
    expiry.start();
  }
  const redis = redisConnection(config.redisUrl);
  const ops = await startOpsServer({ port: config.workerPort, db, redis, metrics, metricsToken: config.metricsToken, logger });
  logger.info(
    { partitions: config.workerOperations ? config.queuePartitions : 0, webhookConcurrency: config.webhookConcurrency },
    'worker ready',
  );
  reportReady((ops.server.address() as AddressInfo).port);

  drainOnSignal(logger, async () => {
    await ops.close();
    await webhooks.stopDelivering();
    await expiry.close();
    await backtests.close();
    await backtestQueue.close();
    await pool.close(); // the jobs in hand finish; no new one is taken
    await webhooks.close();
    await partitions.close();
    await redis.quit();
    await services.tally.close(); // the results' tallies counted and not written yet
    await services.carts.close(); // the carts seen and not recorded yet
    await services.changes.close();
    await db.close();
  });
}

main().catch((err) => {
  process.stderr.write(`worker failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
