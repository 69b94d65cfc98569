import { Redis, type RedisOptions } from 'ioredis';

/**
 * ioredis 5.x is pinned (bullmq 6 takes it as a peer; ioredis 6 defaults to RESP3). BullMQ's
 * blocking connections need `maxRetriesPerRequest: null`.
 */
export function redisConnection(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra });
}
