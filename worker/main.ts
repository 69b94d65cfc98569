/**
 * Worker process: connects, consumes every partition
 * queue, the webhook queue and the backtest queue, runs the webhook sweep, and drains on SIGTERM (finishes the
 * current jobs and deliveries, exits 0). With WORKER_OPERATIONS=false it is a dedicated delivery
 * replica: the webhook queue and the sweep only.
 */
import { bootstrap } from '../shared/bootstrap.js';
import type { AddressInfo } from 'node:net';
import { drainOnSignal, keepRunningOnStrayErrors, reportReady } from '../shared/process.js';
import { startOpsServer } from './ops-server.js';
import { startWorkerSide } from './worker-side.js';
import { createMetrics } from '../shared/ops/metrics.js';
import { partitionQueues } from '../shared/queue/names.js';
import { redisConnection } from '../shared/queue/redis.js';

async function main() {
  const { config, logger, services } = await bootstrap('worker');
  keepRunningOnStrayErrors(logger);
  const { db } = services;
  const partitions = partitionQueues(config);
  const observed = [...partitions.queues];
  const metrics = createMetrics('worker', () => observed);
  const side = await startWorkerSide(config, logger, services, {
    partitionQueues: partitions.queues,
    onStep: (step) => metrics.webhookDeliveries.inc({ outcome: step.next === 'done' ? step.status : step.next }),
    onJob: ({ job, outcome, durationMs }) => metrics.jobDuration.observe({ name: job.name, outcome }, durationMs / 1000),
  });
  observed.push(...side.queues);
  const redis = redisConnection(config.redisUrl);
  const ops = await startOpsServer({ port: config.workerPort, db, redis, metrics, metricsToken: config.metricsToken, logger });
  logger.info(
    { partitions: config.workerOperations ? config.queuePartitions : 0, webhookConcurrency: config.webhookConcurrency },
    'worker ready',
  );
  reportReady((ops.server.address() as AddressInfo).port);

  drainOnSignal(logger, async () => {
    await ops.close();
    await side.stopTaking(); // the jobs and deliveries in hand finish; no new one is taken
    await side.close();
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
