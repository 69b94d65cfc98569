/**
 * Typed client of the coupon and wallet service.
 *
 * The types are generated from the service's `openapi.yaml` by openapi-typescript into
 * `schema.ts` (`npm run generate`; `npm run check:generated` fails when they drift), and the
 * requests go through openapi-fetch: every path, parameter, body and answer is checked by the
 * compiler against the spec, and nothing here restates a field by hand.
 *
 * - {@link createCouponsClient}: the five client routes, with an application's API key and secret.
 * - {@link createAdminClient}: the admin API, with the service's admin token.
 *
 * Both retry what the service asks to be retried (a 503: the operation is queued and will be
 * applied once) the way it advises: the same request again, with the same `Idempotency-Key`, after
 * a growing pause. Redeem, revert and wallet updates get an `Idempotency-Key` of their own when the
 * caller sends none, so a retry can never apply an operation twice.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS, retryPauseMs } from './retry.js';

export type { components, operations, paths };
export { retryPauseMs, type RetryPause } from './retry.js';
/** Every schema of the spec by name, e.g. `Schemas['CouponResult']`. */
export type Schemas = components['schemas'];

/**
 * The campaign format's lists (docs/campaigns.md), each the `enum` of the spec's schema of that
 * name, in the spec's order — e.g. `discountBaseValues` holds every `Schemas['DiscountBase']`.
 * Generated with the types (openapi-typescript's `--enum-values`): what a form offers.
 */
export {
  cartConditionFieldValues,
  conditionOperatorValues,
  discountBaseValues,
  itemConditionFieldValues,
  limitKeyValues,
  metadataScopeValues,
  metadataTypeValues,
  selectedItemsFieldValues,
  selectorMatchValues,
  selectorOperatorValues,
  selectorPropertyValues,
} from './schema.js';

/** The five client routes and the application's own customer upsert (HTTP Basic: the application's API key and secret). */
export type ClientPaths = Pick<
  paths,
  | '/coupons/list/all'
  | '/coupons/validate'
  | '/coupons/apply'
  | '/wallets/customer/{source_id}'
  | '/wallets/customer/{source_id}/transactions/{wallet_id}'
  | '/customers/{source_id}'
>;
/** The admin API (`Authorization: Bearer <ADMIN_TOKEN>`). */
export type AdminPaths = { [P in keyof paths as P extends `/admin/${string}` ? P : never]: paths[P] };

export type CouponsClient = Client<ClientPaths>;
export type AdminClient = Client<AdminPaths>;

/** How {@link retryingFetch} retries. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 5; 1 turns retries off. */
  attempts?: number;
  /** The pause before the first retry, in ms; it doubles at each retry (full jitter). Default 200. */
  baseDelayMs?: number;
  /** The longest pause, in ms (a `Retry-After` header may ask for more). Default 5000. */
  maxDelayMs?: number;
  /** Statuses that are retried. Default 502, 503 and 504. */
  statuses?: readonly number[];
  /** Hears each retry before its pause: the attempt about to run (2 for the first retry). */
  onRetry?: (retry: { attempt: number; status: number; delayMs: number; request: Request }) => void | Promise<void>;
}

export interface ServiceClientOptions {
  /** Where the service answers, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Retries of 502/503/504 (see {@link RetryOptions}); `false` for none. */
  retry?: RetryOptions | false;
  /** The fetch to send requests with (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

/** The routes whose operations are queued and applied once: they take an `Idempotency-Key`. */
const KEYED_ROUTES: readonly string[] = ['/coupons/apply', '/wallets/customer/{source_id}/transactions/{wallet_id}'];

/**
 * Gives redeem, revert and wallet updates an `Idempotency-Key` when the caller sent none, so that
 * a retry of the same request is recognised by the service and never applied twice. Send your own
 * key to make a retry of yours (after a crash, say) safe as well.
 */
export const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (KEYED_ROUTES.includes(schemaPath) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    }
    return request;
  },
};

/**
 * Whether repeating `request` cannot apply anything twice: reads (GET, list, validate), anything
 * carrying an `Idempotency-Key`, and apply (idempotent per order and coupon). Other admin writes
 * are never retried.
 */
function isSafeToRepeat(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key')) return true;
  const path = new URL(request.url).pathname;
  return (
    request.method === 'POST' &&
    (path.endsWith('/coupons/list/all') || path.endsWith('/coupons/validate') || path.endsWith('/coupons/apply'))
  );
}

/** `Retry-After` in ms (seconds or an HTTP date), or undefined. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * A fetch that sends the same request again — same body, same headers, same `Idempotency-Key` —
 * when the service answers one of `statuses`, after a pause that doubles each time (full jitter,
 * capped; at least what `Retry-After` asks). Requests that are not safe to repeat are sent once.
 * The last answer is returned whatever it is.
 */
