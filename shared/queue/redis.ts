import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** A connection to a single Redis or to a Redis Cluster: BullMQ takes either. */
export type RedisClient = Redis | Cluster;

/**
 * `redis+cluster://[user:pass@]host:port,host:port[/]` (or `rediss+cluster://` for TLS): the seed
 * nodes of a Redis Cluster; null for a plain `redis://` / `rediss://` URL. Throws on a cluster URL
 * it cannot read (a seed without a port, an empty seed, a query string): such a URL must stop the
 * process at start-up (shared/config.ts), never connect somewhere else.
 */
export function clusterSeeds(
  url: string,
): { nodes: { host: string; port: number }[]; tls: boolean; username?: string; password?: string } | null {
  if (!/^rediss?\+cluster:\/\//.test(url)) return null;
  const m = /^(rediss?)\+cluster:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)\/?$/.exec(url);
  if (!m) throw new Error('a cluster URL is redis+cluster://[user:password@]host:port,host:port (no path or query)');
  const nodes = m[4]!.split(',').map((hostPort) => {
    const hp = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(hostPort);
    const port = Number(hp?.[2]);
    if (!hp || port < 1 || port > 65535) throw new Error(`seed "${hostPort}" is not host:port`);
    return { host: hp[1]!.replace(/^\[(.*)\]$/, '$1'), port };
  });
  return {
    nodes,
    tls: m[1] === 'rediss',
    ...(m[2] ? { username: decodeURIComponent(m[2]) } : {}),
    ...(m[3] ? { password: decodeURIComponent(m[3]) } : {}),
  };
}

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
