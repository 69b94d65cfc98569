import { Redis, type RedisOptions } from 'ioredis';

/**
 * ioredis 5.x is pinned (bullmq 6 takes it as a peer; ioredis 6 defaults to RESP3). BullMQ's
 * blocking connections need `maxRetriesPerRequest: null`. Every connection gets an 'error'
 * listener: while Redis is away ioredis reports each reconnect attempt as an error event, and the
 * owners (queues, workers, probes) already report what matters — without a listener ioredis
 * prints each one to stderr.
 */
export function redisConnection(url: string, extra: RedisOptions = {}): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra });
  client.on('error', () => undefined);
  return client;
}
