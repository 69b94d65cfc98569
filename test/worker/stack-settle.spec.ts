import { expect } from 'chai';
import { Types } from 'mongoose';
import { campaignCounterId, type CounterSpec, type PeriodKeys } from '../../shared/data/limit-counter.repository.js';
import { redemptionKey, stackKey, stackKeyOfAttempt } from '../../shared/data/redemption-journal.repository.js';
import type { Services } from '../../shared/services.js';
import { clearAll, newAttempt, newStackAttempt, reserveAll } from '../../shared/usecases/limit-counters.js';
import { testServices } from '../support/context.js';

/**
 * Several coupons on one order (docs/architecture.md, "Several coupons"): the counters of every
 * coupon are taken under one stack attempt, and a lane left behind is settled against the order's
 * stack record — the one commit point — so every coupon's change is kept, or undone, together.
 * Played on the real database with the repository calls a stacked redeem makes.
 */
describe('limit counters: several coupons under one stack attempt', () => {
  let services: Services;
  let applicationId: string;
  let campaigns: string[];
  const periods: PeriodKeys = { day: '2026-11-27', week: '2026-W48', month: '2026-11' };
  const spec = (campaignId: string, total: number): CounterSpec => ({
    id: campaignCounterId(campaignId),
    applicationId,
    campaignId,
    kind: 'campaign',
    limits: { total },
  });
  const totals = async () =>
    Promise.all(campaigns.map(async (c) => (await services.repos.limitCounters.find(campaignCounterId(c)))?.total ?? 0));
  const lanes = async () =>
    Promise.all(
      campaigns.map(async (c) => Object.keys((await services.repos.limitCounters.find(campaignCounterId(c)))?.lanes ?? {}).length),
    );

  /** Step 1 of a stacked redeem of order `orderId`: every campaign's counter under one stack attempt of stack n. */
  const reserveStack = async (orderId: string, n: number, lane: string) => {
    const attempt = newStackAttempt(n);
    const taken = await Promise.all(
      campaigns.map((c) => reserveAll(services, [spec(c, 10)], { lane, key: redemptionKey(c, orderId, 1), attempt, step: 1, periods })),
    );
    return { attempt, taken };
  };
  const stackFields = (orderId: string, n: number, attempt: string) => ({
    state: 'completed' as const,
    applicationId,
    customerId: new Types.ObjectId().toString(),
    orderId,
    cycle: n,
    cycles: [],
    refusal: null,
    redeemJobId: `job-${orderId}`,
    revertJobId: null,
    attempt,
    revertAttempt: null,
  });
  /** A whole single-coupon redeem of `campaignId` in `lane` (it settles what the lane holds first). */
  const redeemOne = async (campaignId: string, lane: string, orderId: string) => {
    const attempt = newAttempt();
    const r = await reserveAll(services, [spec(campaignId, 10)], {
      lane,
      key: redemptionKey(campaignId, orderId, 1),
      attempt,
      step: 1,
      periods,
    });
    expect(r.refused).to.have.length(0);
    await clearAll(services, r.changed, lane, r.entry);
  };

  beforeEach(async () => {
    services = await testServices();
    applicationId = new Types.ObjectId().toString();
    campaigns = [new Types.ObjectId().toString(), new Types.ObjectId().toString(), new Types.ObjectId().toString()];
  });

  it('when a stack attempt is named in a lane, then its commit point is the order stack record', () => {
    const key = redemptionKey(campaigns[0]!, 'order-7', 1);
    expect(stackKeyOfAttempt(applicationId, key, 'AbC-_012~3')).to.equal(stackKey(applicationId, 'order-7', 3));
    expect(stackKeyOfAttempt(applicationId, key, newAttempt())).to.equal(null);
  });

  it('when a stacked redeem reserves every counter and dies before its stack record commits, then the next change in each lane undoes all of them, and the attempt can never commit', async () => {
    const { attempt } = await reserveStack('dead', 1, 'p1');
    expect(await totals()).to.deep.equal([1, 1, 1]);
    // The next redeem in lane p1 of each campaign settles the abandoned change, then takes its own slot.
    for (const c of campaigns) await redeemOne(c, 'p1', `next-${c}`);
    expect(await totals()).to.deep.equal([1, 1, 1]);
    expect(await lanes()).to.deep.equal([0, 0, 0]);
    expect(
      await services.repos.redemptions.commitStack(stackKey(applicationId, 'dead', 1), attempt, stackFields('dead', 1, attempt)),
    ).to.equal(false);
  });

  it('when a stacked redeem commits its stack record and dies before clearing its lanes, then the next change in each lane keeps every count', async () => {
    const { attempt } = await reserveStack('kept', 1, 'p1');
    expect(
      await services.repos.redemptions.commitStack(stackKey(applicationId, 'kept', 1), attempt, stackFields('kept', 1, attempt)),
    ).to.equal(true);
    for (const c of campaigns) await redeemOne(c, 'p1', `next-${c}`);
    expect(await totals()).to.deep.equal([2, 2, 2]);
    expect(await lanes()).to.deep.equal([0, 0, 0]);
    const stacks = await services.repos.redemptions.stacks(applicationId, 'kept');
    expect(stacks.map((s) => [s.cycle, s.state, s.attempt])).to.deep.equal([[1, 'completed', attempt]]);
  });

  it('when a settle abandons a stack attempt, then a later stack of the same order with another attempt commits', async () => {
    const first = await reserveStack('again', 1, 'p1');
    await redeemOne(campaigns[0]!, 'p1', 'settler'); // abandons `first` at the stack record
    expect(
      await services.repos.redemptions.commitStack(
        stackKey(applicationId, 'again', 1),
        first.attempt,
        stackFields('again', 1, first.attempt),
      ),
    ).to.equal(false);
    const second = newStackAttempt(1);
    expect(
      await services.repos.redemptions.commitStack(stackKey(applicationId, 'again', 1), second, stackFields('again', 1, second)),
    ).to.equal(true);
  });
});
