/**
 * The API's HTTP server with its limits (docs/reliability.md): a request must arrive whole
 * within `REQUEST_TIMEOUT_MS` — a slow or truncated body is answered 408 and closed in seconds,
 * not held for Node's default 300 s — and connections are checked every second for that.
 */
import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../shared/config.js';

export function createHttpServer(app: Express, config: Pick<Config, 'requestTimeoutMs'>): Server {
  return createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(config.requestTimeoutMs, 10_000),
      connectionsCheckingInterval: 1000,
    },
    app,
  );
}

/** Listens on `port` (0: a free one) and resolves once it accepts connections. */
export function listen(server: Server, port: number, host?: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
