/**
 * Every error body of the client routes, one constructor per message: the contract's strings
 * verbatim (openapi.yaml's error bodies, docs/decisions.md#6-14, #20a-22), quirks included —
 * clients written against the original service match on them. Use cases and middleware throw
 * them; the HTTP status is chosen from the error's kind where the answer is made
 * (api/answers.ts). `code` is set only where the contract's body `code` differs from that status.
 */
import { DomainError } from './errors.js';
import type { Reason, RefusalReason } from './reasons.js';

// --- Credentials and the request itself (every client route) -------------------------------------

/** The unauthorized body differs per endpoint in the original; docs/decisions.md#6 keeps each. */
export const unauthorizedFor = {
  list: () => new DomainError('unauthorized', 'unauthorized', 'appId or app secret invalid'),
  validate: () => new DomainError('unauthorized', 'Unathourized', 'appId or app secret invalid'),
  apply: () => new DomainError('unauthorized', 'Unathourized', 'app id or app secret invalid'),
  wallet: () => new DomainError('unauthorized', 'Unathourized', 'app id or app secret invalid'),
  // Beyond the contract (PUT /customers/:source_id): spelled correctly.
  customers: () => new DomainError('unauthorized', 'Unauthorized', 'app id or app secret invalid'),
  // Beyond the contract (POST /coupons/best-deal: docs/best-deal.md): spelled correctly.
  best_deal: () => new DomainError('unauthorized', 'Unauthorized', 'app id or app secret invalid'),
  // Beyond the contract (GET /gift-cards/:code: docs/gift-cards.md): spelled correctly.
  gift_cards: () => new DomainError('unauthorized', 'Unauthorized', 'app id or app secret invalid'),
} as const;
export type ClientRoute = keyof typeof unauthorizedFor;

/** A malformed request: `details` names what is wrong; `reason` the case when it is not a bare malformed payload. */
export const invalidPayload = (details: string, reason?: Reason) =>
  new DomainError('invalid', 'Invalid payload', details, reason ? { reason } : {});
export const invalidJson = (parseError: string) => invalidPayload(`invalid JSON: ${parseError}`);
export const bodyTooDeep = (max: number) => invalidPayload(`request body is nested deeper than ${max} levels`);
export const bodyNotObject = () => invalidPayload('the request body should be a JSON object');
export const bodyTooLarge = (limit: string) => new DomainError('too_large', 'Invalid payload', `request body is larger than ${limit}`);
/** A field of a wallet update, a customer upsert or the `Idempotency-Key` header: the body's `key` names it. */
export const invalidField = (key: string, details: string) => new DomainError('invalid', 'Invalid payload', details, { key });

export const rateLimited = (p: { requests: number; windowSeconds: number }, retryAfter: number) =>
  new DomainError(
    'rate_limited',
    'Too Many Requests',
    `this application may send ${p.requests} requests per ${p.windowSeconds} s; retry after ${retryAfter} s`,
    { reason: 'rate_limited' },
  );

/** A dependency (database, Redis) did not answer before anything was queued: nothing was applied. */
export const dependencyUnavailable = (errorId: string) =>
  new DomainError('unavailable', 'Service Unavailable', `a dependency is unavailable; retry later (error id ${errorId})`);

// --- Queued operations (apply, wallet updates) ----------------------------------------------------

export const idempotencyKeyReused = () =>
  new DomainError('conflict', 'Idempotency-Key reused', 'this Idempotency-Key was used with a different request', {
    key: 'Idempotency-Key',
  });

/**
 * How an operation stands when the API answers without its outcome: certainly not applied (its
 * job never reached the queue, or was withdrawn before any worker took it), or queued or running
 * (it will be applied at most once).
 */
export type Standing = 'not_applied' | 'pending';

/** The 503 of a queued operation, naming its key (never internal error text). */
export function operationUnavailable(standing: Standing, operationKey: string, errorId?: string): DomainError {
  const details =
    standing === 'not_applied'
      ? `the operation was not applied; retry the request (with the header Idempotency-Key: ${operationKey} to be safe)`
      : `the operation is queued or running and will be applied at most once; retry the request with the header Idempotency-Key: ${operationKey} to get its result`;
  return new DomainError('unavailable', 'Service Unavailable', errorId ? `${details} (error id ${errorId})` : details, {
    operationKey,
    applied: standing === 'not_applied' ? false : undefined,
  });
}

// --- List and validate (docs/decisions.md#12, #14) ------------------------------------------------

