/**
 * API process: validates configuration, connects MongoDB and Redis, waits until the queue
 * listeners are ready, then listens. SIGTERM: stop accepting connections, let in-flight requests
 * (including those waiting on a job) finish, close, exit 0.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrap } from '../shared/bootstrap.js';
import { WebhookQueue } from '../shared/queue/webhook-queue.js';
import { BacktestQueue } from '../shared/queue/backtest-queue.js';
import { buildApp } from './app.js';
import { startApiQueues } from './queues.js';
import { createHttpServer, listen } from './http-server.js';
import { closeHttpServer, drainOnSignal, keepRunningOnStrayErrors, reportReady } from '../shared/process.js';

async function main() {
  const { config, logger, services } = await bootstrap('api');
  keepRunningOnStrayErrors(logger);
  const { db } = services;
  // Queues first: the API must not accept a redeem it cannot hear the end of.
  const webhooks = new WebhookQueue(config);
  await webhooks.waitUntilReady();
  const backtests = new BacktestQueue(config);
  const { jobs, metrics } = await startApiQueues(services, logger, webhooks, backtests);
  const app = buildApp({ services, logger, jobs, metrics, webhooks, backtests });
  const server: Server = await listen(createHttpServer(app, config), config.port);
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, 'api listening');
  reportReady(port);

  drainOnSignal(logger, async () => {
    await closeHttpServer(server); // every accepted request answered, those waiting on a job included
    await jobs.close();
    await webhooks.close();
    await backtests.close();
    await services.tally.close(); // the results' tallies counted and not written yet
    await services.carts.close(); // the carts seen and not recorded yet
    await services.changes.close();
    await db.close();
  });
}

main().catch((err) => {
  process.stderr.write(`api failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
