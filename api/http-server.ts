/**
 * The API's HTTP server with its limits (docs/reliability.md): a request must arrive whole
 * within `REQUEST_TIMEOUT_MS` — a slow or truncated body is answered 408 and closed in seconds,
 * not held for Node's default 300 s — and connections are checked every second for that.
 *
 * An idle keep-alive connection is held for `KEEP_ALIVE_TIMEOUT_MS` (65 s), and clients are told
 * half of it (`Keep-Alive: timeout=32`). A client sends its next request on a connection it believes
 * open; if the server closed it meanwhile, the request is cut without an answer. So the server must
 * be the last to close: Node's 5 s, announced as such, lost that race whenever a client's process was
 * slow for a second or two (a chaos run's client reused connections idle 5.3-6.6 s, each cut) and
 * to every client whose pool keeps connections longer than 5 s without reading the hint (a load
 * balancer's 60 s, Go's 90 s).
 *
 * The idle timeout is handled by the server itself, never while a request is on its way in. Node
 * fires the idle timer in the event loop's timers phase, before the poll phase reads sockets: when
 * the loop was busy for a while (a loaded machine), a request the client sent in time is still
 * unread when the timer fires, and Node destroys the socket under it — the client gets ECONNRESET,
 * no answer (nodejs/node#43456: a connection cut without an answer). So the server looks again
 * after the poll phase (`setImmediate`), and closes the connection only if nothing was read from it
 * meanwhile.
 */
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../shared/config.js';

export function createHttpServer(app: RequestListener, config: Pick<Config, 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): Server {
  // Set by the app, the header replaces the one Node writes from keepAliveTimeout.
  const hint = `timeout=${Math.max(1, Math.floor(config.keepAliveTimeoutMs / 2000))}`;
  /** The answers of requests in hand (for a drain). */
  const inHand = new Set<ServerResponse>();
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(config.requestTimeoutMs, 10_000),
      connectionsCheckingInterval: 1000,
      keepAliveTimeout: config.keepAliveTimeoutMs,
    },
    (req, res) => {
      if (!server.listening)
        res.shouldKeepAlive = false; // sent on a kept connection while draining
      else if (res.shouldKeepAlive) res.setHeader('Keep-Alive', hint);
      inHand.add(res);
      res.once('close', () => inHand.delete(res));
      app(req, res);
    },
  );
  // Draining (server.close): a kept connection would hold the close up to KEEP_ALIVE_TIMEOUT_MS, and
  // Node still answers requests in hand with "keep-alive". So each answer not yet begun says
  // "Connection: close" and its connection ends with it; those already begun end when done
  // (closeIdleConnections after each); idle ones end now.
  const close = server.close.bind(server);
  server.close = (callback?: (err?: Error) => void) => {
    close(callback);
    for (const res of inHand) {
      if (!res.headersSent) {
        res.shouldKeepAlive = false;
        res.removeHeader('Keep-Alive');
      } else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
    }
    server.closeIdleConnections();
    return server;
  };
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
