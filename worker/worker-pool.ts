/**
 * One BullMQ Worker per partition queue in this process. Every replica consumes every
 * partition; each partition queue has global concurrency 1, so across all replicas at most one
 * job per partition (hence per customer) runs at a time, in queue order.
 */
import { Queue, Worker, type Job } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { partitionQueueName, queueOptions } from '../shared/queue/names.js';
import { redisConnection, type RedisClient } from '../shared/queue/redis.js';
import { sendReply, type ReplyBody } from '../shared/queue/replies.js';

export type JobListener = (event: { job: Job; outcome: 'completed' | 'failed'; durationMs: number }) => void;

export class WorkerPool {
  private readonly workers: Worker[] = [];
  /** Where finished jobs' outcomes go back to the API that waits for them (shared/queue/replies.ts). */
  private replies: RedisClient | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly processor: (job: Job) => Promise<unknown>,
    private readonly onJob?: JobListener,
  ) {}

  async start(): Promise<void> {
    // Replies of jobs finishing in the same turn of the event loop go out in one write (only XADDs
    // use this connection; BullMQ's own connections stay without auto-pipelining).
    this.replies = redisConnection(this.config.redisUrl!, { enableAutoPipelining: true });
    const admin = redisConnection(this.config.redisUrl!);
    // While the partition count changes, workers also drain the partitions of the previous count.
    const partitions = Math.max(this.config.queuePartitions, this.config.queuePartitionsPrevious ?? 0);
    for (let p = 0; p < partitions; p++) {
      const name = partitionQueueName(p);
      const queue = new Queue(name, queueOptions(this.config, admin));
      await queue.setGlobalConcurrency(1);
      await queue.close();
      const worker = new Worker(name, this.processor, {
        connection: redisConnection(this.config.redisUrl!),
        prefix: this.config.queuePrefix,
        concurrency: 1,
        // A dead worker's job blocks its partition until the stall check re-queues it: keep the
        // lock short and check often; re-running a half-done job is safe (idempotent processors).
        lockDuration: this.config.jobLockMs,
        stalledInterval: this.config.stalledIntervalMs,
        maxStalledCount: 5,
        autorun: false,
      });
      const started = new Map<string, number>();
      worker.on('active', (job) => started.set(job.id!, Date.now()));
      worker.on('completed', (job, result) => {
        this.report(job, 'completed', started);
        this.reply(job, { outcome: JSON.stringify(result ?? null) });
      });
      worker.on('failed', (job, err) => {
        if (job) {
          this.report(job, 'failed', started);
          this.reply(job, { failed: err.message });
        }
        // `jobName`, not `name`: pino's own `name` field is the logger's (worker).
        this.logger.error({ err, jobId: job?.id, jobName: job?.name, queue: name }, 'job failed');
      });
      worker.on('error', (err) => this.logger.error({ err, queue: name }, 'worker error'));
      // A stalled job's worker died or hung mid-job; it is re-queued and re-run (idempotent).
      worker.on('stalled', (jobId) => this.logger.warn({ jobId, queue: name }, 'job stalled, re-queued'));
      this.workers.push(worker);
    }
    await admin.quit();
    for (const w of this.workers) void w.run();
    await Promise.all(this.workers.map((w) => w.waitUntilReady()));
  }

  /** Tells the API that queued `job` how it ended (jobs of an earlier release name no stream: their API reads the queue's events). */
  private reply(job: Job, body: ReplyBody) {
    const stream = (job.data as { replyTo?: unknown } | null)?.replyTo;
    if (typeof stream !== 'string') return;
    // A reply lost here (Redis away) is not an operation lost: the API reads the finished job when its wait ends.
    sendReply(this.replies!, stream, job.id!, body).catch((err: Error) =>
      this.logger.warn({ err: err.message, jobId: job.id }, 'reply not sent'),
    );
  }

  private report(job: Job, outcome: 'completed' | 'failed', started: Map<string, number>) {
    const t = started.get(job.id!);
    started.delete(job.id!);
    this.onJob?.({ job, outcome, durationMs: t ? Date.now() - t : 0 });
  }

  /** Finishes the jobs in progress, takes no new ones. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await this.replies?.quit().catch(() => undefined);
  }
}
