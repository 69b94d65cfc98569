/** `REDIS_URL`, read without connecting (shared/config.ts validates it; shared/queue/redis.ts connects). */

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
