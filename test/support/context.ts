/**
 * Test context: one database connection per mocha process (its own database name), a real HTTP
 * server on a free port, and factories for applications with credentials. Each test creates its
 * own application, so files and tests can run in any order.
 */
import type { Metrics } from '../../shared/ops/metrics.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { buildApp } from '../../api/app.js';
import { startApiQueues } from '../../api/queues.js';
import { createHttpServer, listen } from '../../api/http-server.js';
import { withDbName } from '../../scripts/embedded-servers.js';
import { atTheEnd, ensureInfra } from './hooks.js';
import { parseConfig, type Config } from '../../shared/config.js';
import { connectDatabase, type Database } from '../../shared/data/db.js';
import { createLogger } from '../../shared/logger.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { WebhookQueue } from '../../shared/queue/webhook-queue.js';
import { startWorkerSide } from '../../worker/worker-side.js';
import { BacktestQueue } from '../../shared/queue/backtest-queue.js';
import { createServices, type Services } from '../../shared/services.js';
import { createApplication } from '../../shared/usecases/admin/create-application.usecase.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
export const TEST_DB_NAME = `coupons_test_${process.pid}`;
/** Each mocha process owns its BullMQ keys. */
export const TEST_QUEUE_PREFIX = `coupons-test-${process.pid}`;

let dbPromise: Promise<Database> | undefined;

export function testConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  return parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // A caller's own database (a chaos scenario's private one) needs no shared one started.
    MONGODB_URI: overrides.MONGODB_URI ?? testMongoUri(),
    REDIS_URL: process.env.REDIS_URL,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CACHE_CHECK_MS: '200',
    QUEUE_PREFIX: TEST_QUEUE_PREFIX,
    QUEUE_PARTITIONS: '4',
    // Bursts of hundreds of queued operations on the FerretDB stand-in can take longer than the
    // production default (10 s); a 503 here would be a slow machine, not a defect.
    JOB_WAIT_TIMEOUT_MS: '60000',
    // An app built in the test's own process shares its event loop with the test (hundreds of
    // clients, property runs): that loop's lateness is the test's, not the API's. Shedding is
    // tested where the API has a process of its own (test/chaos/starved-api.spec.ts).
    SHED_LATENESS_MS: '0',
    ...overrides,
  });
}

/** The URI of this test process's own database (also handed to spawned worker processes). */
export const testMongoUri = () => withDbName(process.env.MONGODB_URI!, TEST_DB_NAME);

export function testDatabase(): Promise<Database> {
  dbPromise ??= ensureInfra().then(async () => {
    const db = await connectDatabase(testMongoUri(), { monitorCommands: true });
    atTheEnd(async () => {
      await db.connection.dropDatabase();
      await db.close();
    });
    return db;
  });
  return dbPromise;
}

export async function testServices(overrides: NodeJS.ProcessEnv = {}): Promise<Services> {
  const db = await testDatabase();
  return createServices(testConfig(overrides), db);
}

export interface TestApi {
  url: string;
  services: Services;
  jobs: JobGateway;
  metrics: Metrics;
  webhooks: WebhookQueue;
  close(): Promise<void>;
}

/**
 * A real API on a free port with its queue gateway and webhook queue; by default also an
 * in-process worker pool and delivery pool (real BullMQ workers on the same Redis). Tests of
 * crashes and replicas spawn worker processes instead (test/support/worker-process.ts) and pass
 * `{ inProcessWorker: false }`.
 */
export async function startTestApi(overrides: NodeJS.ProcessEnv = {}, opts: { inProcessWorker?: boolean } = {}): Promise<TestApi> {
  const services = await testServices(overrides);
  const logger = createLogger(services.config, 'api-test');
  await services.changes.start();
  const webhooks = new WebhookQueue(services.config);
  await webhooks.waitUntilReady();
  const backtestQueue = new BacktestQueue(services.config);
  const { jobs, metrics } = await startApiQueues(services, logger, webhooks, backtestQueue);
  // The expiry sweep only where a test asks for it (by setting EXPIRY_SWEEP_MS): its periodic read
  // of wallet_balances would land among the commands other tests count (round trips, shard keys).
  const worker =
    opts.inProcessWorker === false
      ? null
      : await startWorkerSide(services.config, logger, services, { operations: true, expiry: Boolean(overrides.EXPIRY_SWEEP_MS) });
  const app = buildApp({ services, logger, jobs, metrics, webhooks, backtests: backtestQueue });
  const server: Server = await listen(createHttpServer(app, services.config), 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    jobs,
    metrics,
    webhooks,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker?.stopTaking();
      await backtestQueue.close();
      await worker?.close();
      await jobs.close();
      await webhooks.close();
      await services.tally.close();
      await services.carts.close();
      await services.changes.close();
    },
  };
}

/**
 * Mocha hooks for a suite: a test API (see {@link startTestApi}) started before its tests and
 * closed after them. Returns a getter, valid inside the tests.
 */
export function useTestApi(overrides: NodeJS.ProcessEnv = {}, opts: { inProcessWorker?: boolean } = {}): () => TestApi {
  let api: TestApi | undefined;
  before(async () => {
    api = await startTestApi(overrides, opts);
  });
  after(async () => {
    await api?.close();
  });
  return () => api!;
}

export interface TestApplication {
  id: string;
  apiKey: string;
  secret: string;
  /** `Basic …` header value. */
  auth: string;
}

let seq = 0;
export async function createTestApplication(
  services: Services,
  overrides: { timezone?: string; currency?: string } = {},
): Promise<TestApplication> {
  const { application, apiKey, secret } = await createApplication(services, {
    name: `test-app-${process.pid}-${++seq}`,
    timezone: overrides.timezone ?? 'Asia/Kolkata',
    currency: overrides.currency ?? 'INR',
  });
  return { id: application.id, apiKey, secret, auth: `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}` };
}

/** fetch + JSON with the given auth; returns status, headers and the parsed body (or text). */
export async function call(
  url: string,
  method: string,
  path: string,
  opts: { auth?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth) headers.authorization = opts.auth;
  let body: string | undefined;
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: res.status, headers: res.headers, body: json as any, text };
}
