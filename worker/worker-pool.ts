/**
 * The partition workers of a process: one BullMQ Worker per partition queue it consumes — every
 * partition by default; with partition owners on (`WORKER_HEARTBEAT_MS` above 0,
 * shared/queue/partition-owners.ts) only those this replica owns, each partition consumed by one
 * live replica and a replica that goes silent losing its partitions to the others within 3
 * heartbeats. Each partition queue has global concurrency 1, so whatever the owners think — two
 * at once during a change, or every replica — at most one job per partition (hence per customer)
 * runs at a time, in queue order.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Queue, Worker, type Job } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { partitionQueueName, queueOptions, workerOptions } from '../shared/queue/names.js';
import { ownedPartitions, PartitionMembership } from '../shared/queue/partition-owners.js';
import { redisConnection, type RedisClient } from '../shared/queue/redis.js';
import { sendReply, type ReplyBody } from '../shared/queue/replies.js';

export type JobListener = (event: { job: Job; outcome: 'completed' | 'failed'; durationMs: number }) => void;

/** How long a partition worker that stopped by itself waits before it is started again. */
const RESTART_DELAY_MS = 1000;

/** A replica silent for this many heartbeats is dropped from the owners. */
const HEARTBEATS_TO_EXPIRE = 3;

/**
 * How long a job waits for its reply to be sent before it finishes without it (`reply`;
 * docs/reliability.md item 9). A reply is one XADD: a millisecond or two, tens on a loaded
 * machine. One still unsent after half a second waits for a Redis that is away — in a Redis
 * Cluster, the primary holding the API's reply stream died and ioredis retries (every 200 ms,
 * shared/queue/redis.ts) until its replica takes over, seconds later — and meanwhile its partition
 * (concurrency 1) runs nothing: every later job of it waits.
 * A quarter of the API's own command timeout (2 s, shared/queue/gateway.ts): a partition behind a
 * dead reply stream still runs two jobs a second. Giving up early costs little: the XADD still
 * goes out (ioredis cannot withdraw it), only the job no longer waits for it.
 */
export const REPLY_WAIT_MS = 500;

