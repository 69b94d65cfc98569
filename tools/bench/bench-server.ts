/**
 * The API as the benchmark runs it: the real app plus two baseline routes measured in the same
 * run — `/bench/baseline` (Basic auth + JSON parse + one indexed read on the same database) and
 * `/bench/noop-job` (a no-op job through the same partition queues: add + process + wait).
 */
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../api/app.js';
import { sendJobAnswer } from '../../api/answers.js';
import { startApiQueues } from '../../api/queues.js';
import { createHttpServer } from '../../api/http-server.js';
import { basicAuth } from '../../api/middleware/auth.js';
import { loadConfig } from '../../shared/config.js';
import { connectDatabase } from '../../shared/data/db.js';
import { createLogger } from '../../shared/logger.js';
import { operationOf } from '../../shared/usecases/idempotency.js';
import { JOB } from '../../shared/queue/names.js';
import { createServices } from '../../shared/services.js';
import { reportReady } from '../../shared/process.js';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config, 'bench-api');
  const db = await connectDatabase(config.mongodbUri!);
  const services = createServices(config, db);
  const { jobs, metrics } = await startApiQueues(services);
  const app = buildApp({
    services,
    logger,
    jobs,
    metrics,
    extraRoutes: (a) => {
      a.post('/bench/baseline', basicAuth(services, 'list'), async (req, res) => {
        // One read of its own per request (not the coalesced reads of the routes): the database's
        // cost per indexed read, measured the same way in every run.
        const customer = await services.db.models.Customer.findOne(
          { application: res.locals.app.id, sourceId: String(req.body?.source_id ?? ''), archivedAt: null },
          { _id: 1 },
        ).lean();
        res.json({ ok: true, customer: customer?._id ?? null });
      });
      a.post('/bench/noop-job', basicAuth(services, 'list'), async (req, res) => {
        const op = operationOf(undefined);
        const job = { name: JOB.noop, customerId: `bench-${randomInt(200)}`, payload: {} };
        sendJobAnswer(req, res, await jobs.queueAndWait(job, { applicationId: res.locals.app.id, ...op }), op.operationKey);
      });
    },
  });
  const server = createHttpServer(app, config).listen(config.port, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
  process.on('SIGTERM', () => {
    server.close(async () => {
      await jobs.close();
      await db.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
