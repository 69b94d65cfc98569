/**
 * `npm run dev`: a first look in one process — embedded MongoDB and Redis (unless MONGODB_URI /
 * REDIS_URL are set), the API and a worker, the demo data set, pretty logs. Prints credentials
 * and a curl to try. Not for production: use `npm start` and `npm run start:worker`.
 */
import { buildApp } from '../api/app.js';
import { startApiQueues } from '../api/queues.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer, listen } from '../api/http-server.js';
import { parseConfig } from '../shared/config.js';
import { connectDatabase } from '../shared/data/db.js';
import { createLogger } from '../shared/logger.js';
import { closeHttpServer, drainOnSignal } from '../shared/process.js';
import { createServices } from '../shared/services.js';
import { startWorkerSide } from '../worker/worker-side.js';
import { randomBytes } from 'node:crypto';
import { DomainError } from '../shared/errors.js';
import { createOperator } from '../shared/usecases/admin/operators.usecase.js';
import { buildConsoleIfStale } from './console-build.js';
import { loadDemoData } from './demo-data.js';
import { startEmbeddedServers, withDbName } from './embedded-servers.js';

/**
 * How long the service side (HTTP server, workers, queues, database connections) may take to stop
 * on a signal: the 30 s a process manager gives a drain (docs/operations.md, "Shutdown"). Past it
 * the embedded servers are stopped anyway and the process exits 1.
 */
const SERVICE_STOP_DEADLINE_MS = 30_000;

async function main() {
  // The port first: a busy one is one clear line, with nothing started yet.
  const early = parseConfig({ NODE_ENV: 'development', ...process.env });
  let app: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createHttpServer((req, res) => (app ? app(req, res) : res.writeHead(503).end('starting')), early);
  try {
    await listen(server, early.port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'is in use (another `npm run dev`?)' : `cannot be used (${code ?? (err as Error).message})`;
    process.stderr.write(`npm run dev: port ${early.port} ${why}: choose another with PORT, e.g. PORT=${early.port + 1} npm run dev\n`);
    process.exit(1);
  }
  const port = (server.address() as AddressInfo).port;

  const logger = createLogger(early, 'dev');

  // In process groups of their own: a signal to this one (Ctrl-C, `timeout`) reaches this process
  // alone, which stops them itself, last — they would otherwise die first, under a service that
  // cannot drain without them.
  const serversStarting = startEmbeddedServers(
    { mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL },
    { detached: true },
  );
  // What the service side started, stopped last first, before the servers.
  const stops: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  /**
   * The HTTP server first (every request in hand answered), then the service side, then the
   * embedded servers: these in any case, after {@link SERVICE_STOP_DEADLINE_MS} at most. Once.
   */
  const stopAll = () =>
    (stopping ??= (async () => {
      const serviceStopped = (async () => {
        await closeHttpServer(server);
        for (const stop of stops.reverse()) await stop().catch(() => undefined);
      })();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<false>((r) => (timer = setTimeout(() => r(false), SERVICE_STOP_DEADLINE_MS)));
      const inTime = await Promise.race([serviceStopped.then(() => true), deadline]);
      clearTimeout(timer);
      await serversStarting.then((servers) => servers.stop()).catch(() => undefined);
      if (!inTime) {
        process.stderr.write(
          `npm run dev: the service did not stop within ${SERVICE_STOP_DEADLINE_MS / 1000} s; stopped the embedded servers anyway, exiting 1\n`,
        );
        process.exit(1);
      }
    })());
  // From here on, a signal or a failure stops what was started (embedded servers included) before
  // it exits — during the start too, once the servers are up.
  drainOnSignal(logger, stopAll);
  const servers = await serversStarting;
  try {
    const config = parseConfig({
      NODE_ENV: 'development',
      ADMIN_TOKEN: 'dev-admin-token-change-me',
      // A receiver on this machine is the usual first webhook in development.
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128',
      ...process.env,
      MONGODB_URI: process.env.MONGODB_URI ? servers.mongodbUri : withDbName(servers.mongodbUri, `coupons_dev_${Date.now()}`),
      REDIS_URL: servers.redisUrl,
    });
    const db = await connectDatabase(config.mongodbUri!);
    stops.push(() => db.close());
    const services = createServices(config, db, logger);
    await services.changes.start();
    stops.push(() => services.changes.close());
    const side = await startWorkerSide(config, logger, services, { operations: true });
    stops.push(() => side.close());
    const { jobs, metrics } = await startApiQueues(services, logger, side.webhooks.queue, side.backtests);
    stops.push(() => jobs.close());
    stops.push(() => side.stopTaking());
    const demo = await loadDemoData(services, (line) => logger.info(`demo data: ${line}`));
    const owner = await devOwner(services);
    // Before the app: the console router serves what console/dist holds when it is built.
    const consoleBuild = buildConsoleIfStale((line) => logger.info(line));
    app = buildApp({ services, logger, jobs, metrics, webhooks: side.webhooks.queue, backtests: side.backtests });
    const auth = Buffer.from(`${demo.apiKey}:${demo.secret}`).toString('base64');
    process.stdout.write(
      [
        '',
        `coupon service (dev) on http://localhost:${port}`,
        `  API key: ${demo.apiKey}`,
        `  secret:  ${demo.secret}`,
        `  admin:   Bearer ${config.adminToken}   (docs: /docs, queues: /admin/queues)`,
        consoleBuild.state === 'missing'
          ? `  console: ${consoleBuild.why}`
          : `  console: http://localhost:${port}/console   sign in as ${owner.email} / ${owner.password}`,
        '',
        `  curl -s -X POST http://localhost:${port}/coupons/list/all -H 'authorization: Basic ${auth}' -H 'content-type: application/json' -d '{"source_id":"cust_1"}'`,
        '',
      ].join('\n'),
    );
  } catch (err) {
    process.stderr.write(`npm run dev: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
    await stopAll();
    process.exit(1);
  }
}

/** An owner to sign in to the console with: made with a random password, printed once. */
async function devOwner(services: ReturnType<typeof createServices>): Promise<{ email: string; password: string }> {
  const email = 'owner@example.com';
  const password = randomBytes(12).toString('base64url');
  try {
    await createOperator(services, { email, name: 'Dev owner', role: 'owner', password });
    return { email, password };
  } catch (err) {
    // MONGODB_URI named a database where it exists: its password was printed when it was made.
    if (!(err instanceof DomainError && err.kind === 'conflict')) throw err;
    return { email, password: '(the password printed when it was made)' };
  }
}

main().catch((err) => {
  process.stderr.write(`npm run dev failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
