/**
 * Producer side of the webhook queue ({@link WEBHOOK_QUEUE}): the ops processors queue the runs of
 * deliveries they recorded, the delivery workers and the admin API queue single deliveries. Job
 * ids are derived from what they carry, so queueing the same thing twice queues it once while the
 * first job is kept. Also the streams' wake-up lists: a delivery job waiting for an earlier
 * delivery of its stream is named there, and woken when a job of that stream finishes.
 */
import { Job, Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from './redis.js';
import type { Config } from '../config.js';
import type { DeliveryJobData, DeliveryRun, DeliveryTicket } from '../data/webhook-delivery.repository.js';
import { WEBHOOK_JOB, WEBHOOK_QUEUE } from './names.js';
import { redisConnection } from './redis.js';

export const deliveryJobId = (t: DeliveryTicket) => `deliver-${t.deliveryId}-g${t.generation}`;
/** A run's job is named after its first delivery: a re-run of the recording queues it once. */
export const runJobId = (run: Pick<DeliveryRun, 'items'>) => deliveryJobId(run.items[0]!);

/** Job states in which a job will still run. */
const LIVE_STATES = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);
/** How long a stream's wake-up list outlives its last waiter (a waiter re-checks by itself anyway). */
const WAITERS_TTL_MS = 86_400_000;

export class WebhookQueue {
  readonly queue: Queue;
  private readonly connection: RedisClient;
  private readonly jobOptions: JobsOptions;
  /** Runs queued in this turn of the event loop, added together by {@link WebhookQueue.addPending}. */
  private adding: { jobs: Parameters<Queue['addBulk']>[0]; resolve: () => void; reject: (err: unknown) => void }[] = [];

  constructor(config: Pick<Config, 'redisUrl' | 'queuePrefix' | 'keepFinishedSeconds'>) {
    this.connection = redisConnection(config.redisUrl!);
    this.queue = new Queue(WEBHOOK_QUEUE, { connection: this.connection, prefix: config.queuePrefix });
    // Without a listener BullMQ prints a lost connection to stderr, outside the logs; an outage is
    // reported once by the job gateway's connection (shared/queue/gateway.ts) and by readiness.
    this.queue.on('error', () => undefined);
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

  /**
   * Queues one job per run, carrying it. `delay`: when the first attempt is due. The runs that
   * jobs of this process queue in the same turn of the event loop go in one `addBulk` (one round
   * trip for all of them).
   */
  deliverRuns(runs: readonly DeliveryRun[], delayMs = 0): Promise<void> {
    if (runs.length === 0) return Promise.resolve();
    const jobs = runs.map((run) => ({
      name: WEBHOOK_JOB.deliver,
      data: { deliveryId: run.items[0]!.deliveryId, generation: run.items[0]!.generation, run } satisfies DeliveryJobData,
      opts: { ...this.jobOptions, jobId: runJobId(run), ...(delayMs > 0 ? { delay: delayMs } : {}) },
    }));
    return new Promise((resolve, reject) => {
      if (this.adding.length === 0) setImmediate(() => this.addPending());
      this.adding.push({ jobs, resolve, reject });
    });
  }

  private addPending() {
    const callers = this.adding;
    this.adding = [];
    this.queue.addBulk(callers.flatMap((c) => c.jobs)).then(
      () => callers.forEach((c) => c.resolve()),
      (err: unknown) => callers.forEach((c) => c.reject(err)),
    );
  }

  /** Queues one job per delivery ticket (the job reads its delivery). */
  async deliver(tickets: readonly DeliveryTicket[]): Promise<void> {
    if (tickets.length === 0) return;
    await this.queue.addBulk(
      tickets.map((t) => ({
        name: WEBHOOK_JOB.deliver,
        data: { deliveryId: t.deliveryId, generation: t.generation } satisfies DeliveryJobData,
        opts: { ...this.jobOptions, jobId: deliveryJobId(t) },
      })),
    );
  }

  /** True while a job of the delivery — the run created with it, or one of its own — is queued, delayed or running. */
  async isQueued(t: DeliveryTicket & { job?: string | null }): Promise<boolean> {
    return (!!t.job && (await this.isLive(t.job))) || this.isLive(deliveryJobId(t));
  }

  /** Names job `jobId` as waiting for a delivery of stream (endpoint, customer) to finish. */
  async awaitStream(endpointId: string, customerId: string, jobId: string): Promise<void> {
    const key = this.streamKey(endpointId, customerId);
    await this.connection.multi().sadd(key, jobId).pexpire(key, WAITERS_TTL_MS).exec();
  }

  /** Runs now the jobs waiting on a stream (a delivery of it finished): they check their turn again. */
  async wakeStream(endpointId: string, customerId: string): Promise<void> {
    const key = this.streamKey(endpointId, customerId);
    const replies = await this.connection.multi().smembers(key).del(key).exec();
    const waiting = (replies?.[0]?.[1] as string[] | undefined) ?? [];
    for (const jobId of waiting) await this.promote(jobId);
  }

  /** Runs a delayed job now; false when it is not delayed (waiting or running already: it will see the change itself). */
  private async promote(jobId: string): Promise<boolean> {
    const job = await Job.fromId(this.queue, jobId);
    if (!job) return false;
    try {
      await job.promote();
      return true;
    } catch {
      return false;
    }
  }

  private streamKey(endpointId: string, customerId: string): string {
    // Under the queue's hash tag: one slot with the queue's keys in a cluster.
    return `${this.queue.qualifiedName}:waiting-on:${endpointId}:${customerId}`;
  }

  private async isLive(jobId: string): Promise<boolean> {
    return LIVE_STATES.has(await this.queue.getJobState(jobId));
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.connection.quit();
  }
}
