/**
 * PERSISTED NAMES: queue and job names are stored in Redis with every job. Renaming one strands
 * the jobs already queued under the old name; change them only with drained queues.
 *
 * Topology (docs/architecture.md): `QUEUE_PARTITIONS` queues `ops-{NN}`, each with global
 * concurrency 1. A customer always maps to the same partition, so at most one operation per
 * customer runs at a time, in the order received, across every worker replica. The braces are a
 * Redis Cluster hash tag: all keys of one partition share a slot, partitions spread over slots.
 */
import { Queue, type QueueOptions } from 'bullmq';
import type { RedisClient } from './redis.js';
import type { Config } from '../config.js';
import { redisConnection } from './redis.js';
import type {
  GiftCardApplyInput,
  OrderReportInput,
  RedeemInput,
  RevertInput,
  StackRedeemInput,
  StackRevertInput,
  WalletOperationInput,
  WalletSettleInput,
} from './job-payloads.js';
import type { DeliveryJobData } from '../data/webhook-delivery.repository.js';

export const partitionQueueName = (partition: number): string => `ops-{${String(partition).padStart(2, '0')}}`;

/**
 * The limit counters' lane of a job (shared/usecases/limit-counters.ts): its partition under the
 * partition count that queued it (`p16_07`), so that jobs queued before and after a change of
 * QUEUE_PARTITIONS never share a lane — within one lane at most one job is ever live, because one
 * lane's jobs all sit in one partition queue, which runs one job at a time.
 */
export const laneOf = (partition: number, partitions: number): string => `p${partitions}_${String(partition).padStart(2, '0')}`;

/** The lane a queued job carries (the gateway sets it from the job's partition). */
export function laneOfJob(job: { data: unknown }): string {
  const lane = (job.data as { lane?: unknown } | null)?.lane;
  if (typeof lane === 'string' && /^[A-Za-z0-9_-]+$/.test(lane)) return lane;
  throw new Error('a job without a lane: not queued by the gateway');
}

export const JOB = {
  redeem: 'redeem',
  revert: 'revert',
  /** Several coupons on one order, all or nothing (docs/stacking.md). */
  redeemStack: 'redeem-stack',
  revertStack: 'revert-stack',
  walletTransaction: 'wallet-transaction',
  /** A gift card (or store credit) spent at checkout, and given back (docs/gift-cards.md). */
  redeemGiftCard: 'redeem-gift-card',
  revertGiftCard: 'revert-gift-card',
  /** An order reported completed or returned: earns points, or takes them back (docs/wallets.md). */
  orderReport: 'order-report',
  /** Posts the transitions due on one balance (points available, points expired): queued by the expiry sweep. */
  walletSettle: 'wallet-settle',
  /** Benchmark baseline: a job that does nothing, through the same queues. */
  noop: 'noop',
} as const;
export type JobName = (typeof JOB)[keyof typeof JOB];

export interface JobPayloads {
  redeem: RedeemInput;
  revert: RevertInput;
  'redeem-stack': StackRedeemInput;
  'revert-stack': StackRevertInput;
  'wallet-transaction': WalletOperationInput;
  'redeem-gift-card': GiftCardApplyInput;
  'revert-gift-card': GiftCardApplyInput;
  'order-report': OrderReportInput;
  'wallet-settle': WalletSettleInput;
  noop: Record<string, never>;
}

/**
 * The webhook queue (docs/events.md): deliveries, consumed by the workers' delivery pool, never by
 * the partition workers, so a slow receiver cannot hold a customer's operations. Ordering per endpoint and customer is enforced by the deliveries' sequence numbers
 * in MongoDB, not by the queue, so one queue with any concurrency serves every stream. The braces
 * are a Redis Cluster hash tag, as for the partitions.
 */
export const WEBHOOK_QUEUE = 'webhooks-{wh}';

/**
 * The backtest queue (docs/results.md "Backtests"): one job per backtest, run by the workers'
 * backtest pool (BACKTEST_CONCURRENCY), never by the partition workers — a replay of a million
 * carts never holds a customer's operation.
 */
