/**
 * The admin API over real HTTP for tests: `admin(method, path, body?)` under `/admin`, a new
 * application with its credentials, and the client routes with those credentials.
 */
import { expect } from 'chai';
import { call, TEST_ADMIN_TOKEN, type TestApi } from './context.js';

export const ADMIN_HEADERS = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

export interface AdminApp {
  id: string;
  api_key: string;
  secret: string;
  timezone: string;
  currency: string | null;
}

/**
 * Every page of an admin listing, following `next_cursor` from `first`. The end is proven by
 * progress, not by a page count: a page followed by another must bring at least one item not
 * seen on an earlier page, so a listing of N items ends within N pages or fails here, however
 * many items other tests left in the same database.
 */
export async function everyPage<T>(fetchPage: (cursor: string | null) => Promise<{ items: T[]; next: string | null }>): Promise<T[][]> {
  const out: T[][] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await fetchPage(cursor);
    out.push(page.items);
    const fresh = page.items.map((x) => JSON.stringify(x)).filter((k) => !seen.has(k));
    fresh.forEach((k) => seen.add(k));
    if (page.next !== null) expect(fresh.length, `pages never end: page ${out.length} brought nothing new`).to.be.above(0);
    cursor = page.next;
  } while (cursor !== null);
  return out;
}

/** Longer than the tests' CACHE_CHECK_MS (200): configuration changes have reached every cache. */
export const settle = () => new Promise((r) => setTimeout(r, 400));

export function adminHelpers(api: () => TestApi) {
  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = ADMIN_HEADERS) =>
    call(api().url, method, `/admin${path}`, { headers, ...(body === undefined ? {} : { body }) });
  const basic = (app: Pick<AdminApp, 'api_key' | 'secret'>) => `Basic ${Buffer.from(`${app.api_key}:${app.secret}`).toString('base64')}`;
  /** A client route called with the application's credentials. */
  const client = (app: Pick<AdminApp, 'api_key' | 'secret'>, method: string, path: string, body?: unknown) =>
    call(api().url, method, path, { auth: basic(app), ...(body === undefined ? {} : { body }) });
  async function newApp(body: Record<string, unknown> = { name: 'Shop', timezone: 'Asia/Kolkata', currency: 'INR' }): Promise<AdminApp> {
    const res = await admin('POST', '/applications', body);
    expect(res.status, res.text).to.equal(201);
    return res.body as AdminApp;
  }
  /** Sends an admin request that must succeed (2xx); returns its body. */
  async function must(method: string, path: string, body?: unknown) {
    const res = await admin(method, path, body);
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 299);
    return res.body;
  }
  return { admin, basic, client, newApp, must };
}
