/**
 * `npm run dev`: a first look in one process — embedded MongoDB and Redis (unless MONGODB_URI /
 * REDIS_URL are set), the API and a worker, the demo data set, pretty logs. Prints credentials
 * and a curl to try. Not for production: use `npm start` and `npm run start:worker`.
 */
import { buildApp } from '../api/app.js';
import { createHttpServer } from '../api/http-server.js';
import { parseConfig } from '../shared/config.js';
import { connectDatabase } from '../shared/data/db.js';
import { createLogger } from '../shared/logger.js';
import { JobGateway } from '../shared/queue/gateway.js';
import { closeHttpServer, drainOnSignal } from '../shared/process.js';
import { createServices } from '../shared/services.js';
import { createProcessor } from '../worker/processors/index.js';
import { startWorkerWebhooks } from '../worker/webhook-worker.js';
import { WorkerPool } from '../worker/worker-pool.js';
import { loadDemoData } from './demo-data.js';
import { startEmbeddedServers, withDbName } from './embedded-servers.js';

async function main() {
  const servers = await startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
  const config = parseConfig({
    NODE_ENV: 'development',
    ADMIN_TOKEN: 'dev-admin-token-change-me',
    // A receiver on this machine is the usual first webhook in development.
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128',
    ...process.env,
    MONGODB_URI: process.env.MONGODB_URI ? servers.mongodbUri : withDbName(servers.mongodbUri, `coupons_dev_${Date.now()}`),
    REDIS_URL: servers.redisUrl,
  });
  const logger = createLogger(config, 'dev');
  const db = await connectDatabase(config.mongodbUri!);
  const services = createServices(config, db, logger);
  await services.changes.start();
  const jobs = new JobGateway(config, logger);
  await jobs.start();
  const webhooks = await startWorkerWebhooks(config, logger, services);
  const pool = new WorkerPool(config, logger, createProcessor(services, webhooks.recorder));
  await pool.start();
  const demo = await loadDemoData(services, (line) => logger.info(`demo data: ${line}`));
  const app = buildApp({ services, logger, jobs, webhooks: webhooks.queue });
  const server = createHttpServer(app, config).listen(config.port, () => {
    const auth = Buffer.from(`${demo.apiKey}:${demo.secret}`).toString('base64');
    process.stdout.write(
      [
        '',
        `coupon service (dev) on http://localhost:${config.port}`,
        `  API key: ${demo.apiKey}`,
        `  secret:  ${demo.secret}`,
        `  admin:   Bearer ${config.adminToken}   (docs: /docs, queues: /admin/queues)`,
        '',
        `  curl -s -X POST http://localhost:${config.port}/coupons/list/all -H 'authorization: Basic ${auth}' -H 'content-type: application/json' -d '{"source_id":"cust_1"}'`,
        '',
      ].join('\n'),
    );
  });
  drainOnSignal(logger, async () => {
    await closeHttpServer(server);
    await webhooks.stopDelivering();
    await pool.close();
    await webhooks.close();
    await jobs.close();
    await services.changes.close();
    await db.close();
    await servers.stop();
  });
}

main().catch((err) => {
  process.stderr.write(`dev failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
