/**
 * Builds the Express app (no listen: see server.ts). Client routes use Basic auth per
 * application; /admin and Bull Board (/admin/queues) the admin token; /healthz, /readyz,
 * /metrics and /docs are the operations surface (docs/operations.md); /console is the promotions
 * console's static files (docs/console.md).
 */
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../shared/logger.js';
import type { JobGateway } from '../shared/queue/gateway.js';
import type { WebhookQueue } from '../shared/queue/webhook-queue.js';
import type { BacktestQueue } from '../shared/queue/backtest-queue.js';
import type { Services } from '../shared/services.js';
import { sessionMaySeeQueues } from './admin/admin-auth.js';
import { adminRouter } from './admin/admin.router.js';
import { BULL_BOARD_PATH, bullBoard } from './ops/bull-board.js';
import { consoleRouter } from './console/console.router.js';
import { docsRouter } from './ops/docs.router.js';
import { httpMetrics } from './ops/http-metrics.js';
import type { Metrics } from '../shared/ops/metrics.js';
import { opsRouter } from './ops/ops.router.js';
import { errorHandler, notFoundRoute } from './middleware/error-handler.js';
import { answerWithin, limitBodyDepth, shedWhenLate } from './middleware/limits.js';
import { eventLoopLatenessMs } from '../shared/ops/event-loop.js';
import { echoRequestId, requestIdFrom } from './middleware/request-id.js';
import { clientRouter } from './routes/client.router.js';
import { queuesOf } from './queues.js';

export interface AppOptions {
  services: Services;
  logger: Logger;
  /** Queues of redeem, revert and wallet operations (started, ready: api/queues.ts). */
  jobs: JobGateway;
  /** Prometheus metrics of this process, which count the gateway's outcomes (api/queues.ts). */
  metrics: Metrics;
  /** The webhook queue: shown in Bull Board, used by admin redelivery. */
  webhooks?: WebhookQueue;
  /** The backtest queue: shown in Bull Board, where the admin API queues backtests. */
  backtests?: BacktestQueue;
  /** Extra routes mounted before the client routes (the benchmark's baseline endpoints). */
  extraRoutes?: (app: Express) => void;
}

export function buildApp({ services, logger, jobs, metrics, webhooks, backtests, extraRoutes }: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Only proxies named by TRUST_PROXY may tell the client's address and scheme (req.ip, req.secure).
  const trust = services.config.trustProxy;
  app.set('trust proxy', trust === undefined ? false : /^\d+$/.test(trust) ? Number(trust) : trust);

  app.use(
    pinoHttp({
      logger,
      genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      },
    }),
  );
  app.use(echoRequestId);
  app.use(httpMetrics(metrics, app));
  app.use(opsRouter({ db: services.db, redis: jobs.redis, metrics, metricsToken: services.config.metricsToken }));
  app.use(docsRouter());
  app.use(consoleRouter());
  app.use(express.json({ limit: services.config.bodyLimit }));
  app.use(limitBodyDepth);

  extraRoutes?.(app);
  // Before the /admin router, which would otherwise answer /admin/queues itself.
  app.use(
    BULL_BOARD_PATH,
    bullBoard(queuesOf(jobs, webhooks, backtests), services.config.adminToken, (req) => sessionMaySeeQueues(services, req)),
  );
  app.use(
    '/admin',
    adminRouter(services, webhooks, () => jobs.redis, jobs, backtests),
  );
  // Queued operations answer by the job wait; anything else hanging is cut a little later. A
  // process too starved of CPU to answer in time answers at once instead, having done nothing.
  const handleError = errorHandler(services.config.bodyLimit);
  const shed = shedWhenLate(services.config.shedLatenessMs, eventLoopLatenessMs, metrics.httpShed);
  app.use(answerWithin(services.config.jobWaitTimeoutMs + 5000, handleError), clientRouter(services, jobs, shed));

  app.use(notFoundRoute);
  app.use(handleError);
  return app;
}