export const invalidSourceIdForList = () =>
  new DomainError('invalid', 'invalid_payload', 'invalid source_id', { reason: 'unknown_customer' });
export const validateCouponNotFound = (reason: 'coupon_missing' | 'coupon_not_found' = 'coupon_not_found') =>
  new DomainError('invalid', 'coupon validation failed', 'coupon not found, invalid coupon code or coupon id', { reason });
export const loginRequired = () =>
  new DomainError('invalid', 'Invalid source_id', 'please login/signup to redeem the coupon code', { reason: 'login_required' });
/**
 * Validate and apply: more entries in `coupon_details` than the application takes — the held
 * answer to a second entry (docs/decisions.md#14) unless it opted in to stacking (docs/stacking.md).
 */
export const tooManyCoupons = (max = 1) =>
  invalidPayload(
    max <= 1 ? 'only one coupon can be applied per request' : `at most ${max} coupons can be applied per request`,
    'only_one_coupon',
  );

// --- Best deal (docs/best-deal.md) ------------------------------------------------------------------

/** The best deal is asked of an application that does not stack: there is nothing to combine. */
export const stackingNotEnabled = () => invalidPayload('best deal needs stacking (docs/stacking.md)', 'stacking_not_enabled');
/** The best deal's `order` is missing, or not an object. */
export const orderRequired = () => invalidPayload('order is required');

// --- Apply (docs/decisions.md#14, #17, #20a, #20b) ------------------------------------------------

export const invalidQueryType = () =>
  new DomainError('invalid', 'Invalid query param', 'type should be redeem or revert', { reason: 'invalid_type' });
export const invalidSourceId = () => invalidPayload('Invalid source_id', 'unknown_customer');
export const couponMissing = () =>
  new DomainError('invalid', 'coupon_code or coupon_id is missing', 'coupon id or coupon code is required', { reason: 'coupon_missing' });
export const couponNotFound = () =>
  new DomainError('invalid', 'Invalid coupon code or coupon id', 'coupon not found, invalid coupon code or coupon id', {
    reason: 'coupon_not_found',
  });
export const noRedemption = () => invalidPayload('no redemption found for this order and coupon', 'no_redemption');
export const orderOfAnotherCustomer = () =>
  invalidPayload('order_id is already redeemed with this coupon by another customer', 'order_of_another_customer');
/** docs/decisions.md#20a: a failed rule or an exhausted limit. */
export const validationFailed = (details: string, reason: RefusalReason) =>
  new DomainError('invalid', 'coupon validation failed', details, { reason });
/** The selected-items case keeps the documented tray message as `message`. */
export const trayFailed = (tray: string) => new DomainError('invalid', tray, tray, { reason: 'selection' });
/** A redeem's refusal by the engine (a rule or a limit), as the worker and the API answer it. */
export const refusalOf = (reason: RefusalReason, message: string): DomainError =>
  reason === 'selection' ? trayFailed(message) : validationFailed(message, reason);

// --- Wallets (docs/decisions.md#10, #21, #22) -----------------------------------------------------

export const customerNotFound = () =>
  new DomainError('not_found', 'resource not found', 'customer not found', { reason: 'customer_not_found' });
export const walletNotFound = () => new DomainError('not_found', 'resource not found', 'wallet not found', { reason: 'wallet_not_found' });
/** The contract answers a wallet update without `type` with body code 401 (on a 400). */
export const typeMissing = () =>
  new DomainError('invalid', 'type field is required', 'type field is required', { code: 401, key: 'type', reason: 'type_missing' });
export const payloadEmpty = () => invalidField('invalid_payload', 'The payload cannot be empty');
export const insufficientPoints = (balance: number, requested: number) =>
  new DomainError('invalid', 'insufficient points', `balance is ${balance}, requested ${requested}`, {
    key: 'points',
    reason: 'insufficient_points',
  });

// --- Customers (docs/customers.md) ----------------------------------------------------------------

export const customerArchived = () =>
  new DomainError('conflict', 'customer archived', 'this customer is archived: an operator can unarchive it (admin API)', {
    reason: 'customer_archived',
  });

// --- Gift cards (docs/gift-cards.md) ---------------------------------------------------------------

export const giftCardNotFound = () =>
  new DomainError('not_found', 'resource not found', 'gift card not found', { reason: 'gift_card_not_found' });
export const storeCreditNotFound = () =>
  new DomainError('not_found', 'resource not found', 'store credit not found', { reason: 'store_credit_not_found' });
