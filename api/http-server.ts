/**
 * The API's HTTP server with its limits (docs/reliability.md): a request must arrive whole
 * within `REQUEST_TIMEOUT_MS` — a slow or truncated body is answered 408 and closed in seconds,
 * not held for Node's default 300 s — and connections are checked every second for that.
 *
 * An idle keep-alive connection is closed after `keepAliveTimeout` (Node's 5 s), but never while a
 * request is on its way in. Node fires the idle timer in the event loop's timers phase, before the
 * poll phase reads sockets: when the loop was busy for a while (a loaded machine), a request the
 * client sent in time is still unread when the timer fires, and Node destroys the socket under it —
 * the client gets ECONNRESET, no answer (nodejs/node#43456: a connection cut without an answer). So
 * the server handles the timeout itself: it looks again after the poll phase (`setImmediate`), and
 * closes the connection only if nothing was read from it meanwhile.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../shared/config.js';

export function createHttpServer(app: RequestListener, config: Pick<Config, 'requestTimeoutMs'>): Server {
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(config.requestTimeoutMs, 10_000),
      connectionsCheckingInterval: 1000,
    },
    app,
  );
  // With a 'timeout' listener Node leaves the socket to it (it destroys it itself otherwise).
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    setImmediate(() => {
      if (!socket.destroyed && socket.bytesRead === read) socket.destroy();
    });
  });
  return server;
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