export const BACKTEST_QUEUE = 'backtests-{bt}';
export const BACKTEST_JOB = 'backtest';

export const WEBHOOK_JOB = {
  /**
   * An attempt at a run of deliveries of one stream (the run an operation made for an endpoint,
   * or a single delivery); moves itself to delayed to retry or to wait its turn.
   */
  deliver: 'deliver-webhook',
} as const;

export interface WebhookJobPayloads {
  'deliver-webhook': DeliveryJobData;
}

/** 32-bit FNV-1a of `text`'s UTF-16 code units: stable across processes and versions. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The key that maps a customer to its partition: `<application>:<customer>` (a persisted mapping). */
export const customerKeyOf = (applicationId: string, customerId: string): string => `${applicationId}:${customerId}`;

/** A customer's partition, by FNV-1a (a persisted mapping). */
export const partitionOf = (customerKey: string, partitions: number): number => fnv1a(customerKey) % partitions;

/**
 * Options of every Queue handle on a partition (they must agree: the event stream's length is
 * stored in the queue's meta by whichever handle starts).
 */
export const queueOptions = (config: Pick<Config, 'queuePrefix' | 'queueEventsMaxLen'>, connection: RedisClient): QueueOptions => ({
  connection,
  prefix: config.queuePrefix,
  streams: { events: { maxLen: config.queueEventsMaxLen } },
});

/**
 * Options every BullMQ Worker of the service shares (partition queues and webhook deliveries).
 *
 * `runRetryDelay`: after a failed fetch (its Redis connection cut: a primary failing over, Redis
 * away) BullMQ waits 15 s by default before the worker fetches again — 15 s in which that queue
 * takes nothing, although a Redis Cluster replica is promoted within a few seconds. Under load,
 * operations sent once the failover has settled would wait out the API's 10 s on a partition whose
 * worker still sleeps (docs/reliability.md). One second: a partition resumes within a second of
 * Redis serving it again, at the price of one log line per partition and second while Redis is
 * away.
 */
export const workerOptions = (config: Pick<Config, 'queuePrefix' | 'stalledIntervalMs'>, connection: RedisClient) => ({
  connection,
  prefix: config.queuePrefix,
  stalledInterval: config.stalledIntervalMs,
  // A job whose worker died is re-run rather than failed (idempotent processors).
  maxStalledCount: 5,
  runRetryDelay: FETCH_RETRY_MS,
  autorun: false,
});
export const FETCH_RETRY_MS = 1000;

/**
 * How long finished jobs stay in Redis: their results reach the API through the event stream, so
 * they are kept only for late readers (a retry with the operation's key) and Bull Board — by age
 * and by count, which bounds Redis memory whatever the volume.
 */
export const finishedJobRetention = (config: Pick<Config, 'keepFinishedSeconds' | 'keepFinishedJobs'>) => ({
  removeOnComplete: { age: config.keepFinishedSeconds, count: config.keepFinishedJobs },
  removeOnFail: { age: config.keepFinishedSeconds * 24, count: config.keepFinishedJobs * 10 },
});

/** Queue handles for every partition (metrics, Bull Board, drains), on one connection; `close()` ends both. */
export function partitionQueues(config: Pick<Config, 'redisUrl' | 'queuePrefix' | 'queuePartitions' | 'queueEventsMaxLen'>) {
  const connection = redisConnection(config.redisUrl!);
  const queues = Array.from(
    { length: config.queuePartitions },
    (_, p) => new Queue(partitionQueueName(p), queueOptions(config, connection)),
  );
  // Without a listener BullMQ prints a lost connection to stderr, outside the logs; an outage is
  // reported by the job gateway's connection (shared/queue/gateway.ts) and by readiness.
  for (const queue of queues) queue.on('error', () => undefined);
  return {
    queues,
    close: async () => {
      await Promise.all(queues.map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    },
  };
}
