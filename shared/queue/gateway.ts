/**
 * The API side of the queues: queue an operation's job on its customer's partition and wait for
 * its outcome. The answer is the job's outcome, or — when that cannot be had in time — how the
 * operation stands without it (docs/reliability.md); turning either into an HTTP answer is the
 * API's (api/answers.ts):
 *
 *  - every operation has an operation key (the client's `Idempotency-Key`, or one generated per
 *    request) from which its job id is derived, so the same key always names the same job: an
 *    add of a key already queued is ignored by BullMQ, and a retry with the key waits for that job
 *    or returns its result;
 *  - adding fails fast when Redis cannot be reached (no offline queue, bounded command time):
 *    the operation was not queued;
 *  - past the wait, a job that has not started is withdrawn atomically (removed from the wait
 *    list; a worker can no longer take it): the operation was not applied; one that has started
 *    will be applied at most once.
 * Waiters are registered in a map *before* the job is added; the job names this process's reply
 * stream (shared/queue/replies.ts), where the worker puts its outcome, and one reader dispatches
 * the replies to the waiters: no completion is missed, no per-waiter listener piles up, and this
 * process reads only its own operations' outcomes. A request that joins a job another process
 * queued (a key seen before) also reads the job itself until it is finished. A reply can be lost
 * (its stream's Redis node failed over): a request still waiting past {@link REPLY_GRACE_MS} looks
 * at its job, then at doubling intervals, and takes the outcome from the job once it is finished and
 * the reply still has not come.
 *
 * Every outcome the gateway answers — and each one the API decided without the queue
 * ({@link JobGateway.answerWithoutQueue}) — is told to the listeners it was built with (metrics,
 * sold-out hints).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Job, Queue } from 'bullmq';
import type { RedisClient } from './redis.js';
import type { Standing } from '../client-errors.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import {
  customerKeyOf,
  finishedJobRetention,
  laneOf,
  partitionOf,
  partitionQueueName,
  queueOptions,
  type JobName,
  type JobPayloads,
} from './names.js';
import type { Outcome } from './outcome.js';
import { redisConnection } from './redis.js';
import { ReplyReader, type ReplyBody } from './replies.js';

/** A job an operation queues: its name, the customer whose partition runs it, and its payload. */
export interface QueuedJob<N extends JobName = JobName> {
  name: N;
  customerId: string;
  payload: JobPayloads[N];
}
/** Any queued job, narrowed by its `name`. */
export type AnyQueuedJob = { [N in JobName]: QueuedJob<N> }[JobName];

/**
 * An operation ready for the gateway: its job, and — when the API can prove the worker's answer
 * without queueing it (a sold-out refusal) — that answer.
 */
export interface PreparedOperation {
  job: AnyQueuedJob;
  answered?: Outcome<never>;
}

/** What the gateway answers for an operation: the job's outcome, or how it stands without one. */
export type JobAnswer =
  | { answered: true; outcome: Outcome<unknown> }
  | {
      answered: false;
      standing: Standing;
      /** The job failed (logged under this id) rather than running out of time. */
      errorId?: string;
    };

/** Hears an outcome the gateway answers (never a "not answered"): metrics, sold-out hints. */
export type OutcomeListener = (job: AnyQueuedJob, applicationId: string, outcome: Outcome<unknown>) => void;

interface Waiter {
  settle: (answer: JobAnswer) => void;
  /** Its add of the job has completed (a duplicate add joined the job, or the add queued it). */
  added: boolean;
  /** When the request began waiting (its add was sent): logged with an answer that did not come by reply. */
  since: number;
}

const notAnswered = (standing: Standing, errorId?: string): JobAnswer => ({ answered: false, standing, ...(errorId ? { errorId } : {}) });

/** The job id of an operation key within an application: the same key always names the same job. */
export const jobIdOf = (applicationId: string, operationKey: string): string =>
  `op-${createHash('sha256').update(`${applicationId}\n${operationKey}`).digest('hex').slice(0, 32)}`;

/** A fresh operation key for a request sent without `Idempotency-Key`. */
export const newOperationKey = (): string => `auto-${randomUUID()}`;
/** Whether a key is one {@link newOperationKey} made (a client may send it back: the 503s name it). */
export const isGeneratedKey = (key: string): boolean => key.startsWith('auto-');

