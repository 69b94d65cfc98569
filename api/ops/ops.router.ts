/**
 * Operations endpoints of the API process: `/healthz`, `/readyz` (no auth: probes must reach
 * them) and `/metrics` — on the public port only with Bearer METRICS_TOKEN: without a token it is
 * off (404), so business counters are never open to the internet by default.
 * docs/operations.md says how to reach and protect them.
 */
import { Router, type RequestHandler } from 'express';
import type { RedisClient } from '../../shared/queue/redis.js';
import type { Database } from '../../shared/data/db.js';
import { LIVE, readiness } from '../../shared/ops/health.js';
import type { Metrics } from '../../shared/ops/metrics.js';
import { presentsToken } from '../../shared/ops/token.js';

/** What the operations routes read. */
export interface OpsDeps {
  db: Database;
  redis: RedisClient;
  metrics: Metrics;
  /** `config.metricsToken`; undefined turns the API's `/metrics` off. */
  metricsToken: string | undefined;
}

/** 401 unless the request carries the metrics token (when one is configured). */
export function metricsAuth(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token || presentsToken(req.headers.authorization, token)) return next();
    res.status(401).set('WWW-Authenticate', 'Bearer realm="coupons-metrics"').type('text/plain').send('unauthorized');
  };
}

/** `/healthz`, `/readyz`, `/metrics`. */
export function opsRouter(deps: OpsDeps): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => void res.json(LIVE));
  r.get('/readyz', async (_req, res) => {
    const { status, body } = await readiness(deps.db, deps.redis);
    res.status(status).json(body);
  });
  if (deps.metricsToken) {
    r.get('/metrics', metricsAuth(deps.metricsToken), async (_req, res) => {
      res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
    });
  }
  return r;
}
