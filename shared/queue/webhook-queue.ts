/**
 * Producer side of the webhook queue ({@link WEBHOOK_QUEUE}): the ops processors queue the
 * dispatch of the events they recorded, the delivery workers and the admin API queue deliveries.
 * Job ids are derived from what they carry, so queueing the same thing twice queues it once while
 * the first job is kept.
 */
import { Job, Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from './redis.js';
import type { Config } from '../config.js';
import type { DeliveryTicket } from '../data/webhook-delivery.repository.js';
import { WEBHOOK_JOB, WEBHOOK_QUEUE } from './names.js';
import { redisConnection } from './redis.js';

export const dispatchJobId = (eventId: string) => `dispatch-${eventId}`;
export const deliveryJobId = (t: DeliveryTicket) => `deliver-${t.deliveryId}-g${t.generation}`;

/** Job states in which a job will still run. */
const LIVE_STATES = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

export class WebhookQueue {
  readonly queue: Queue;
  private readonly connection: RedisClient;
  private readonly jobOptions: JobsOptions;

  constructor(config: Pick<Config, 'redisUrl' | 'queuePrefix' | 'keepFinishedSeconds'>) {
    this.connection = redisConnection(config.redisUrl!);
    this.queue = new Queue(WEBHOOK_QUEUE, { connection: this.connection, prefix: config.queuePrefix });
    this.jobOptions = {
      // Only for infrastructure errors (MongoDB away): receiver failures are retried on the
      // delivery's own schedule (moveToDelayed), dead letters fail without retry.
      attempts: 8,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: config.keepFinishedSeconds, count: 50_000 },
      removeOnFail: { age: config.keepFinishedSeconds * 24 },
    };
  }

  waitUntilReady(): Promise<unknown> {
    return this.queue.waitUntilReady();
  }

  /** Queues the dispatch of recorded events. */
  async dispatch(eventIds: readonly string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.queue.addBulk(
      eventIds.map((eventId) => ({
        name: WEBHOOK_JOB.dispatch,
        data: { eventId },
        opts: { ...this.jobOptions, jobId: dispatchJobId(eventId) },
      })),
    );
  }

  /** Queues the dispatch of events whose first dispatch job is gone or finished without dispatching (the sweep). */
  async redispatch(eventIds: readonly string[]): Promise<number> {
    let queued = 0;
    for (const eventId of eventIds) {
      if (await this.isLive(dispatchJobId(eventId))) continue;
      await this.queue.add(WEBHOOK_JOB.dispatch, { eventId }, { ...this.jobOptions, jobId: `${dispatchJobId(eventId)}-r${Date.now()}` });
      queued++;
    }
    return queued;
  }

  /** Queues one job per delivery ticket. */
  async deliver(tickets: readonly DeliveryTicket[]): Promise<void> {
    if (tickets.length === 0) return;
    await this.queue.addBulk(
      tickets.map((t) => ({ name: WEBHOOK_JOB.deliver, data: t, opts: { ...this.jobOptions, jobId: deliveryJobId(t) } })),
    );
  }

  /** True while the delivery's job is queued, delayed or running. */
  isQueued(t: DeliveryTicket): Promise<boolean> {
    return this.isLive(deliveryJobId(t));
  }

  /** Runs a delivery's delayed job now (it waits for an earlier delivery that just finished). */
  async wake(t: DeliveryTicket): Promise<boolean> {
    const job = await Job.fromId(this.queue, deliveryJobId(t));
    if (!job) return false;
    try {
      await job.promote();
      return true;
    } catch {
      // Not delayed (waiting or running already): it will see the finished delivery itself.
      return false;
    }
  }

  private async isLive(jobId: string): Promise<boolean> {
    return LIVE_STATES.has(await this.queue.getJobState(jobId));
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.connection.quit();
  }
}
