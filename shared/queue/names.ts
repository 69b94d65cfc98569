/**
 * PERSISTED NAMES: queue and job names are stored in Redis with every job. Renaming one strands
 * the jobs already queued under the old name; change them only with drained queues.
 *
 * Topology (docs/architecture.md): `QUEUE_PARTITIONS` queues `ops-{NN}`, each with global
 * concurrency 1. A customer always maps to the same partition, so at most one operation per
 * customer runs at a time, in the order received, across every worker replica. The braces are a
 * Redis Cluster hash tag: all keys of one partition share a slot, partitions spread over slots.
 */
import { Queue } from 'bullmq';
import type { Config } from '../config.js';
import { redisConnection } from './redis.js';
import type { WalletOperationInput } from '../usecases/wallet-operation.usecase.js';
import type { RedeemInput, RevertInput } from '../usecases/apply-coupon.usecase.js';
import type { DeliveryTicket } from '../data/webhook-delivery.repository.js';

export const partitionQueueName = (partition: number): string => `ops-{${String(partition).padStart(2, '0')}}`;

export const JOB = {
  redeem: 'redeem',
  revert: 'revert',
  walletTransaction: 'wallet-transaction',
  /** Benchmark baseline: a job that does nothing, through the same queues. */
  noop: 'noop',
} as const;
export type JobName = (typeof JOB)[keyof typeof JOB];

export interface JobPayloads {
  redeem: RedeemInput;
  revert: RevertInput;
  'wallet-transaction': WalletOperationInput;
  noop: Record<string, never>;
}

/**
 * The webhook queue (docs/events.md): event dispatch and deliveries, consumed by the workers'
 * delivery pool, never by the partition workers, so a slow receiver cannot hold a customer's
 * operations. Ordering per endpoint and customer is enforced by the deliveries' sequence numbers
 * in MongoDB, not by the queue, so one queue with any concurrency serves every stream. The braces
 * are a Redis Cluster hash tag, as for the partitions.
 */
export const WEBHOOK_QUEUE = 'webhooks-{wh}';

export const WEBHOOK_JOB = {
  /** Fan an outbox event out to the application's endpoints (creates its deliveries). */
  dispatch: 'dispatch-event',
  /** One attempt of one delivery; moves itself to delayed to retry or to wait its turn. */
  deliver: 'deliver-webhook',
} as const;
export type WebhookJobName = (typeof WEBHOOK_JOB)[keyof typeof WEBHOOK_JOB];

export interface WebhookJobPayloads {
  'dispatch-event': { eventId: string };
  'deliver-webhook': DeliveryTicket;
}

/** FNV-1a: stable across processes and versions (a persisted mapping). */
export function partitionOf(customerKey: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < customerKey.length; i++) {
    h ^= customerKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}

/** Queue handles for every partition (metrics, Bull Board); callers close them. */
export function partitionQueues(config: Pick<Config, 'redisUrl' | 'queuePrefix' | 'queuePartitions'>): Queue[] {
  const connection = redisConnection(config.redisUrl!);
  return Array.from(
    { length: config.queuePartitions },
    (_, p) => new Queue(partitionQueueName(p), { connection, prefix: config.queuePrefix }),
  );
}
