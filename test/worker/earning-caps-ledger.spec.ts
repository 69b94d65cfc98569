/**
 * The ledger applies an order's period caps on the counters of the balance at the entry's slot
 * (shared/usecases/wallet-ledger.ts): against the real database, orders posted at once — as after a
 * lost BullMQ lock, or two workers on one partition — together earn exactly the cap, and an entry
 * written but not applied (a worker killed between the two writes) is rolled forward with its
 * counters, so the next order sees them.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import type { RuleEarning } from '../../shared/domain/earning.js';
import { balanceIdOf } from '../../shared/data/wallet-balance.repository.js';
import { slotOf } from '../../shared/data/wallet-transaction.repository.js';
import { postLedgerEntry, type PostEntryInput } from '../../shared/usecases/wallet-ledger.js';
import { testServices } from '../support/context.js';

describe('wallet ledger: earning under a period cap', () => {
  const now = () => new Date('2026-06-15T12:00:00Z');
  const key = () => ({
    applicationId: new Types.ObjectId().toHexString(),
    customerId: new Types.ObjectId().toHexString(),
    walletDbId: new Types.ObjectId().toHexString(),
  });
  /** 12 points capped at 25 a month, and 1 uncapped. */
  const rules: RuleEarning[] = [
    { rule: 'Base points', hundredths: 1200, cap: { period: 'month', maxHundredths: 2500 } },
    { rule: 'Bonus', hundredths: 100, cap: null },
  ];
  const earn = (k: ReturnType<typeof key>, order: string): PostEntryInput => ({
    ...k,
    txnId: `order:w:${order}`,
    type: 'credit',
    points: 1300,
    description: `earned: order ${order}`,
    origin: 'order',
    earning: { timezone: 'Europe/Paris', rules },
    tiers: null,
  });

  it('when 20 orders of one customer are posted at once, then together they earn the cap once and the counter says so', async () => {
    const services = await testServices();
    const deps = { repos: services.repos, now };
    const k = key();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => postLedgerEntry(deps, earn(k, `o-${i}`))));
    const points = results.map((r) => (r.state === 'applied' ? r.points : -1));
    expect(
      points.reduce((a, b) => a + b, 0),
      JSON.stringify(points),
    ).to.equal(2500 + 20 * 100);
    const balance = (await services.repos.walletBalances.findById(balanceIdOf(k.applicationId, k.customerId, k.walletDbId)))!;
    expect(balance.points).to.equal(4500);
    expect(balance.periodCounters).to.deep.equal([{ rule: 'Base points', period: 'month:2026-06', hundredths: 2500 }]);
  });

  it('when an entry was written but not applied, then the next order rolls its counters forward before deciding', async () => {
    const services = await testServices();
    const deps = { repos: services.repos, now };
    const k = key();
    const id = balanceIdOf(k.applicationId, k.customerId, k.walletDbId);
    await postLedgerEntry(deps, earn(k, 'first')); // slot 0: 13, counter 12
    // A worker killed between the entry's write and the balance's move: slot 1 holds an earning of 12 + 1 the balance does not show.
    await services.repos.walletTransactions.insert({
      ...k,
      txnId: 'order:w:killed',
      type: 'credit',
      points: 1300,
      description: 'earned: order killed',
      origin: 'order',
      slot: slotOf(id, 1),
      seq: 1,
      before: 1300,
      after: 2600,
      stored: 'posted',
      periodCounters: [{ rule: 'Base points', period: 'month:2026-06', hundredths: 2400 }],
      periodCounted: [{ rule: 'Base points', period: 'month:2026-06', hundredths: 1200 }],
    });
    expect((await services.repos.walletBalances.findById(id))!.periodCounters[0]!.hundredths, 'not applied yet').to.equal(1200);
    const next = await postLedgerEntry(deps, earn(k, 'next'));
    expect(next).to.deep.include({ state: 'applied', points: 100 + 100, before: 2600 });
    const balance = (await services.repos.walletBalances.findById(id))!;
    expect([balance.points, balance.version]).to.deep.equal([2800, 3]);
    expect(balance.periodCounters).to.deep.equal([{ rule: 'Base points', period: 'month:2026-06', hundredths: 2500 }]);
  });
});
