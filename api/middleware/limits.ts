import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Counter } from 'prom-client';
import { randomUUID } from 'node:crypto';
import { bodyTooDeep, dependencyUnavailable, operationUnavailable } from '../../shared/client-errors.js';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The key of the operation this request is queueing (set just before it is queued). */
    queuedOperation?: string;
    /**
     * Aborted once nobody waits for this request's own answer any more: its deadline answered it
     * ({@link answerWithin}), or its client closed the connection first. Work not yet begun for it
     * is dropped (routes/queued-operation.ts): it would spend what the requests still waiting need.
     */
    abandoned?: AbortSignal;
    /** Set on a queued operation this process is too late to take on ({@link shedWhenLate}): the 503's error id. */
    shed?: string;
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
    const abandon = new AbortController();
    res.locals.abandoned = abandon.signal;
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      const errorId = randomUUID();
      req.log?.warn({ errorId, ms }, 'no answer in time');
      const queued = res.locals.queuedOperation;
      abandon.abort();
      answer(queued ? operationUnavailable('pending', queued, errorId) : dependencyUnavailable(errorId), req, res, () => undefined);
    }, ms);
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished) abandon.abort();
    });
    next();
  };
}

/**
 * Sheds load while this process is starved of CPU: when the event loop is later than `maxMs`
 * ({@link eventLoopLatenessMs}), a client request is answered at once with a 503 that has done
 * nothing — no database read, nothing claimed or queued — instead of joining the requests it would
 * slow further. Without it a starved API answers every request at its deadline and still does each
 * one's database work afterwards while its clients' retries keep coming: it never catches up
 * (docs/reliability.md). A read gets the dependency 503; a queued operation is marked
 * (`res.locals.shed`, its error id) and answered by routes/queued-operation.ts with the 503 that
 * names its key. `maxMs` 0 sheds nothing.
 */
export function shedWhenLate(maxMs: number, lateness: () => number, shed: Counter) {
  if (maxMs > 0) lateness(); // the sampling starts with the app, not at its first request
  return (queued: boolean): RequestHandler =>
    (req, res, next) => {
      if (maxMs <= 0) return next();
      const lateMs = lateness();
      if (lateMs <= maxMs) return next();
      shed.inc();
      const errorId = randomUUID();
      req.log?.warn({ errorId, lateMs: Math.round(lateMs), maxMs }, 'shed: the event loop is too late');
      if (!queued) return next(dependencyUnavailable(errorId));
      res.locals.shed = errorId;
      next();
    };
}
