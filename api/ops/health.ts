/**
 * `/healthz`: the process is alive. `/readyz`: MongoDB and Redis answer a ping within 2 s
 * (503 otherwise) — what a load balancer or compose health check should use.
 */
import type { Redis } from 'ioredis';
import type { Database } from '../../shared/data/db.js';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

export async function readiness(db: Database, redis: Redis) {
  const [mongodb, redisState] = await Promise.all([
    withTimeout(db.connection.db!.command({ ping: 1 }), 2000).then(
      () => 'up' as const,
      () => 'down' as const,
    ),
    withTimeout(redis.ping(), 2000).then(
      () => 'up' as const,
      () => 'down' as const,
    ),
  ]);
  const ready = mongodb === 'up' && redisState === 'up';
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', mongodb, redis: redisState } };
}