export function retryingFetch(
  options: RetryOptions = {},
  send: (input: Request) => Promise<Response> = (input) => globalThis.fetch(input),
): (input: Request) => Promise<Response> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const statuses = options.statuses ?? [502, 503, 504];
  return async (request) => {
    if (attempts === 1 || !isSafeToRepeat(request)) return send(request);
    // A body can be read once: keep a pristine copy to clone for every attempt.
    const original = request.clone();
    for (let attempt = 1; ; attempt++) {
      const response = await send(attempt === 1 ? request : original.clone());
      if (attempt >= attempts || !statuses.includes(response.status)) return response;
      const delayMs = retryPauseMs({ attempt, baseDelayMs, maxDelayMs, retryAfterMs: retryAfterMs(response) });
      await response.body?.cancel();
      await options.onRetry?.({ attempt: attempt + 1, status: response.status, delayMs, request: original });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  };
}

function fetchOf(options: ServiceClientOptions) {
  return options.retry === false ? options.fetch : retryingFetch(options.retry ?? {}, options.fetch);
}

/**
 * A client of the five client routes for one application.
 *
 * ```ts
 * const coupons = createCouponsClient({ baseUrl, apiKey, secret });
 * const { data, error } = await coupons.POST('/coupons/validate', { body: { coupon_details: [{ coupon_code: 'WELCOME10' }] } });
 * ```
 */
export function createCouponsClient(options: ServiceClientOptions & { apiKey: string; secret: string }): CouponsClient {
  const fetch = fetchOf(options);
  const client = createClient<ClientPaths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Basic ${btoa(`${options.apiKey}:${options.secret}`)}` },
    ...(fetch ? { fetch } : {}),
  });
  client.use(idempotencyKeys);
  return client;
}

/** A client of the admin API (`/admin/…`), authenticated with the service's `ADMIN_TOKEN`. */
export function createAdminClient(options: ServiceClientOptions & { adminToken: string }): AdminClient {
  const fetch = fetchOf(options);
  return createClient<AdminPaths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.adminToken}` },
    ...(fetch ? { fetch } : {}),
  });
}

/**
 * A client of the admin API for a page in a browser signed in as an operator (`POST
 * /admin/sessions`): the browser sends the session cookie itself (same origin), and every request
 * that changes something carries the session's CSRF token in `X-CSRF-Token` (docs/admin-api.md,
 * "Sessions"). `csrfToken` is read at each request, so a sign-in or sign-out takes effect at once.
 */
export function createSessionAdminClient(options: ServiceClientOptions & { csrfToken: () => string | null }): AdminClient {
  const fetch = fetchOf(options);
  const client = createClient<AdminPaths>({
    baseUrl: options.baseUrl,
    credentials: 'same-origin',
    ...(fetch ? { fetch } : {}),
  });
  client.use({
    onRequest({ request }) {
      const token = options.csrfToken();
      if (token && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) request.headers.set('x-csrf-token', token);
      return request;
    },
  });
  return client;
}

/**
 * Every item of a paged admin listing, following `next_cursor` page after page.
 *
 * ```ts
 * for await (const c of allPages((cursor) => admin.GET('/admin/applications/{app}/customers', { params: { path: { app }, query: { cursor } } }), 'customers')) …
 * ```
 */
export async function* allPages<K extends string, T>(
  fetchPage: (cursor: string | undefined) => Promise<{ data?: { [key in K]: T[] } & { next_cursor: string | null }; error?: unknown }>,
  key: K,
): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const { data, error } = await fetchPage(cursor);
    if (!data) throw new Error(`listing failed: ${JSON.stringify(error)}`);
    yield* data[key];
    cursor = data.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/** Why a coupon is not applicable or a request was refused: a stable name (docs/reasons.md). */
export type Reason = Schemas['Reason'];

/**
 * The `Coupon-Reason` of an answer (every refusal of a client route; a validate whose coupon is
 * not applicable), or null. Pass `response` from openapi-fetch's result:
 * `const { data, error, response } = await coupons.POST('/coupons/validate', …); reasonOf(response)`.
 */
export function reasonOf(response: Response): Reason | null {
  return (response.headers.get('coupon-reason') as Reason | null) ?? null;
}

/**
 * The reasons of a list's coupons that are not applicable, by `coupon_code_id` (the
 * `Coupon-Reasons` header). `complete` is false when the service left entries out to keep the
 * header small; those coupons still carry their `message`.
 */
export function listReasons(response: Response): { reasons: Map<string, Reason>; complete: boolean } {
  const reasons = new Map<string, Reason>();
  for (const entry of (response.headers.get('coupon-reasons') ?? '').split(',')) {
    const at = entry.lastIndexOf('=');
    if (at > 0) reasons.set(entry.slice(0, at).trim(), entry.slice(at + 1).trim() as Reason);
  }
  return { reasons, complete: response.headers.get('coupon-reasons-truncated') !== '?1' };
}

/** The rate limit an answer reports (docs/rate-limits.md), or null when the application has none. */
export interface RateLimitState {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  /** On a 429: seconds to wait before sending again. */
  retryAfterSeconds: number | null;
}

export function rateLimitOf(response: Response): RateLimitState | null {
  const limit = response.headers.get('ratelimit-limit');
  if (limit === null) return null;
  const retryAfter = response.headers.get('retry-after');
  return {
    limit: Number(limit),
    remaining: Number(response.headers.get('ratelimit-remaining') ?? 0),
    resetSeconds: Number(response.headers.get('ratelimit-reset') ?? 0),
    retryAfterSeconds: response.status === 429 && retryAfter !== null ? Number(retryAfter) : null,
  };
}
