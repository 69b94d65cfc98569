/**
 * The console's one way to the service: the typed client (@coupons/client, generated from
 * openapi.yaml) in its browser-session form. The session cookie is the browser's; the CSRF token
 * answered at sign-in is kept in this tab's sessionStorage, so a reload keeps the session and
 * another tab signs in on its own.
 */
import { createSessionAdminClient, type Schemas } from '@coupons/client';

const CSRF_KEY = 'coupons.csrf';

export const csrf = {
  get: (): string | null => sessionStorage.getItem(CSRF_KEY),
  set: (token: string | null) => (token ? sessionStorage.setItem(CSRF_KEY, token) : sessionStorage.removeItem(CSRF_KEY)),
};

export const admin = createSessionAdminClient({ baseUrl: window.location.origin, csrfToken: csrf.get, retry: false });

/** The admin API's error body (docs/admin-api.md): `details` says what, `fields` which input. */
export interface ApiError {
  code: number;
  message: string;
  details?: string;
  fields?: Record<string, string>;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError,
  ) {
    super(body.details ?? body.message);
  }
}

/** The data of an answer, or an ApiFailure carrying the documented error body. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  const body = (error ?? { code: response.status, message: response.statusText }) as ApiError;
  throw new ApiFailure(response.status, body);
}

export type Role = Schemas['OperatorRole'];
export type Application = Schemas['AdminApplication'];
export type Campaign = Schemas['AdminCampaign'];
export type CampaignUsage = Schemas['CampaignUsage'];
export type CampaignResults = Schemas['CampaignResults'];
export type ApplicationResults = Schemas['ApplicationResults'];
export type AuditEntry = Schemas['AuditEntry'];
export type CartExplanation = Schemas['CartExplanation'];
export type Redemption = Schemas['AdminRedemption'];
export type Webhook = Schemas['AdminWebhook'];
export type Delivery = Schemas['AdminDelivery'];
export type Wallet = Schemas['AdminWallet'];
/** A backtest: a campaign, a change to one or a draft replayed on recorded carts (docs/console.md "Backtests"). */
export type Backtest = Schemas['Backtest'];
/** One ledger entry: `bucket` says what it did to pending or expiring points (docs/wallets.md). */
export type LedgerEntry = Schemas['AdminLedger']['entries'][number];

/**
 * Every row of a paged admin listing: `page(cursor)` read from the first page until its
 * `next_cursor` is null; `progress` is told the rows read so far after each page.
 */
export async function everyPage<P extends { next_cursor?: string | null }, T>(
  page: (cursor: string | undefined) => Promise<P>,
  rowsOf: (page: P) => T[],
  progress?: (read: number) => void,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const p = await page(cursor);
    all.push(...rowsOf(p));
    progress?.(all.length);
    cursor = p.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/** What went wrong, for an error line: the API's details, or the exception's text. */
export const problemOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What the signed-in operator may do: the pages hide what the API would refuse anyway. */
export interface Who {
  email: string | null;
  role: Role;
  canChange: boolean;
}
