/**
 * The worker's own operations port (`WORKER_PORT`): `/healthz`, `/readyz` (MongoDB and Redis)
 * and `/metrics` (job durations by name and outcome, queue depth, process metrics).
 */
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { readiness } from '../api/ops/health.js';
import type { Database } from '../shared/data/db.js';
import type { Metrics } from '../shared/metrics.js';

export function startOpsServer(deps: {
  port: number;
  db: Database;
  redis: Redis;
  metrics: Metrics;
  metricsToken: string | undefined;
}): Promise<Server> {
  const server = createServer(async (req, res) => {
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'content-type': type }).end(body);
    try {
      if (req.url === '/healthz') return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
      if (req.url === '/readyz') {
        const r = await readiness(deps.db, deps.redis);
        return send(r.status, 'application/json', JSON.stringify(r.body));
      }
      if (req.url === '/metrics') {
        if (deps.metricsToken && req.headers.authorization !== `Bearer ${deps.metricsToken}`)
          return send(401, 'text/plain', 'unauthorized');
        return send(200, deps.metrics.registry.contentType, await deps.metrics.registry.metrics());
      }
      send(404, 'text/plain', `Cannot ${req.method} ${req.url}`);
    } catch (err) {
      send(500, 'text/plain', String(err));
    }
  });
  return new Promise((resolve) => server.listen(deps.port, () => resolve(server)));
}
