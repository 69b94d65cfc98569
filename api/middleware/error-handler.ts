import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isDomainError } from '../../shared/errors.js';
import { isTransient } from '../../shared/data/transient.js';
import { bodyTooLarge, dependencyUnavailable, invalidJson, operationUnavailable } from '../../shared/client-errors.js';
import { sendRefusal } from '../answers.js';

/** Unknown routes: plain text like the original (docs/decisions.md#9), e.g. `Cannot GET /wallets/customer`. */
export const notFoundRoute: RequestHandler = (req, res) => {
  res
    .status(404)
    .type('text/plain')
    .send(`Cannot ${req.method} ${req.originalUrl.split('?')[0]}`);
};

/**
 * Errors thrown on the way to an answer: domain errors are answered as refusals (api/answers.ts);
 * body-parser failures are client errors; a database or Redis that cannot be reached is a 503.
 * Anything else is logged with an error id and answered without internals.
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
    if (isTransient(error)) {
      // The database (or Redis) cannot be reached or keeps refusing: a 503 with an error id, never
      // its text. Once the request queued its operation, the 503 names the operation's key: it
      // may apply, and a retry without the key could apply it twice.
      const errorId = randomUUID();
      req.log?.warn({ err, errorId }, 'dependency unavailable');
      const queued = res.locals.queuedOperation;
      error = queued ? operationUnavailable('pending', queued, errorId) : dependencyUnavailable(errorId);
    }
    if (isDomainError(error)) return sendRefusal(req, res, error);
    const errorId = randomUUID();
    req.log?.error({ err, errorId }, 'unexpected error');
    res.status(500).json({ code: 500, message: 'internal error', details: `error id ${errorId}`, request_id: String(req.id ?? '') });
  };
}