// Takes a job out of the wait (or paused) list if it is still there and has never started, and
// deletes it: after this, no worker can start it, and its id is free for a retry with the same key
// to queue it again. A job that started once (BullMQ counts attempts started, `ats`) may have
// applied even when it is back in the list (a stalled job is re-queued there), so it stays. The
// deletion is part of the script because the script may run after the API stopped waiting for it
// (a frozen Redis: the command was sent, its answer timed out): a job taken out of its list but
// left behind would hold its id forever — every retry's add ignored, the operation never run.
// Its keys share the partition's hash tag, so this is one slot in a cluster too.
const WITHDRAW = `
if (tonumber(redis.call('HGET', KEYS[3], 'ats')) or 0) > 0 then return 0 end
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 1 or redis.call('LREM', KEYS[2], 1, ARGV[1]) == 1 then
  redis.call('DEL', KEYS[3], KEYS[4])
  return 1
end
return 0`;

/** The operation a job carries out: its application and key. */
export interface OperationRef {
  applicationId: string;
  operationKey: string;
  /** True when the key was generated for this request (nothing can have queued it before). */
  fresh: boolean;
  /** How long to wait for the outcome (default: JOB_WAIT_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** How often a request that joined a job queued by another process reads it (it gets no reply). */
const JOIN_POLL_MS = 250;
/**
 * A reply not come this long after the add is overdue: the request looks at its job (one HMGET),
 * then again as often until it is finished. A reply takes milliseconds once the job is done; a
 * request answered within this sends no command besides its add.
 */
export const REPLY_GRACE_MS = 1000;
/**
 * How long a reply still has once its job is seen finished (the worker sends it before BullMQ marks
 * the job finished, so it is on its way or lost) before the outcome is read from the job.
 */
const REPLY_LATE_MS = 250;

export class JobGateway {
  private readonly queues: Queue[] = [];
  private replies: ReplyReader | undefined;
  /** Per job id: the requests waiting for it (the same key may be sent twice at once). */
  private readonly waiters = new Map<string, Set<Waiter>>();
  private connection: RedisClient | undefined;
  private closed = false;
  /** Jobs added and not yet answered: graceful shutdown waits for them. */
  get pending(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  constructor(
    private readonly config: Pick<
      Config,
      'redisUrl' | 'queuePrefix' | 'queuePartitions' | 'jobWaitTimeoutMs' | 'keepFinishedSeconds' | 'keepFinishedJobs' | 'queueEventsMaxLen'
    >,
    private readonly logger?: Logger,
    /** Told every outcome this gateway answers. */
    private readonly listeners: readonly OutcomeListener[] = [],
  ) {}

  async start(): Promise<void> {
    // The producer fails fast: no offline queue (an add while Redis is away rejects at once) and
    // a bounded command time (a paused Redis cannot hold a request).
    this.connection = redisConnection(this.config.redisUrl!, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2000 });
    this.connection.on('error', (err) => this.logger?.warn({ err: err.message }, 'redis producer connection'));
    for (let p = 0; p < this.config.queuePartitions; p++) {
      const name = partitionQueueName(p);
      const queue = new Queue(name, queueOptions(this.config, this.connection));
      // Without a listener an 'error' event would throw and end the process.
      queue.on('error', (err) => this.logger?.warn({ err: err.message, queue: name }, 'queue error'));
      this.queues.push(queue);
    }
    await Promise.all(this.queues.map((q) => q.waitUntilReady()));
    this.replies = new ReplyReader(
      this.connection,
      this.config.redisUrl!,
      this.config.queuePrefix,
      (jobId, body) => this.reply(jobId, body),
      (err) => this.logger?.warn({ err: err.message }, 'reply stream'),
    );
    await this.replies.start();
  }

