import type { ErrorRequestHandler, RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import { bodyTooDeep, dependencyUnavailable, operationUnavailable } from '../../shared/client-errors.js';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The key of the operation this request is queueing (set just before it is queued). */
    queuedOperation?: string;
  }
}

/** Deepest JSON body accepted: the contract's deepest is metadata inside items (about 5). */
export const MAX_BODY_DEPTH = 64;

/** Depth of a parsed JSON value, without recursion (a hostile body cannot overflow the stack). */
export function depthOf(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, d);
    if (deepest > max) return deepest;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

/** 400 for a body nested deeper than {@link MAX_BODY_DEPTH}, before any route walks it. */
export const limitBodyDepth: RequestHandler = (req, _res, next) => {
  next(depthOf(req.body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH ? bodyTooDeep(MAX_BODY_DEPTH) : undefined);
};

/**
 * A bound on every client request: if no answer is ready after `ms` (a dependency hanging
 * without an error), answer 503 through `answer` (the error handler) and drop the late result.
 * The 503 tells the truth: before the request queued its operation, nothing was applied and
 * nothing will be (routes/queued-operation.ts sets `queuedOperation` as it queues); after, the operation may apply and the 503 names
 * its key. It answers directly rather than through `next`: Express's `next` of a request is one
 * cursor, and moving it past the routes here would send the late route's own error to the final
 * handler, which destroys the socket — by then perhaps carrying the client's next request.
 */
export function answerWithin(ms: number, answer: ErrorRequestHandler): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      const errorId = randomUUID();
      req.log?.warn({ errorId, ms }, 'no answer in time');
      const queued = res.locals.queuedOperation;
      answer(queued ? operationUnavailable('pending', queued, errorId) : dependencyUnavailable(errorId), req, res, () => undefined);
    }, ms);
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
