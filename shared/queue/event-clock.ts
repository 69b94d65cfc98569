/**
 * The numbers that order a customer's events (docs/events.md, "Ordering"): a hybrid logical clock
 * per partition queue, in Redis, next to the jobs it numbers. A job's events take
 * `max(Redis time in µs, the partition's last number + 1)` onwards, in one script that also keeps
 * the reservation in the job's own hash, so a re-run of the job (the stall check, an overlapping
 * run after a lost lock, a retry) gets the same numbers and instant back while the job exists.
 *
 * Why it orders a customer's events: a customer's operations run one at a time in one partition
 * queue, each recording its events before it finishes, so each reservation runs after the
 * previous one on the same key and takes a larger number. Numbers also grow with time, so a lost
 * key (Redis restarted empty) restarts from the clock, not from zero.
 *
 * One script, one slot: the counter and the job's hash share the partition's hash tag.
 */
import type { Cluster, Redis } from 'ioredis';
import type { Config } from '../config.js';
import { redisConnection, type RedisClient } from './redis.js';

/** Numbers taken for one job's events: `first` … `first + count - 1`, taken at `at`. */
export interface Reservation {
  first: number;
  at: Date;
}

/** The job whose events are numbered: its partition queue and id. */
export interface JobRef {
  queueName: string;
  jobId: string;
}

/** The job hash's field that keeps its reservation: `<first>/<count>/<at ms>`. */
const FIELD = 'eventNumbers';

// KEYS: the partition's clock, the job's hash. ARGV: the field, count, the instant (ms).
// Numbers are microseconds since 1970 (2^53 is reached in the year 2255): exact in Lua's doubles.
const RESERVE = `
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held then
  local count = string.match(held, '^[^/]*/([^/]*)/')
  if count == ARGV[2] then return held end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local first = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0') + 1)
redis.call('SET', KEYS[1], string.format('%.0f', first + tonumber(ARGV[2]) - 1))
local taken = string.format('%.0f', first) .. '/' .. ARGV[2] .. '/' .. ARGV[3]
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HSET', KEYS[2], ARGV[1], taken) end
return taken`;

type WithReserve = { reserveEventNumbers(clock: string, job: string, field: string, count: number, at: number): Promise<string> };

export class EventClock {
  private readonly connection: RedisClient & WithReserve;

  constructor(private readonly config: Pick<Config, 'redisUrl' | 'queuePrefix'>) {
    const connection = redisConnection(config.redisUrl!);
    (connection as Redis | Cluster).defineCommand('reserveEventNumbers', { numberOfKeys: 2, lua: RESERVE });
    this.connection = connection as RedisClient & WithReserve;
  }

  /** Reserves `count` consecutive numbers for `job`'s events (the same ones again for a re-run of it). */
  async reserve(job: JobRef, count: number, now: Date): Promise<Reservation> {
    const queueKey = `${this.config.queuePrefix}:${job.queueName}`;
    const taken = await this.connection.reserveEventNumbers(
      `${queueKey}:event-clock`,
      `${queueKey}:${job.jobId}`,
      FIELD,
      count,
      now.getTime(),
    );
    const [first, , at] = taken.split('/');
    return { first: Number(first), at: new Date(Number(at)) };
  }

  async close(): Promise<void> {
    await this.connection.quit().catch(() => undefined);
  }
}