export class WorkerPool {
  /** The running workers, by partition. */
  private readonly workers = new Map<number, Worker>();
  /** Workers of partitions handed to another replica, finishing their job in flight. */
  private readonly handingOver = new Set<Promise<void>>();
  /** Where finished jobs' outcomes go back to the API that waits for them (shared/queue/replies.ts). */
  private replies: RedisClient | undefined;
  /** The heartbeat's connection (no blocking commands). */
  private control: RedisClient | undefined;
  /**
   * Every partition worker's commands but its blocking fetch (take, finish, lock renewals, the
   * stall check): one connection for all of them, which BullMQ leaves open when a worker closes
   * (it is the caller's) and `close()` ends. Each worker's blocking fetch has a connection of its
   * own, which BullMQ duplicates from this one and closes with the worker.
   */
  private commands: RedisClient | undefined;
  private membership: PartitionMembership | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private partitions = 0;
  private closed = false;

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
    // A heartbeat never hangs: a Redis that does not answer fails the beat (the next one retries).
    this.control = redisConnection(this.config.redisUrl!, { commandTimeout: 5000 });
    // Named, so that `CLIENT LIST` tells it (BullMQ names each blocking fetch after its queue).
    this.commands = redisConnection(this.config.redisUrl!, { connectionName: `${this.config.queuePrefix}:partition-commands` });
    // While the partition count changes, workers also drain the partitions of the previous count.
    this.partitions = Math.max(this.config.queuePartitions, this.config.queuePartitionsPrevious ?? 0);
    // BullMQ listens to the connection once per worker that shares it (and stops when it closes):
    // a worker per partition, and one still closing for a partition handed over and taken back.
    this.commands.setMaxListeners(2 * this.partitions + 10);
    for (let p = 0; p < this.partitions; p++) {
      const queue = new Queue(partitionQueueName(p), queueOptions(this.config, this.control));
      await queue.setGlobalConcurrency(1);
      await queue.close();
    }
    let owned = Array.from({ length: this.partitions }, (_, p) => p);
    if (this.config.workerHeartbeatMs > 0) {
      const me = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
      this.membership = new PartitionMembership(
        this.control,
        this.config.queuePrefix,
        me,
        this.config.workerHeartbeatMs * HEARTBEATS_TO_EXPIRE,
      );
      owned = ownedPartitions(await this.membership.beat(), me, this.partitions);
      this.heartbeat = setInterval(
        () => (this.beating ??= this.rebalance().finally(() => (this.beating = undefined))),
        this.config.workerHeartbeatMs,
      );
    }
    for (const p of owned) this.startPartition(p);
    await Promise.all([...this.workers.values()].map((w) => w.waitUntilReady()));
    this.logger.info({ partitions: owned.length, of: this.partitions }, 'partition workers started');
  }

  /** One heartbeat: renews this replica's, then starts the partitions it gained and hands over those it lost. */
  private async rebalance(): Promise<void> {
    let members: string[];
    try {
      members = await this.membership!.beat();
    } catch (err) {
      // Redis away: keep consuming what this replica has (the others may take it meanwhile; harmless).
      this.logger.warn({ err: (err as Error).message }, 'partition owners heartbeat failed');
      return;
    }
    if (!this.heartbeat) return; // closed meanwhile
    const owned = new Set(ownedPartitions(members, this.membership!.me, this.partitions));
    const gained = [...owned].filter((p) => !this.workers.has(p));
    const lost = [...this.workers.keys()].filter((p) => !owned.has(p));
    for (const p of gained) this.startPartition(p);
    for (const p of lost) {
      const worker = this.workers.get(p)!;
      this.workers.delete(p);
      const done = worker.close().catch((err: Error) => this.logger.warn({ err: err.message, partition: p }, 'handing over a partition'));
      this.handingOver.add(done);
      void done.finally(() => this.handingOver.delete(done));
    }
    if (gained.length || lost.length)
      this.logger.info({ replicas: members.length, partitions: this.workers.size, gained, lost }, 'partition owners changed');
  }

  private startPartition(p: number) {
    const name = partitionQueueName(p);
    const worker = new Worker(name, this.runAndReply, {
      ...workerOptions(this.config, this.commands!),
      concurrency: 1,
      // A dead worker's job blocks its partition until the stall check re-queues it: keep the
      // lock short and check often; re-running a half-done job is safe (idempotent processors).
      lockDuration: this.config.jobLockMs,
    });
    const started = new Map<string, number>();
    worker.on('active', (job) => started.set(job.id!, Date.now()));
    worker.on('completed', (job) => {
      this.report(job, 'completed', started);
      if (this.config.workerFailpoint === 'after-complete') process.kill(process.pid, 'SIGKILL');
    });
    worker.on('failed', (job, err) => {
      if (job) {
        this.report(job, 'failed', started);
        // Failed without its processor throwing here (stalled too often): nobody replied yet.
        if (!this.repliedFailures.delete(job.id!)) void this.reply(job, { failed: err.message });
      }
      // `jobName`, not `name`: pino's own `name` field is the logger's (worker).
      this.logger.error({ err, jobId: job?.id, jobName: job?.name, queue: name }, 'job failed');
    });
    worker.on('error', (err) => this.logger.error({ err, queue: name }, 'worker error'));
    // A stalled job's worker died or hung mid-job; it is re-queued and re-run (idempotent).
    worker.on('stalled', (jobId) => this.logger.warn({ jobId, queue: name }, 'job stalled, re-queued'));
    this.workers.set(p, worker);
    // A worker whose loop ends without being asked to (its start failed: Redis away at that moment)
    // is replaced: with partition owners on, by the next heartbeat (if this replica still owns the
    // partition); otherwise a second later — else its partition would go unconsumed by this
    // replica until it restarts.
    const ended = (err?: unknown) => {
      if (this.workers.get(p) !== worker) return; // handed over or closed: asked to stop
      this.workers.delete(p);
      this.logger.error({ err, queue: name }, 'partition worker stopped; starting it again');
      void worker.close().catch(() => undefined);
      if (!this.membership)
        setTimeout(() => {
          if (!this.closed && !this.workers.has(p)) this.startPartition(p);
        }, RESTART_DELAY_MS).unref();
    };
    worker.run().then(() => ended(), ended);
  }

  /** Jobs whose failure was replied by `runAndReply` (their 'failed' event must not reply again). */
  private readonly repliedFailures = new Set<string>();

  /**
   * Runs a job and replies **before** BullMQ marks it finished. A worker that dies after its reply
   * leaves the job active: the stall check re-queues it, the (idempotent) processor finds it done
   * and replies again, a reply nobody waits for any more. A reply sent once the job is marked
   * completed (on the 'completed' event) would be lost with a worker killed in between, and the
   * API's client would wait out JOB_WAIT_TIMEOUT_MS for an outcome that exists
   * (test/worker/reply-crash.spec.ts). The reply is waited for at most REPLY_WAIT_MS (`reply`).
   */
  private readonly runAndReply = async (job: Job): Promise<unknown> => {
    let result: unknown;
    try {
      result = await this.processor(job);
    } catch (err) {
      this.repliedFailures.add(job.id!);
      await this.reply(job, { failed: (err as Error).message });
      throw err;
    }
    await this.reply(job, { outcome: JSON.stringify(result ?? null) });
    return result;
  };

  /**
   * Tells the API that queued `job` how it ended (its reply stream; a job without one — queued by
   * hand — has no API waiting). Never throws, and resolves within REPLY_WAIT_MS: a reply not sent
   * by then (its stream's Redis away) is no longer waited for, so the job finishes and its
   * partition moves on. A reply lost or late is not an operation lost: the API reads the finished
   * job once the reply is overdue (shared/queue/gateway.ts `lookWhenOverdue`).
   *
   * The XADD itself is not withdrawn (ioredis has no way to): ioredis still sends it once the
   * stream's primary is back or its replica took over (3–5 s after it was sent, in the failover
   * test), or gives up after its 16 redirections ('reply not sent'). Arriving late it is
   * harmless: it names this job, and only requests of this job's operation key wait on this job
   * id. An outcome is the job's result, which every run of the job returns (idempotent
   * processors): the answer the API would give by reading the finished job. A failure gives a 503
   * "pending" (retry with the key for the result), never a result or an "applied": false. A stream
   * that is gone stays gone (NOMKSTREAM).
   */
  private async reply(job: Job, body: ReplyBody): Promise<void> {
    const stream = (job.data as { replyTo?: unknown } | null)?.replyTo;
    if (typeof stream !== 'string') return;
    const started = Date.now();
    const sent = sendReply(this.replies!, stream, job.id!, body).then(
      () => true,
      (err: Error) => {
        this.logger.warn({ err: err.message, jobId: job.id, ms: Date.now() - started }, 'reply not sent');
        return false;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'unsent'>((resolve) => {
      timer = setTimeout(() => resolve('unsent'), REPLY_WAIT_MS);
      timer.unref(); // never keeps a closing process alive
    });
    const first = await Promise.race([sent, bound]);
    clearTimeout(timer); // sent in time: no timer left behind (the bound's promise is never settled, and dropped)
    if (first !== 'unsent') return;
    this.logger.warn({ jobId: job.id, stream, waitedMs: REPLY_WAIT_MS }, 'reply not sent in time; the job finishes without waiting for it');
    void sent.then((ok) => ok && this.logger.info({ jobId: job.id, ms: Date.now() - started }, 'reply sent late'));
  }

  private report(job: Job, outcome: 'completed' | 'failed', started: Map<string, number>) {
    const t = started.get(job.id!);
    started.delete(job.id!);
    this.onJob?.({ job, outcome, durationMs: t ? Date.now() - t : 0 });
  }

  /** Finishes the jobs in progress, takes no new ones; leaves the owners first, so the others take over at once. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    await this.beating;
    await this.membership?.leave().catch(() => undefined);
    const running = [...this.workers.values()];
    this.workers.clear();
    await Promise.all([...running.map((w) => w.close()), ...this.handingOver]);
    await this.commands?.quit().catch(() => undefined);
    await this.replies?.quit().catch(() => undefined);
    await this.control?.quit().catch(() => undefined);
  }
}