  /**
   * Queues `job` on its customer's partition and waits for its outcome: answers the outcome, or
   * — Redis away, the wait over, the job failed — how the operation stands without it.
   */
  async queueAndWait(job: AnyQueuedJob, op: OperationRef): Promise<JobAnswer> {
    const partition = partitionOf(customerKeyOf(op.applicationId, job.customerId), this.config.queuePartitions);
    const queue = this.queues[partition]!;
    const jobId = jobIdOf(op.applicationId, op.operationKey);
    let waiter!: Waiter;
    const done = new Promise<JobAnswer>((settle) => (waiter = { settle, added: false, since: Date.now() }));
    const set = this.waiters.get(jobId) ?? new Set<Waiter>();
    this.waiters.set(jobId, set.add(waiter));
    const timer = setTimeout(() => void this.expire(queue, jobId, waiter), op.timeoutMs ?? this.config.jobWaitTimeoutMs);
    try {
      if (this.connection!.status !== 'ready') {
        // Redis is away: nothing was sent now. A fresh key was never queued; a key seen before may
        // name a job an earlier request queued, which may still apply.
        waiter.settle(notAnswered(op.fresh ? 'not_applied' : 'pending'));
      } else
        try {
          await queue.add(
            job.name,
            { ...job.payload, lane: laneOf(partition, this.config.queuePartitions), replyTo: this.replies!.stream },
            {
              jobId,
              // A retried job goes to the back of its queue and would overtake the customer's later
              // operations: never retry in BullMQ; processors retry transient errors themselves.
              attempts: 1,
              ...finishedJobRetention(this.config),
            },
          );
          waiter.added = true;
        } catch (err) {
          // Sent, but its fate is unknown (timed out, connection lost): it may be queued.
          this.logger?.warn({ err: (err as Error).message, jobId }, 'queue add failed');
          waiter.settle(notAnswered('pending'));
        }
      // A key seen before may name a job another process queued (its reply goes there) or one that
      // already finished: take the outcome from the job, now and until it comes.
      if (!op.fresh) this.watch(queue, jobId, waiter, done);
      else if (waiter.added) this.lookWhenOverdue(queue, jobId, waiter, done);
      const answer = await done;
      if (answer.answered) this.tell(job, op.applicationId, answer.outcome);
      return answer;
    } finally {
      clearTimeout(timer);
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(jobId) === set) this.waiters.delete(jobId);
    }
  }

  /**
   * The answer of an operation the API decided without queueing its job (a refusal it can prove
   * the worker would give): told to the listeners like a job's outcome.
   */
  answerWithoutQueue(job: AnyQueuedJob, applicationId: string, outcome: Outcome<unknown>): JobAnswer {
    this.tell(job, applicationId, outcome);
    return { answered: true, outcome };
  }

  private tell(job: AnyQueuedJob, applicationId: string, outcome: Outcome<unknown>) {
    for (const listener of this.listeners) listener(job, applicationId, outcome);
  }

  /** Reads a joined job until it is finished or `done` settles (replies of other processes never reach this one). */
  private watch(queue: Queue, jobId: string, waiter: Waiter, done: Promise<unknown>) {
    let over = false;
    void done.then(() => (over = true));
    const look = async () => {
      if (this.closed) return; // shutting down: the request is answered by its deadline
      const finished = await this.finishedOutcome(queue, jobId);
      if (finished) waiter.settle({ answered: true, outcome: finished.outcome });
      else if (!over) setTimeout(() => void look(), JOIN_POLL_MS).unref();
    };
    void look();
  }

  /**
   * Looks at a job whose reply is overdue, REPLY_GRACE_MS after its add and then at doubling
   * intervals until `done` settles: finished
   * (completed) and still no reply REPLY_LATE_MS later, its outcome is read from the job, and the
   * reply stream is made again if it was lost. A failed job is left to the end of the wait (which
   * queues it again). Its reply may still land: the waiter is settled once, with the same outcome.
   */
  private lookWhenOverdue(queue: Queue, jobId: string, waiter: Waiter, done: Promise<unknown>) {
    let over = false;
    void done.then(() => (over = true));
    const later = (fn: () => void, ms: number) => setTimeout(fn, ms).unref();
    // Each look waits twice as long as the one before (1, 2, 4, 8 s … after the add): a lost reply
    // is found within about its own age, and a machine too busy to answer in seconds — every request
    // waiting — is not asked one more command per request and second.
    let delay = REPLY_GRACE_MS;
    const look = async () => {
      if (over || this.closed) return;
      try {
        const [finishedOn, failedReason] = await this.connection!.hmget(queue.toKey(jobId), 'finishedOn', 'failedReason');
        if (failedReason) return;
        if (finishedOn) return later(() => void this.takeFinished(queue, jobId, waiter, () => over), REPLY_LATE_MS);
      } catch (err) {
        this.logger?.warn({ err: (err as Error).message, jobId }, 'reading an overdue job failed');
      }
      later(() => void look(), delay);
      delay *= 2;
    };
    later(() => void look(), delay);
    delay *= 2;
  }

