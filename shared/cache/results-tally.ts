/**
 * What a campaign's results count outside the redemption protocol (docs/results.md): refusals by
 * reason (validate and redeem) and customers redeeming for the first time. Counted in memory by
 * each process and written every RESULTS_TALLY_MS in one bulk write per collection, so that a
 * validate costs no write of its own. A process killed loses what it had not written yet (at most
 * that long's); a redeem job run twice counts its refusal twice. The redemptions, reverts and
 * amounts are not counted here: they are counters of the redemption protocol, exact after any crash.
 */
import type { CustomerSeen, RefusalCount, campaignTallyRepository } from '../data/campaign-tally.repository.js';
import type { Logger } from '../logger.js';
import { BatchedWriter } from './batched-writer.js';

/** Past this many pending entries (a database away for long), new ones are dropped and counted as dropped. */
const MAX_PENDING = 50_000;

export class ResultsTally extends BatchedWriter {
  private refusals = new Map<string, RefusalCount>();
  private customers = new Map<string, CustomerSeen>();
  /** Entries dropped because too many were pending. */
  dropped = 0;

  constructor(
    private readonly repos: { campaignTallies: ReturnType<typeof campaignTallyRepository> },
    everyMs: number,
    private readonly logger?: Logger,
  ) {
    super(everyMs);
  }

  private get size() {
    return this.refusals.size + this.customers.size;
  }

  /** A validate or redeem of `campaignId` refused for `reason` in local hour `hour`. */
  refused(applicationId: string, campaignId: string, hour: string, reason: string): void {
    const key = `${campaignId}:${hour}:${reason}`;
    const r = this.refusals.get(key);
    if (r) r.n++;
    else if (this.size < MAX_PENDING) this.refusals.set(key, { applicationId, campaignId, hour, reason, n: 1 });
    else this.dropped++;
    this.schedule();
  }

  /** A redemption of `campaignId` by `customerId` committed in local hour `hour`. */
  redeemed(applicationId: string, campaignId: string, customerId: string, hour: string): void {
    const key = `${campaignId}:${customerId}`;
    if (this.customers.has(key)) return;
    if (this.size < MAX_PENDING) this.customers.set(key, { applicationId, campaignId, customerId, hour });
    else this.dropped++;
    this.schedule();
  }

  /** Writes what is pending; what fails to be written is kept for the next time. */
  protected async write(): Promise<void> {
    const refusals = [...this.refusals.values()];
    const customers = [...this.customers.values()];
    this.refusals = new Map();
    this.customers = new Map();
    if (refusals.length === 0 && customers.length === 0) return;
    const [r, c] = await Promise.allSettled([
      this.repos.campaignTallies.addRefusals(refusals),
      this.repos.campaignTallies.addCustomers(customers),
    ]);
    if (r.status === 'rejected') for (const x of refusals) this.refusals.set(`${x.campaignId}:${x.hour}:${x.reason}`, x);
    if (c.status === 'rejected') for (const x of customers) this.customers.set(`${x.campaignId}:${x.customerId}`, x);
    if (r.status === 'rejected' || c.status === 'rejected') {
      const reason = r.status === 'rejected' ? r.reason : (c as PromiseRejectedResult).reason;
      this.logger?.warn({ err: reason }, 'campaign results: tallies not written yet, kept for the next try');
      this.schedule();
    }
  }
}
