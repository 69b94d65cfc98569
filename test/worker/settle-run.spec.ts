/**
 * A settle posts a balance's due transitions as one run (one ordered insert, one guarded update:
 * shared/usecases/wallet-ledger.ts `settleBalance`). Two settles of the same balance at once — a
 * lost BullMQ lock, or the sweep's job and a re-run — collide in the middle of each other's runs;
 * every bucket must still expire exactly once, in order, the ledger chained and the balance right.
 * Against the real database.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { nextDue, type Bucket } from '../../shared/domain/point-buckets.js';
import { balanceIdOf } from '../../shared/data/wallet-balance.repository.js';
import { settleBalance } from '../../shared/usecases/wallet-ledger.js';
import { testServices } from '../support/context.js';

describe('wallet ledger: settling a run of transitions', () => {
  it('when two settles of a balance with 25 due buckets run at once, ten times over, then each bucket expires once and the ledger is chained', async () => {
    const services = await testServices();
    const Balance = services.db.models.WalletBalance.collection;
    const at = Date.parse('2026-05-01T00:00:00Z');
    const now = () => new Date(at + 60_000);
    for (let round = 0; round < 10; round++) {
      const application = new Types.ObjectId();
      const customer = new Types.ObjectId();
      const wallet = new Types.ObjectId();
      const id = balanceIdOf(application.toHexString(), customer.toHexString(), wallet.toHexString());
      // 25 buckets of 1..25 points, due 1 ms apart, plus 7 points that never expire.
      const buckets: Bucket[] = Array.from({ length: 25 }, (_, i) => ({
        id: `e${at + i}.0`,
        points: i + 1,
        availableAt: null,
        expiresAt: new Date(at + i),
      }));
      const points = 7 + buckets.reduce((s, b) => s + b.points, 0);
      await Balance.insertOne({
        _id: id as never,
        application,
        customer,
        wallet,
        points,
        version: 0,
        buckets,
        nextDue: nextDue({ points, buckets }),
        updatedAt: new Date(),
      });
      const key = { applicationId: application.toHexString(), customerId: customer.toHexString(), walletDbId: wallet.toHexString() };
      const deps = { repos: services.repos, now };
      const [a, b] = await Promise.all([
        settleBalance(deps, { ...key, trigger: 'settle:a', tiers: null }),
        settleBalance(deps, { ...key, trigger: 'settle:b', tiers: null }),
      ]);
      expect(a + b, 'entries written by the two runs').to.equal(25);

      const balance = (await services.repos.walletBalances.findById(id))!;
      expect([balance.points, balance.version, balance.buckets]).to.deep.equal([7, 25, []]);
      const raw = await Balance.findOne({ _id: id as never });
      expect(raw?.nextDue, 'nothing due any more').to.equal(undefined);
      const entries = await services.repos.walletTransactions.listForCustomer(key.applicationId, key.customerId, key.walletDbId);
      expect(entries.map((e) => [e.type, e.points, e.seq, e.state])).to.deep.equal(
        buckets.map((k, i) => ['expired', k.points, i, 'applied']),
      );
      for (let i = 1; i < entries.length; i++) expect(entries[i]!.before).to.equal(entries[i - 1]!.after);
      expect(entries.at(-1)!.after).to.equal(7);
      expect(await services.repos.walletTransactions.sumApplied(key.applicationId, key.customerId, key.walletDbId)).to.equal(7 - points);
    }
  });

  it('when a settle wrote its run of entries and died before moving the balance, then the next settle rolls them forward once each', async () => {
    const services = await testServices();
    const Balance = services.db.models.WalletBalance.collection;
    const at = Date.parse('2026-06-01T00:00:00Z');
    const now = () => new Date(at + 60_000);
    const application = new Types.ObjectId();
    const customer = new Types.ObjectId();
    const wallet = new Types.ObjectId();
    const id = balanceIdOf(application.toHexString(), customer.toHexString(), wallet.toHexString());
    const buckets: Bucket[] = Array.from({ length: 12 }, (_, i) => ({
      id: `e${at + i}.0`,
      points: 10,
      availableAt: null,
      expiresAt: new Date(at + i),
    }));
    await Balance.insertOne({
      _id: id as never,
      application,
      customer,
      wallet,
      points: 120,
      version: 0,
      buckets,
      nextDue: new Date(at),
      updatedAt: new Date(),
    });
    const key = { applicationId: application.toHexString(), customerId: customer.toHexString(), walletDbId: wallet.toHexString() };
    // The crashed run: its entries are written, its balance update never happens (it dies in between).
    const died = new Error('killed between the insert and the update');
    const crashing = {
      ...services.repos,
      walletBalances: { ...services.repos.walletBalances, applyAtVersion: () => Promise.reject(died) },
    };
    const crashed = await settleBalance({ repos: crashing, now }, { ...key, trigger: 'settle:first', tiers: null }).catch(
      (e: unknown) => e,
    );
    expect(crashed).to.equal(died);
    expect((await services.repos.walletBalances.findById(id))!.version, 'the balance never moved').to.equal(0);

    const written = await settleBalance({ repos: services.repos, now }, { ...key, trigger: 'settle:again', tiers: null });
    expect(written, "the second run wrote nothing new: it rolled the first run's entries forward").to.equal(0);
    const balance = (await services.repos.walletBalances.findById(id))!;
    expect([balance.points, balance.version, balance.buckets]).to.deep.equal([0, 12, []]);
    const entries = await services.repos.walletTransactions.listForCustomer(key.applicationId, key.customerId, key.walletDbId);
    expect(entries.map((e) => [e.seq, e.before, e.after, e.state])).to.deep.equal(
      buckets.map((_, i) => [i, 120 - 10 * i, 110 - 10 * i, 'applied']),
    );
  });
});
