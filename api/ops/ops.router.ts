/**
 * Operations endpoints of the API process: health, readiness, Prometheus metrics, Bull Board.
 * docs/operations.md says how to reach and protect them.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { Router, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Database } from '../../shared/data/db.js';
import type { Metrics } from '../../shared/metrics.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { JOB, type JobName, type JobPayloads } from '../../shared/queue/names.js';
import type { Outcome } from '../../shared/queue/outcome.js';
import { hasAdminToken } from '../admin/admin.router.js';
import { notFoundRoute } from '../middleware/error-handler.js';
import { readiness } from './health.js';

/** Records the duration of every request by route template (never the raw path). */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}

/** Counts redemption and wallet outcomes as the API receives them from the jobs. */
export function recordOutcome(metrics: Metrics) {
  return <N extends JobName>(name: N, payload: JobPayloads[N], outcome: Outcome<unknown>) => {
    const reason = outcome.ok ? '' : (outcome.error.extra.reason ?? outcome.error.kind);
    if (name === JOB.redeem || name === JOB.revert) {
      metrics.redemptions.inc({ type: name, outcome: outcome.ok ? (name === JOB.redeem ? 'completed' : 'reverted') : 'refused', reason });
    } else if (name === JOB.walletTransaction) {
      const type = (payload as JobPayloads['wallet-transaction']).type;
      metrics.walletTransactions.inc({ type, outcome: outcome.ok ? 'applied' : 'refused' });
    }
  };
}

/** Bearer token check for /metrics when METRICS_TOKEN is set. */
function metricsAuth(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token || hasAdminToken(req.headers.authorization, token)) return next();
    res.status(401).type('text/plain').send('unauthorized');
  };
}

export function opsRouter(deps: { db: Database; redis: Redis; metrics: Metrics; metricsToken: string | undefined }): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  r.get('/readyz', async (_req, res) => {
    const { status, body } = await readiness(deps.db, deps.redis);
    res.status(status).json(body);
  });
  r.get('/metrics', metricsAuth(deps.metricsToken), async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return r;
}

/**
 * Bull Board at /admin/queues: every partition queue, READ-ONLY (these queues move money and
 * points: a retry from the UI must not re-run a debit). Admin token required (Bearer, or Basic
 * with the token as password so a browser can log in); off when no admin token is configured.
 */
export function bullBoard(jobs: JobGateway, adminToken: string | undefined): Router {
  const r = Router();
  if (!adminToken) {
    r.use(notFoundRoute);
    return r;
  }
  const adapter = new ExpressAdapter();
  adapter.setBasePath('/admin/queues');
  createBullBoard({
    queues: jobs.partitionQueues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Coupon queues' } },
  });
  r.use((req, res, next) => {
    if (hasAdminToken(req.headers.authorization, adminToken)) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Basic realm="coupons-admin"')
      .json({ code: 401, message: 'unauthorized', details: 'admin token invalid', request_id: String(req.id) });
  });
  r.use(adapter.getRouter());
  return r;
}
