import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { clusterSeeds } from '../redis-url.js';

/** A connection to a single Redis or to a Redis Cluster: BullMQ takes either. */
export type RedisClient = Redis | Cluster;

/**
 * ioredis 5.x is pinned (bullmq 6 takes it as a peer; ioredis 6 defaults to RESP3). BullMQ's
 * blocking connections need `maxRetriesPerRequest: null`. `REDIS_URL` names a single Redis or,
 * as `redis+cluster://…`, a Redis Cluster (every queue key carries its partition's hash tag, so
 * each BullMQ script touches one slot). Every connection gets an 'error' listener: while Redis is
 * away ioredis reports each reconnect attempt as an error event, and the owners (queues, workers,
 * probes) already report what matters — without a listener ioredis prints each one to stderr.
 */
export function redisConnection(url: string, extra: RedisOptions = {}): RedisClient {
  const cluster = clusterSeeds(url);
  const options: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra };
  const client = cluster
    ? new Cluster(cluster.nodes, {
        enableOfflineQueue: options.enableOfflineQueue ?? true,
        enableReadyCheck: true,
        // After a failover the new primary is found through the seeds and MOVED answers.
        retryDelayOnFailover: 200,
        redisOptions: {
          ...options,
          ...(cluster.tls ? { tls: {} } : {}),
          ...(cluster.username ? { username: cluster.username } : {}),
          ...(cluster.password ? { password: cluster.password } : {}),
        },
      })
    : new Redis(url, options);
  client.on('error', () => undefined);
  return client;
}
