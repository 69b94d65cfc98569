/**
 * The expiry sweep of a worker process (docs/wallets.md): every `EXPIRY_SWEEP_MS`, the balances
 * with points due to become available or to expire get a settle job on their customer's
 * partition (shared/usecases/settle-wallet.usecase.ts). Every worker sweeps; sweeps at once are
 * harmless (job ids derive from the balance and the instant). A cursor over (due instant, balance)
 * makes each due balance read and queued once, not once per tick, and a budget that halves while
 * the partitions are busy keeps a mass expiry from taking the machine from the checkouts (`sweep`).
 */
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { Queue } from 'bullmq';
import { customerKeyOf, finishedJobRetention, JOB, laneOf, partitionOf, partitionQueues } from '../shared/queue/names.js';
import type { Services } from '../shared/services.js';
import { dueSettleJobs, type SettleJob } from '../shared/usecases/settle-wallet.usecase.js';

/** Balances a tick may queue: the first tick's, the least under load, the most when idle. */
const START_BUDGET = 64;
const MIN_BUDGET = 4;
const MAX_BUDGET = 4096;
/** How soon the next tick comes while more is due than a tick queues. */
const BACKLOG_TICK_MS = 250;
/**
 * Settle jobs are prioritized (BullMQ: jobs without a priority go first): a partition runs them
 * only while no customer operation waits, so a million buckets falling due at once never queue
 * ahead of a checkout. Under saturating load they wait; nothing is lost meanwhile — an operation on
 * a due balance posts its transitions first (docs/wallets.md).
 */
const SETTLE_PRIORITY = 1000;
/** How often a pass starts again from the soonest due balance. */
const RESTART_MS = 60_000;

export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  /** The last balance queued (null: start from the soonest). */
  private cursor: { due: Date; id: string } | null = null;
  private passStarted = Date.now();
  /** How many balances the next tick may queue (see `sweep`). */
  private budget = START_BUDGET;
  /** The last tick used up its budget: more is due, tick again soon. */
  private backlog = false;
  private closed = false;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly services: Pick<Services, 'repos' | 'now'>,
    /** Handles on every partition queue, closed by their owner; absent: the sweeper opens (and closes) its own. */
    queues?: readonly Queue[],
  ) {
    this.own = queues ? null : partitionQueues(config);
    this.queues = queues ?? this.own!.queues;
  }

  private readonly queues: readonly Queue[];
  private readonly own: ReturnType<typeof partitionQueues> | null;

  start(): void {
    this.schedule(this.config.expirySweepMs);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.sweeping = this.sweep()
        .then((n) => {
          if (n > 0) this.logger.info({ queued: n, budget: this.budget }, 'expiry sweep');
          return this.backlog ? BACKLOG_TICK_MS : this.config.expirySweepMs;
        })
        .catch((err) => {
          this.logger.error({ err }, 'expiry sweep failed');
          return this.config.expirySweepMs;
        })
        .then((next) => this.schedule(next));
    }, ms);
    this.timer.unref();
  }

  /**
   * One tick. While settle jobs this sweep queued still wait, the partitions are busy with
   * customer operations (settle jobs run only when none waits): nothing more is queued and the
   * budget halves. While customer operations wait on any partition, the machine is busy with
   * checkouts even where a partition is idle (settle jobs on idle partitions would take the CPU
   * from them): the budget halves, down to a trickle of MIN_BUDGET per tick. Otherwise up to `budget`
   * balances due after the cursor are queued and, when the budget was used up (more is due), it
   * doubles. So a mass expiry or tier re-assessment runs as fast as an idle machine takes it and
   * shrinks to a trickle under load: the checkouts keep the machine (docs/wallets.md).
   *
   * The cursor: due instants only grow behind it (a credit's instants are in its future; a settle
   * job moves a balance past its now), so nothing is missed by not reading the range again; every
   * RESTART_MS a pass starts again from the soonest anyway, the net under a job lost from Redis or
   * a clock a little off (what it queues again is a no-op: same job id). Returns how many it sent.
   */
  async sweep(): Promise<number> {
    if (Date.now() - this.passStarted >= RESTART_MS) {
      this.cursor = null;
      this.passStarted = Date.now();
    }
    const waiting = this.backlog ? await this.waitingJobs() : { settles: 0, operations: 0 };
    if (waiting.settles > 0) {
      this.budget = Math.max(MIN_BUDGET, Math.floor(this.budget / 2));
      return 0;
    }
    if (waiting.operations > 0) this.budget = Math.max(MIN_BUDGET, Math.floor(this.budget / 2));
    const { jobs, last } = await dueSettleJobs(this.services, this.budget, this.cursor ?? undefined);
    if (last) this.cursor = last;
    await this.send(jobs);
    this.backlog = jobs.length === this.budget;
    if (this.backlog && waiting.operations === 0) this.budget = Math.min(MAX_BUDGET, this.budget * 2);
    return jobs.length;
  }

  /**
   * Jobs queued and not started over every partition (one command each, sent together): settle
   * jobs (prioritized) and customer operations (waiting) apart.
   */
  private async waitingJobs(): Promise<{ settles: number; operations: number }> {
    const counts = await Promise.all(this.queues.map((q) => q.getJobCounts('prioritized', 'wait')));
    return {
      settles: counts.reduce((a, c) => a + (c.prioritized ?? 0), 0),
      operations: counts.reduce((a, c) => a + (c.wait ?? 0), 0),
    };
  }

  private async send(jobs: SettleJob[]): Promise<void> {
    const { config } = this;
    const byPartition = new Map<number, SettleJob[]>();
    for (const j of jobs) {
      const p = partitionOf(customerKeyOf(j.applicationId, j.customerId), config.queuePartitions);
      byPartition.set(p, [...(byPartition.get(p) ?? []), j]);
    }
    await Promise.all(
      [...byPartition].map(([p, js]) =>
        this.queues[p]!.addBulk(
          js.map((j) => ({
            name: JOB.walletSettle,
            data: { ...j.payload, lane: laneOf(p, config.queuePartitions) },
            opts: { jobId: j.jobId, attempts: 1, priority: SETTLE_PRIORITY, ...finishedJobRetention(config) },
          })),
        ),
      ),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.sweeping;
    await this.own?.close();
  }
}
