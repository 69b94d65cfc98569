/**
 * The worker's own operations port (`WORKER_PORT`, default 9464): `/healthz`, `/readyz` (MongoDB
 * and Redis) and `/metrics` (job durations by name and outcome, queue depth, process metrics).
 * Plain node:http: three read-only routes do not need Express in the worker.
 */
import { createServer, type Server } from 'node:http';
import type { RedisClient } from '../shared/queue/redis.js';
import { LIVE, readiness } from '../shared/ops/health.js';
import type { Metrics } from '../shared/ops/metrics.js';
import { presentsToken } from '../shared/ops/token.js';
import type { Database } from '../shared/data/db.js';
import type { Logger } from '../shared/logger.js';

/** What the worker's operations server reads. */
export interface WorkerOpsDeps {
  /** `config.workerPort`; 0 picks a free port (tests). */
  port: number;
  db: Database;
  redis: RedisClient;
  metrics: Metrics;
  /** `config.metricsToken`; undefined leaves `/metrics` open. */
  metricsToken: string | undefined;
  logger?: Logger;
}

/** A started operations server; `close()` stops it (SIGTERM). */
export interface WorkerOpsServer {
  server: Server;
  close(): Promise<void>;
}

/** Listens on `deps.port` and resolves once it accepts connections. */
export function startOpsServer(deps: WorkerOpsDeps): Promise<WorkerOpsServer> {
  const server = createServer(async (req, res) => {
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': type, ...headers }).end(req.method === 'HEAD' ? undefined : body);
    const json = (status: number, body: unknown) => send(status, 'application/json; charset=utf-8', JSON.stringify(body));
    const path = new URL(req.url ?? '/', 'http://worker').pathname;
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(404, 'text/plain', `Cannot ${req.method} ${path}`);
      if (path === '/healthz') return json(200, LIVE);
      if (path === '/readyz') {
        const r = await readiness(deps.db, deps.redis);
        return json(r.status, r.body);
      }
      if (path === '/metrics') {
        if (deps.metricsToken && !presentsToken(req.headers.authorization, deps.metricsToken))
          return send(401, 'text/plain', 'unauthorized', { 'www-authenticate': 'Bearer realm="coupons-metrics"' });
        return send(200, deps.metrics.registry.contentType, await deps.metrics.registry.metrics());
      }
      send(404, 'text/plain', `Cannot ${req.method} ${path}`);
    } catch (err) {
      deps.logger?.error({ err, path }, 'operations endpoint failed');
      if (!res.headersSent) send(500, 'text/plain', 'internal error');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, () => {
      server.off('error', reject);
      resolve({
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Probes and scrapes keep connections alive; they must not hold the shutdown.
            server.closeAllConnections();
          }),
      });
    });
  });
}