  /** Answers a waiter from its finished job: its reply was lost. */
  private async takeFinished(queue: Queue, jobId: string, waiter: Waiter, over: () => boolean): Promise<void> {
    if (over() || this.closed) return;
    const finished = await this.finishedOutcome(queue, jobId);
    if (!finished || over()) return;
    this.logger?.warn(
      { jobId, stream: this.replies?.stream, waitedMs: Date.now() - waiter.since },
      'reply overdue: answered from the finished job',
    );
    void this.replies?.ensureStream();
    waiter.settle({ answered: true, outcome: finished.outcome });
  }

  /** The outcome of a job that is already finished (a failed one is queued again); null otherwise. */
  private async finishedOutcome(queue: Queue, jobId: string): Promise<{ outcome: Outcome<unknown>; finishedOn: number } | null> {
    try {
      const job = await Job.fromId(queue, jobId);
      if (!job) return null;
      if (job.finishedOn && !job.failedReason) return { outcome: parse(job.returnvalue), finishedOn: job.finishedOn };
      if (job.failedReason) await job.retry('failed');
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message, jobId }, 'reading a finished job failed');
    }
    return null;
  }

  /**
   * The wait is over: withdraw the job if it has not started, else say it is pending.
   *
   * A withdrawal answers "not applied" only to the requests whose add had completed before it was
   * sent: their add found the job (or queued it) before it was withdrawn. An add still in flight
   * may reach Redis after the withdrawal and queue the job again — a client retrying with the key
   * at the moment another request's wait ended. Told "not applied", that client could send the
   * operation again without the key while the re-created job also ran: applied twice. Such a
   * request keeps waiting, and its own wait ends with the truth about the job as it then stands.
   */
  private async expire(queue: Queue, jobId: string, waiter: Waiter): Promise<void> {
    let standing: Standing = 'pending';
    const addedBefore = [...(this.waiters.get(jobId) ?? [])].filter((w) => w.added);
    try {
      const jobKey = queue.toKey(jobId);
      const withdrawn =
        (await this.connection!.eval(WITHDRAW, 4, queue.keys.wait!, queue.keys.paused!, jobKey, `${jobKey}:logs`, jobId)) === 1;
      if (withdrawn) {
        standing = 'not_applied';
      } else {
        const finished = await this.finishedOutcome(queue, jobId);
        if (finished) {
          // How long ago it finished tells a lost reply (long ago) from a job that finished late.
          this.logger?.warn(
            { jobId, finishedMsAgo: Date.now() - finished.finishedOn, waitedMs: Date.now() - waiter.since },
            'no reply by the end of the wait: answered from the finished job',
          );
          return waiter.settle({ answered: true, outcome: finished.outcome });
        }
      }
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message, jobId }, 'withdrawing a job failed');
    }
    if (standing === 'pending') return waiter.settle(notAnswered('pending'));
    // Every request whose add completed before the withdrawal learns it (the job is gone for all of them).
    for (const w of addedBefore) w.settle(notAnswered('not_applied'));
    if (!waiter.added) waiter.settle(notAnswered('pending'));
  }

  private reply(jobId: string, body: ReplyBody) {
    if (!this.waiters.has(jobId)) return; // answered already (a timeout, a joined job read meanwhile)
    if ('failed' in body) this.fail(jobId, body.failed);
    else for (const w of this.waiters.get(jobId) ?? []) w.settle({ answered: true, outcome: parse(body.outcome) });
  }

  private fail(jobId: string, reason: string) {
    const waiting = this.waiters.get(jobId);
    if (!waiting?.size) return;
    const errorId = randomUUID();
    this.logger?.error({ errorId, jobId, reason }, 'queued operation failed');
    for (const w of waiting) w.settle(notAnswered('pending', errorId));
  }

  /** The shared producer connection (readiness pings). */
  get redis(): RedisClient {
    return this.connection!;
  }

  /** Queue handles (metrics, Bull Board). */
  get partitionQueues(): readonly Queue[] {
    return this.queues;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.replies?.close();
    await Promise.all(this.queues.map((q) => q.close()));
    await this.connection?.quit().catch(() => undefined);
  }
}

const parse = (returnvalue: unknown): Outcome<unknown> =>
  (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as Outcome<unknown>;
