/**
 * Returns of one order decided at once — as after a lost BullMQ lock, or two workers on one
 * partition — against the real database (shared/usecases/order-report.usecase.ts
 * `takeBackOrderEarning`): each return is recorded on the earning's entry by compare-and-set, so
 * together they never take back more than the order earned, each is taken back once, and what
 * they give back to a period cap sums to what the earning counted.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { balanceIdOf } from '../../shared/data/wallet-balance.repository.js';
import { postOrderEarning, takeBackOrderEarning, type OrderWallet } from '../../shared/usecases/order-report.usecase.js';
import { testServices } from '../support/context.js';

describe('wallet ledger: returns of one order decided at once', () => {
  const id = () => new Types.ObjectId().toHexString();
  async function earned(orderId: string) {
    const services = await testServices();
    const deps = { repos: services.repos, now: () => new Date('2026-06-15T12:00:00Z'), config: services.config };
    const at: OrderWallet = { applicationId: id(), customerId: id(), walletDbId: id(), walletId: 'loyalty', orderId };
    // 12 points, counted toward a monthly cap of 25.
    const posted = await postOrderEarning(deps, at, {
      points: 1200,
      earning: { timezone: 'UTC', rules: [{ rule: 'Base points', hundredths: 1200, cap: { period: 'month', maxHundredths: 2500 } }] },
    });
    expect(posted?.result).to.deep.include({ state: 'applied', points: 1200 });
    const balance = async () =>
      (await services.repos.walletBalances.findById(balanceIdOf(at.applicationId, at.customerId, at.walletDbId)))!;
    const credit = async () =>
      (await services.repos.walletTransactions.findByTxnId(at.applicationId, at.customerId, `order:loyalty:${orderId}`))!;
    return { deps, at, balance, credit };
  }
  const takenBack = (moved: Awaited<ReturnType<typeof takeBackOrderEarning>>) =>
    moved?.result.state === 'applied' ? moved.result.points : 0;

  it('when 10 partial returns of 3 points each race for an earning of 12, then exactly 12 are taken back, by 4 of them, and the cap gets all 12 back', async () => {
    const { deps, at, balance, credit } = await earned('race-1');
    const moves = await Promise.all(
      Array.from({ length: 10 }, (_, i) => takeBackOrderEarning(deps, at, undefined, { returnId: `r-${i}`, points: 300 })),
    );
    const taken = moves.map(takenBack);
    expect(
      taken.reduce((a, b) => a + b, 0),
      JSON.stringify(taken),
    ).to.equal(1200);
    expect(taken.filter((t) => t > 0)).to.deep.equal([300, 300, 300, 300]);
    const recorded = (await credit()).returns!;
    expect(recorded.map((r) => r.points)).to.deep.equal([300, 300, 300, 300]);
    const b = await balance();
    expect([b.points, b.periodCounters]).to.deep.equal([0, [{ rule: 'Base points', period: 'month:2026-06', hundredths: 0 }]]);
    // A repeat of a return that took part answers what it took; one that found nothing left still finds nothing.
    const winner = recorded[0]!.returnId;
    expect(takenBack(await takeBackOrderEarning(deps, at, undefined, { returnId: winner, points: 300 }))).to.equal(300);
    expect(await takeBackOrderEarning(deps, at, undefined, { returnId: 'late', points: 300 })).to.equal(null);
    expect((await balance()).version, 'the earning and four returns').to.equal(5);
  });

  it('when the whole order and three parts are returned at once, then the order is taken back exactly once in total', async () => {
    const { deps, at, balance, credit } = await earned('race-2');
    const moves = await Promise.all([
      takeBackOrderEarning(deps, at),
      ...[1, 2, 3].map((i) => takeBackOrderEarning(deps, at, undefined, { returnId: `p-${i}`, points: 500 })),
    ]);
    expect(moves.map(takenBack).reduce((a, b) => a + b, 0)).to.equal(1200);
    const recorded = (await credit()).returns!;
    expect(recorded.reduce((n, r) => n + r.points, 0)).to.equal(1200);
    // Whichever order they were decided in (the whole return first, or last finding nothing left), each took once.
    expect(new Set(recorded.map((r) => r.returnId)).size).to.equal(recorded.length);
    expect((await balance()).points).to.equal(0);
  });
});
