/**
 * A real webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request
 * (raw body, headers, arrival time) and answers what `respond` says. It listens on port 0 and
 * keeps its port until `close()`: `down()` makes it reset every connection (a receiver that is
 * down) and `up()` answers again — the port is never released and bound again, so no other
 * process can take it in between.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type VerifyOptions } from '../../client/src/webhooks.js';

export interface Received {
  body: string;
  json: any;
  headers: IncomingHttpHeaders;
  at: number;
  /** What the receiver answered. */
  status: number;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests read so far, answered or not. */
  arrivals = 0;
  /** The status to answer (may wait first). Default 200. */
  respond: (r: Omit<Received, 'status'>) => number | Promise<number> = () => 200;
  private server: Server | undefined;
  private port = 0;
  private refusing = false;

  /** @param host - the loopback address to listen on (127.0.0.2 is loopback too, another CIDR). */
  constructor(private readonly host = '127.0.0.1') {}

  get url(): string {
    return `http://${this.host}:${this.port}/hooks`;
  }

  /** Listens (on a new port the first time), or answers again after `down()`. */
  async up(): Promise<this> {
    this.refusing = false;
    if (this.server) return this;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const r = { body, json, headers: req.headers, at: Date.now() };
        this.arrivals++;
        const status = await this.respond(r);
        this.received.push({ ...r, status });
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    // A receiver that is down: connections are cut as they arrive, the port stays this one's.
    server.on('connection', (socket) => {
      if (this.refusing) socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Cuts every connection, open and new, until `up()`: deliveries fail as to a receiver that is down. */
  async down(): Promise<void> {
    this.refusing = true;
    this.server?.closeAllConnections();
  }

  /** Stops listening and releases the port (the end of a test). */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Requests answered 2xx. */
  get accepted(): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300);
  }

  /** True when every request carries a valid signature under `secret`. */
  allSigned(secret: string): boolean {
    return this.received.every((r) => signedBy(r, { secrets: secret }));
  }
}

/** Polls `check` until it returns true, or fails after `timeoutMs` with `what`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Whether a received delivery verifies with the client's `verifyWebhook` (docs/events.md) under these options. */
export function signedBy(r: Pick<Received, 'headers' | 'body'>, options: VerifyOptions): boolean {
  try {
    verifyWebhook(r.body, r.headers, options);
    return true;
  } catch {
    return false;
  }
}
