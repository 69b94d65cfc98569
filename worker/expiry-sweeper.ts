/**
 * The expiry sweep of a worker process (docs/wallets.md): every `EXPIRY_SWEEP_MS`, the balances
 * with points due to become available or to expire get a settle job on their customer's
 * partition (shared/usecases/settle-wallet.usecase.ts). Every worker sweeps; sweeps at once are
 * harmless (job ids derive from the balance and the instant). A cursor over (due instant, balance)
 * makes each due balance read and queued once, not once per tick (see `sweep`).
 */
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { Queue } from 'bullmq';
import { customerKeyOf, finishedJobRetention, JOB, laneOf, partitionOf, partitionQueues } from '../shared/queue/names.js';
import type { Services } from '../shared/services.js';
import { dueSettleJobs, type SettleJob } from '../shared/usecases/settle-wallet.usecase.js';

/** Balances read and queued per step. */
const PAGE = 1000;
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
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .then((n) => n > 0 && this.logger.info({ queued: n }, 'expiry sweep'))
        .catch((err) => this.logger.error({ err }, 'expiry sweep failed'))
        .finally(() => (this.sweeping = undefined));
    }, this.config.expirySweepMs);
    this.timer.unref();
  }

  /**
   * One tick: queues the settle jobs of every balance due after the cursor, a page at a time, and
   * leaves the cursor at the last. Due instants only grow behind it (a credit's instants are in
   * its future; a settle job moves a balance past its now), so nothing is missed by not reading
   * the range again; every RESTART_MS a pass starts from the soonest anyway, the net under a job
   * lost from Redis or a clock a little off (what it queues again is a no-op: same job id).
   * Returns how many jobs it sent.
   */
  async sweep(): Promise<number> {
    if (Date.now() - this.passStarted >= RESTART_MS) {
      this.cursor = null;
      this.passStarted = Date.now();
    }
    let sent = 0;
    for (;;) {
      const { jobs, last } = await dueSettleJobs(this.services, PAGE, this.cursor ?? undefined);
      if (last) this.cursor = last;
      await this.send(jobs);
      sent += jobs.length;
      if (jobs.length < PAGE) return sent;
    }
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
    clearInterval(this.timer);
    await this.sweeping;
    await this.own?.close();
  }
}
