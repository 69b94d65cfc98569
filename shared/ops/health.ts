/**
 * Liveness and readiness, shared by the API and the worker. `/healthz`: the process runs.
 * `/readyz`: MongoDB and Redis each answer a ping within {@link READINESS_TIMEOUT_MS} — what a load
 * balancer, an orchestrator or the compose health checks should use.
 */
import type { RedisClient } from '../queue/redis.js';
import type { Database } from '../data/db.js';

/** Per-dependency ping budget: a probe must answer fast even when a dependency hangs. Default 2000 ms. */
export const READINESS_TIMEOUT_MS = 2000;

/** The `/healthz` body. */
export const LIVE = { status: 'ok' } as const;

/** The `/readyz` answer: 200 when both dependencies are up, 503 naming the one that is down. */
export interface Readiness {
  status: 200 | 503;
  body: { status: 'ready' | 'not_ready'; mongodb: 'up' | 'down'; redis: 'up' | 'down' };
}

/** Up when `ping` resolves within the budget; any error, even a synchronous one, is down. */
async function probe(ping: () => Promise<unknown>, ms: number): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(ping),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), ms);
      }),
    ]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** Pings MongoDB (`{ping: 1}`) and RedisClient (`PING`) in parallel. */
export async function readiness(db: Database, redis: RedisClient, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  const [mongodb, redisState] = await Promise.all([
    // `connection.db` is undefined until the first connect: a synchronous throw, caught by probe.
    probe(() => db.connection.db!.command({ ping: 1 }), timeoutMs),
    probe(() => redis.ping(), timeoutMs),
  ]);
  const ready = mongodb === 'up' && redisState === 'up';
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', mongodb, redis: redisState } };
}
