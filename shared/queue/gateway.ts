/**
 * The API side of the queues: enqueue an operation on its customer's partition and wait for the
 * job's outcome. One Queue and one QueueEvents per partition per process, ready before the API
 * accepts traffic. Waiters are registered in a map *before* the job is added (the job id is
 * chosen here), and one 'completed'/'failed' listener per QueueEvents dispatches to them, so no
 * completion can be missed and no per-waiter listener piles up (no MaxListenersExceeded).
 */
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import { partitionOf, partitionQueueName, type JobName, type JobPayloads } from './names.js';
import type { Outcome } from './outcome.js';
import { redisConnection } from './redis.js';

interface Waiter {
  resolve: (outcome: Outcome<unknown>) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export const jobTimedOut = () =>
  new DomainError(
    'unavailable',
    'Service Unavailable',
    'the operation is queued and will be applied once; retry the same request to get its result',
    { code: 503 },
  );

export class JobGateway {
  private readonly queues: Queue[] = [];
  private readonly events: QueueEvents[] = [];
  private readonly waiters = new Map<string, Waiter>();
  private connection: Redis | undefined;
  /** Hears every answered job (metrics); set by the app. */
  onOutcome: (<N extends JobName>(name: N, payload: JobPayloads[N], outcome: Outcome<unknown>) => void) | undefined;
  /** Jobs added and not yet answered: graceful shutdown waits for them. */
  get pending(): number {
    return this.waiters.size;
  }

  constructor(
    private readonly config: Pick<Config, 'redisUrl' | 'queuePrefix' | 'queuePartitions' | 'jobWaitTimeoutMs' | 'keepFinishedSeconds'>,
  ) {}

  async start(): Promise<void> {
    this.connection = redisConnection(this.config.redisUrl!);
    for (let p = 0; p < this.config.queuePartitions; p++) {
      const name = partitionQueueName(p);
      const queue = new Queue(name, { connection: this.connection, prefix: this.config.queuePrefix });
      const events = new QueueEvents(name, { connection: redisConnection(this.config.redisUrl!), prefix: this.config.queuePrefix });
      events.on('completed', ({ jobId, returnvalue }) => this.settle(jobId, returnvalue));
      events.on('failed', ({ jobId, failedReason }) => this.fail(jobId, failedReason));
      this.queues.push(queue);
      this.events.push(events);
    }
    await Promise.all([...this.queues.map((q) => q.waitUntilReady()), ...this.events.map((e) => e.waitUntilReady())]);
  }

  /** Queues `payload` on the partition of `customerKey` and resolves with the job's outcome. */
  async run<N extends JobName>(
    name: N,
    customerKey: string,
    payload: JobPayloads[N],
    timeoutMs = this.config.jobWaitTimeoutMs,
  ): Promise<Outcome<unknown>> {
    const queue = this.queues[partitionOf(customerKey, this.config.queuePartitions)]!;
    const jobId = randomUUID();
    const done = new Promise<Outcome<unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(jobId);
        reject(jobTimedOut());
      }, timeoutMs);
      this.waiters.set(jobId, { resolve, reject, timer });
    });
    try {
      await queue.add(name, payload, {
        jobId,
        // A retried job goes to the back of its queue and would overtake the customer's later
        // operations: never retry in BullMQ; processors retry transient errors themselves.
        attempts: 1,
        // Not `true`: a fast job would be deleted before a late reader looks at it. Keep by age.
        removeOnComplete: { age: this.config.keepFinishedSeconds, count: 50_000 },
        removeOnFail: { age: this.config.keepFinishedSeconds * 24 },
      });
    } catch (err) {
      const w = this.waiters.get(jobId);
      if (w) clearTimeout(w.timer);
      this.waiters.delete(jobId);
      throw new DomainError('unavailable', 'Service Unavailable', `queue unavailable: ${(err as Error).message}`, { code: 503 });
    }
    const outcome = await done;
    this.onOutcome?.(name, payload, outcome);
    return outcome;
  }

  private settle(jobId: string, returnvalue: unknown) {
    const w = this.waiters.get(jobId);
    if (!w) return;
    this.waiters.delete(jobId);
    clearTimeout(w.timer);
    const value = typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue;
    w.resolve(value as Outcome<unknown>);
  }

  private fail(jobId: string, reason: string) {
    const w = this.waiters.get(jobId);
    if (!w) return;
    this.waiters.delete(jobId);
    clearTimeout(w.timer);
    w.reject(
      new DomainError('unavailable', 'Service Unavailable', `the operation failed: ${reason}; retry the same request`, { code: 503 }),
    );
  }

  /** The shared producer connection (readiness pings). */
  get redis(): Redis {
    return this.connection!;
  }

  /** Queue handles (metrics, Bull Board). */
  get partitionQueues(): readonly Queue[] {
    return this.queues;
  }

  async close(): Promise<void> {
    await Promise.all(this.events.map((e) => e.close()));
    await Promise.all(this.queues.map((q) => q.close()));
    await this.connection?.quit();
  }
}
