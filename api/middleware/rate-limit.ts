/**
 * Per-application rate limits on the client routes (docs/rate-limits.md), counted in Redis by
 * rate-limiter-flexible: one atomic script per request on one key per application and policy, so
 * every API replica shares the count exactly. Fixed windows of `windowSeconds`, starting at an
 * application's first request. Answers carry `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset`; a refused request is 429 with `Retry-After` and applies nothing.
 *
 * If Redis does not answer, requests pass (fail open): list and validate keep working on the
 * database alone, and queued operations answer their own 503 — a limiter must not turn a Redis
 * outage into refusals.
 */
import type { RequestHandler } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../shared/config.js';
import type { ApplicationRecord } from '../../shared/data/application.repository.js';
import { DomainError } from '../../shared/errors.js';
import type { RedisClient } from '../../shared/queue/redis.js';

export interface RatePolicy {
  requests: number;
  windowSeconds: number;
}

/** The application's own limit, else the service's default; null when neither limits it. */
export function policyOf(
  app: Pick<ApplicationRecord, 'rateLimit'>,
  config: Pick<Config, 'rateLimitRequests' | 'rateLimitWindowSeconds'>,
): RatePolicy | null {
  const p = app.rateLimit ?? { requests: config.rateLimitRequests, windowSeconds: config.rateLimitWindowSeconds };
  return p.requests > 0 ? p : null;
}

export const rateLimited = (p: RatePolicy, retryAfter: number) =>
  new DomainError(
    'rate_limited',
    'Too Many Requests',
    `this application may send ${p.requests} requests per ${p.windowSeconds} s; retry after ${retryAfter} s`,
    { code: 429, reason: 'rate_limited' },
  );

export function rateLimit(
  config: Pick<Config, 'rateLimitRequests' | 'rateLimitWindowSeconds' | 'queuePrefix'>,
  /** The connection to count on, read at the first limited request (it opens after the router is built). */
  redis: () => RedisClient | undefined,
): RequestHandler {
  const limiters = new Map<string, RateLimiterRedis>();
  const limiterOf = (p: RatePolicy) => {
    const name = `${p.requests}/${p.windowSeconds}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: redis(),
        // A policy's own keys: a changed limit starts a fresh window.
        keyPrefix: `${config.queuePrefix}:ratelimit:${name}`,
        points: p.requests,
        duration: p.windowSeconds,
        rejectIfRedisNotReady: true,
      });
      limiters.set(name, limiter);
    }
    return limiter;
  };
  return async (req, res, next) => {
    const policy = policyOf(res.locals.app, config);
    if (!policy) return next();
    let result: RateLimiterRes;
    let allowed = true;
    try {
      result = await limiterOf(policy).consume(res.locals.app.id);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        req.log?.warn({ err: (err as Error).message }, 'rate limiter unavailable: request let through');
        return next();
      }
      result = err;
      allowed = false;
    }
    const reset = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    res.setHeader('RateLimit-Limit', String(policy.requests));
    res.setHeader('RateLimit-Remaining', String(result.remainingPoints));
    res.setHeader('RateLimit-Reset', String(reset));
    if (allowed) return next();
    res.setHeader('Retry-After', String(reset));
    next(rateLimited(policy, reset));
  };
}
