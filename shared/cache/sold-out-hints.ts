/**
 * The campaigns this process has seen refused at a campaign-wide limit (total, per day, per week,
 * per month): a hint, never an answer. A redeem of a hinted campaign reads its counters before it
 * is queued, and a sold-out one is refused there (shared/usecases/apply/sold-out.usecase.ts);
 * every other redeem pays nothing for it. The hint is set by a refusal and dropped as soon as a
 * read finds the limit not reached, so a campaign costs at most one read per sell-out seen.
 */
export class SoldOutHints {
  private readonly campaigns = new Set<string>();

  /** @param capacity - how many campaigns are remembered at most (the oldest hint is dropped first) */
  constructor(private readonly capacity = 10_000) {}

  has(campaignId: string): boolean {
    return this.campaigns.has(campaignId);
  }

  mark(campaignId: string): void {
    if (this.campaigns.has(campaignId)) return;
    if (this.campaigns.size >= this.capacity) this.campaigns.delete(this.campaigns.values().next().value!);
    this.campaigns.add(campaignId);
  }

  drop(campaignId: string): void {
    this.campaigns.delete(campaignId);
  }
}
