/**
 * Sign-in throttling (docs/admin-api.md#sessions): failed sign-ins are counted per e-mail (whether
 * or not an account has it: the answer must not tell) and per client address, in Redis with
 * rate-limiter-flexible, so every API replica counts the same failures. Once a count reaches its
 * limit within LOGIN_LOCK_SECONDS, sign-ins for that e-mail (or from that address) are refused
 * with 429 for LOGIN_LOCK_SECONDS. A success clears the e-mail's count. If Redis does not answer,
 * sign-in is refused (503): a throttle that fails open would let guessing run unchecked; tokens
 * and existing sessions keep working.
 */
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../shared/config.js';
import type { RedisClient } from '../../shared/queue/redis.js';
import { signInUnavailable } from '../../shared/admin-errors.js';
import { DomainError } from '../../shared/errors.js';
import type { LoginThrottle } from '../../shared/usecases/admin/sessions.usecase.js';

const orUnavailable = async <T>(run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw signInUnavailable();
  }
};

export function loginThrottle(
  config: Pick<Config, 'loginFailuresPerAccount' | 'loginFailuresPerAddress' | 'loginLockSeconds' | 'queuePrefix'>,
  /** Read at the first sign-in (the connection opens after the router is built). */
  redis: () => RedisClient | undefined,
): LoginThrottle {
  let limiters: { account: RateLimiterRedis; address: RateLimiterRedis } | undefined;
  const of = () =>
    (limiters ??= {
      account: new RateLimiterRedis({
        storeClient: redis(),
        keyPrefix: `${config.queuePrefix}:signin:account`,
        points: config.loginFailuresPerAccount,
        duration: config.loginLockSeconds,
        rejectIfRedisNotReady: true,
      }),
      address: new RateLimiterRedis({
        storeClient: redis(),
        keyPrefix: `${config.queuePrefix}:signin:address`,
        points: config.loginFailuresPerAddress,
        duration: config.loginLockSeconds,
        rejectIfRedisNotReady: true,
      }),
    });
  /** Seconds until `key`'s failures no longer refuse it (0 below the limit). */
  const wait = async (limiter: RateLimiterRedis, key: string, limit: number) => {
    const res = await limiter.get(key);
    return res && res.consumedPoints >= limit ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0;
  };
  const count = async (limiter: RateLimiterRedis, key: string) => {
    try {
      await limiter.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err; // over the limit already: counted, nothing more to do
    }
  };
  return {
    waitFor: (email, address) =>
      orUnavailable(async () => {
        const { account, address: byAddress } = of();
        const [a, b] = await Promise.all([
          wait(account, email, config.loginFailuresPerAccount),
          wait(byAddress, address, config.loginFailuresPerAddress),
        ]);
        return Math.max(a, b);
      }),
    failed: (email, address) =>
      orUnavailable(async () => {
        const { account, address: byAddress } = of();
        await Promise.all([count(account, email), count(byAddress, address)]);
      }),
    succeeded: (email) =>
      orUnavailable(async () => {
        await of().account.delete(email);
      }),
  };
}
