import type { RequestHandler } from 'express';
import { bodyTooDeep, dependencyUnavailable } from '../contract-errors.js';
import { randomUUID } from 'node:crypto';

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
 * without an error), answer 503 and drop the late result.
 */
export function answerWithin(ms: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      const errorId = randomUUID();
      req.log?.warn({ errorId, ms }, 'no answer in time');
      next(dependencyUnavailable(errorId));
    }, ms);
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
