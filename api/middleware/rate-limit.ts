/**
 * Per-application rate limits on the client routes (docs/rate-limits.md), counted in Redis by
 * rate-limiter-flexible on one key per application and policy, which every API replica shares.
 * Fixed windows of `windowSeconds`, starting at an application's first request. A process takes
 * permits from Redis in batches while many remain (one atomic increment per batch, `batchFor`) and
 * one at a time near the limit: never more than the limit pass in a window, and a request costs a
 * Redis round trip only once per batch. Answers carry `RateLimit-Limit`, `RateLimit-Remaining` and
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
import { rateLimited } from '../../shared/client-errors.js';
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

/** Permits taken from Redis in one call at most (while far from the limit). */
export const MAX_BATCH = 100;
/**
 * How many permits to take from Redis in one call, given what was left after the last call: one
 * while few remain (exact near the limit), up to MAX_BATCH while many do. A process holds at most
 * 1/64 of what remained when it took them, so permits taken and never used (a process whose
 * traffic stops) are a small share of the window, and never make the count pass the limit.
 */
export const batchFor = (remaining: number): number => Math.max(1, Math.min(MAX_BATCH, Math.floor(remaining / 64)));

/** One application's permits in this process for one policy's current window. */
interface Permits {
  /** Permits taken from Redis and not used yet. */
  held: number;
  /** What Redis had left after the last call (others' use since is unknown). */
  remaining: number;
  windowEndsAt: number;
  /** A call to Redis under way: requests meanwhile wait for it rather than each making one. */
  refill?: Promise<void>;
}

export function rateLimit(
  config: Pick<Config, 'rateLimitRequests' | 'rateLimitWindowSeconds' | 'queuePrefix'>,
  /** The connection to count on, read at the first limited request (it opens after the router is built). */
  redis: () => RedisClient | undefined,
): RequestHandler {
  const limiters = new Map<string, RateLimiterRedis>();
  const permits = new Map<string, Permits>();
  const limiterOf = (p: RatePolicy, name: string) => {
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

  /**
   * Takes a batch of permits from Redis for `state`. Redis counts the whole batch; the permits
   * granted are those within the limit (a batch that crosses it is granted its part below it).
   */
  async function refill(limiter: RateLimiterRedis, policy: RatePolicy, appId: string, state: Permits, now: number) {
    const fresh = now >= state.windowEndsAt;
    const batch = fresh ? 1 : batchFor(state.remaining);
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(appId, batch);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
    }
    const before = res.consumedPoints - batch;
    const granted = Math.max(0, Math.min(batch, policy.requests - before));
    state.held = (fresh ? 0 : state.held) + granted;
    state.remaining = Math.max(0, policy.requests - res.consumedPoints);
    state.windowEndsAt = Date.now() + res.msBeforeNext;
  }

  /** A permit for one request: whether it passes, what remains (as far as this process knows) and when the window ends. */
  async function take(policy: RatePolicy, appId: string): Promise<{ allowed: boolean; remaining: number; resetMs: number }> {
    const name = `${policy.requests}/${policy.windowSeconds}`;
    const key = `${appId}|${name}`;
    let state = permits.get(key);
    if (!state) permits.set(key, (state = { held: 0, remaining: policy.requests, windowEndsAt: 0 }));
    for (;;) {
      const now = Date.now();
      if (now < state.windowEndsAt && state.held > 0) {
        state.held--;
        return { allowed: true, remaining: state.remaining + state.held, resetMs: state.windowEndsAt - now };
      }
      if (!state.refill) {
        const current = state;
        current.refill = refill(limiterOf(policy, name), policy, appId, current, now).finally(() => (current.refill = undefined));
        await current.refill;
        if (current.held === 0) return { allowed: false, remaining: 0, resetMs: Math.max(0, current.windowEndsAt - Date.now()) };
      } else {
        await state.refill;
      }
    }
  }

  return async (req, res, next) => {
    const policy = policyOf(res.locals.app, config);
    if (!policy) return next();
    let verdict: Awaited<ReturnType<typeof take>>;
    try {
      verdict = await take(policy, res.locals.app.id);
    } catch (err) {
      req.log?.warn({ err: (err as Error).message }, 'rate limiter unavailable: request let through');
      return next();
    }
    const reset = Math.max(1, Math.ceil(verdict.resetMs / 1000));
    res.setHeader('RateLimit-Limit', String(policy.requests));
    res.setHeader('RateLimit-Remaining', String(verdict.remaining));
    res.setHeader('RateLimit-Reset', String(reset));
    if (verdict.allowed) return next();
    res.setHeader('Retry-After', String(reset));
    next(rateLimited(policy, reset));
  };
}
