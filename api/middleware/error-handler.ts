import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isDomainError, reasonOf, type ErrorKind } from '../../shared/errors.js';
import { isTransient } from '../../shared/data/transient.js';
import { operationUnavailable } from '../../shared/queue/gateway.js';
import { bodyTooLarge, dependencyUnavailable, invalidJson } from '../contract-errors.js';
import { setReason } from '../reason-headers.js';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

/** Unknown routes: plain text like the original (docs/decisions.md#9), e.g. `Cannot GET /wallets/customer`. */
export const notFoundRoute: RequestHandler = (req, res) => {
  res
    .status(404)
    .type('text/plain')
    .send(`Cannot ${req.method} ${req.originalUrl.split('?')[0]}`);
};

/**
 * The one place that turns errors into HTTP: domain kinds → status + contract Error object.
 * Body-parser failures are client errors. Anything else is logged with an error id and answered
 * without internals.
 */
export function errorHandler(bodyLimit: string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    // Already answered (a deadline passed before the route's late result): nothing to send.
    if (res.headersSent) return;
    let error = err;
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') error = invalidJson((err as Error).message);
    else if (type === 'entity.too.large') error = bodyTooLarge(bodyLimit);
    else if (typeof (err as { status?: number }).status === 'number' && (err as { status: number }).status < 500 && !isDomainError(err)) {
      // Other body-parser refusals (charset, encoding, ...): a client error, never a 5xx.
      error = invalidJson((err as Error).message);
    }
    const requestId = String(req.id ?? '');
    if (isTransient(error)) {
      // The database (or Redis) cannot be reached or keeps refusing: a 503 with an error id, never
      // its text. Once the request queued its operation, the 503 names the operation's key: it
      // may apply, and a retry without the key could apply it twice.
      const errorId = randomUUID();
      req.log?.warn({ err, errorId }, 'dependency unavailable');
      const queued = res.locals.queuedOperation;
      error = queued ? operationUnavailable('pending', queued, errorId) : dependencyUnavailable(errorId);
    }
    if (isDomainError(error)) {
      const status = STATUS[error.kind];
      if (status === 503) res.setHeader('Retry-After', '1');
      // The reasons are the client routes' (docs/reasons.md); the admin API's bodies say their own.
      if (!req.path.startsWith('/admin')) setReason(res, reasonOf(error));
      res.status(status).json({
        code: error.extra.code ?? status,
        message: error.message,
        details: error.details,
        ...(error.extra.key !== undefined ? { key: error.extra.key } : {}),
        ...(error.extra.operationKey !== undefined ? { idempotency_key: error.extra.operationKey } : {}),
        ...(error.extra.applied === false ? { applied: false } : {}),
        ...(error.extra.fields !== undefined ? { fields: error.extra.fields } : {}),
        request_id: error.extra.requestId ?? requestId,
      });
      return;
    }
    const errorId = randomUUID();
    req.log?.error({ err, errorId }, 'unexpected error');
    res.status(500).json({ code: 500, message: 'internal error', details: `error id ${errorId}`, request_id: requestId });
  };
}
