/**
 * The one domain error type. Only `api/` maps kinds to HTTP status and contract bodies; only
 * `worker/` decides what is retried. Never classify an error by its message text.
 */
import type { Reason } from './reasons.js';

export type ErrorKind =
  | 'invalid' // bad input: 400
  | 'unauthorized' // bad credentials: 401
  | 'forbidden' // good credentials, not allowed to do this (an operator's role): 403
  | 'not_found' // unknown customer or wallet on wallet routes: 404
  | 'conflict' // idempotency key reused with another body: 409
  | 'too_large' // body over the limit: 413
  | 'rate_limited' // the application's rate limit is reached: 429
  | 'unavailable'; // the queued job did not finish in time, or a dependency is down: 503

/**
 * A failure whose `message`/`details` are the contract's strings, copied verbatim.
 * `code` is the body `code` when the contract fixes it (e.g. 401 for a wallet update without `type`).
 */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: string,
    /**
     * `code`/`key`: body fields; `reason`: the stable name of the case (shared/domain/reasons.ts),
     * sent in the `Coupon-Reason` header and counted in metrics, never in the body;
     * `operationKey`: on a 503 of a queued operation, the key to retry with (`idempotency_key`);
     * `applied: false` when the operation certainly was not applied.
     */
    readonly extra: DomainErrorExtra = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export interface DomainErrorExtra {
  code?: number | string;
  key?: string;
  reason?: Reason;
  operationKey?: string;
  applied?: false;
  /** The request that first gave this answer: a refusal replayed for an `Idempotency-Key` keeps its `request_id`. */
  requestId?: string;
  /** The admin API's 400s: each bad input's path (`discount.value`, `codes.3`) and what is wrong with it. */
  fields?: Record<string, string>;
}

export const isDomainError = (err: unknown): err is DomainError => err instanceof DomainError;

/** The reason of a refusal: its own, or the one its kind implies (every answer of a client route has one). */
export function reasonOf(error: Pick<DomainError, 'kind' | 'extra'>): Reason {
  if (error.extra.reason) return error.extra.reason;
  switch (error.kind) {
    case 'unauthorized':
      return 'invalid_credentials';
    case 'conflict':
      return 'idempotency_conflict';
    case 'too_large':
      return 'body_too_large';
    case 'rate_limited':
      return 'rate_limited';
    case 'unavailable':
      return 'unavailable';
    default:
      return 'invalid_payload';
  }
}
