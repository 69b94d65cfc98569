/**
 * Test context: one database connection per mocha process (its own database name), a real HTTP
 * server on a free port, and factories for applications with credentials. Each test creates its
 * own application, so files and tests can run in any order.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { buildApp } from '../../api/app.js';
import { parseConfig, type Config } from '../../shared/config.js';
import { connectDatabase, type Database } from '../../shared/data/db.js';
import { createLogger } from '../../shared/logger.js';
import { createServices, type Services } from '../../shared/services.js';
import { createApplication } from '../../shared/usecases/admin/create-application.usecase.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
export const TEST_DB_NAME = `coupons_test_${process.pid}`;

let dbPromise: Promise<Database> | undefined;

export function testConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  return parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    MONGODB_URI: process.env.MONGODB_URI,
    REDIS_URL: process.env.REDIS_URL,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CACHE_CHECK_MS: '200',
    ...overrides,
  });
}

export function testDatabase(): Promise<Database> {
  dbPromise ??= connectDatabase(process.env.MONGODB_URI!, TEST_DB_NAME);
  return dbPromise;
}

export async function testServices(overrides: NodeJS.ProcessEnv = {}): Promise<Services> {
  return createServices(testConfig(overrides), await testDatabase());
}

export interface TestApi {
  url: string;
  services: Services;
  close(): Promise<void>;
}

export async function startTestApi(overrides: NodeJS.ProcessEnv = {}): Promise<TestApi> {
  const services = await testServices(overrides);
  const app = buildApp({ services, logger: createLogger(services.config, 'api-test') });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface TestApplication {
  id: string;
  apiKey: string;
  secret: string;
  /** `Basic …` header value. */
  auth: string;
}

let seq = 0;
export async function createTestApplication(services: Services, overrides: { timezone?: string; currency?: string } = {}): Promise<TestApplication> {
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
