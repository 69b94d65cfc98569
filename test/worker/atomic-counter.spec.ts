import { expect } from 'chai';
import { paceWatchdog } from '../support/pace.js';
import { mongo, Types } from 'mongoose';
import { campaignCounterId, customerCounterId, type CounterSpec, type PeriodKeys } from '../../shared/data/limit-counter.repository.js';
import { redemptionKey } from '../../shared/data/redemption-journal.repository.js';
import { periodKeysOfDay } from '../../shared/domain/periods.js';
import type { Services } from '../../shared/services.js';
import { clearAll, laneChange, laneEntry, newAttempt, reserveAll, undoAll } from '../../shared/usecases/limit-counters.js';
import { testDatabase, testServices } from '../support/context.js';

/**
 * The guarantee every limit rests on — a guarded single-document update is atomic — and the
 * limit counters' protocol built on it (shared/usecases/limit-counters.ts), with real concurrent
 * updates on the real database and no proxy in the way.
 */
describe('guarded single-document updates under concurrency', () => {
  it('when 300 concurrent guarded $inc race for a limit of 50, then exactly 50 succeed and the counter ends at 50', async () => {
    const db = await testDatabase();
    const col = db.connection.db!.collection<{ _id: string; count: number }>(`atomic_${Date.now()}`);
    await col.insertOne({ _id: 'c', count: 0 });
    const results = await Promise.all(
      Array.from({ length: 300 }, () => col.updateOne({ _id: 'c', count: { $lt: 50 } }, { $inc: { count: 1 } })),
    );
    expect(results.filter((r) => r.modifiedCount === 1)).to.have.length(50);
    expect((await col.findOne({ _id: 'c' }))!.count).to.equal(50);
    await col.drop();
  });
});

describe('limit counters: the reserve → commit → clear protocol', () => {
  let services: Services;
  let applicationId: string;
  let campaignId: string;
  const periods: PeriodKeys = { day: '2026-11-23', week: '2026-W48', month: '2026-11' };
  const campaign = (limits: CounterSpec['limits']): CounterSpec => ({
    id: campaignCounterId(campaignId),
    applicationId,
    campaignId,
    kind: 'campaign',
    limits,
  });
  /** The redemption key of an order's first cycle (`<campaign>:<order ref>:1`, the order ref a hash of its id). */
  const keyOf = (orderId: string) => redemptionKey(campaignId, orderId, 1);
  /** A committed redemption's journal entry, as a redeem would write it. */
  const commit = (orderId: string, attempt: string, counters: CounterSpec[]) =>
    services.repos.redemptions.commitCycle(
      {
        applicationId,
        campaignId,
        customerId: new Types.ObjectId().toString(),
        couponCodeId: null,
        orderId,
        cycle: 1,
        key: keyOf(orderId),
        couponId: 'x',
        code: 'X',
        discountCents: 0,
        cashbackCents: 0,
        cashbackWallet: null,
        periods,
        counters: counters.map((c) => c.id),
        refusal: null,
        redeemJobId: `job-${orderId}`,
      },
      attempt,
      'completed',
    );
  /** One whole redemption in `lane`: reserve, commit, clear. */
  async function redeem(spec: CounterSpec, lane: string, orderId: string, at = periods) {
    const attempt = newAttempt();
    const r = await reserveAll(services, [spec], { lane, key: keyOf(orderId), attempt, step: 1, periods: at });
    if (r.refused.length) return false;
    expect(await commit(orderId, attempt, [spec])).to.equal(true);
    await clearAll(services, r.changed, lane, r.entry);
    return true;
  }
  const counter = () => services.repos.limitCounters.find(campaignCounterId(campaignId));

  beforeEach(async () => {
    services = await testServices();
    applicationId = new Types.ObjectId().toString();
    campaignId = new Types.ObjectId().toString();
  });

  it('when 300 redeems in 300 lanes race for a total limit of 40, then exactly 40 complete and 40 are counted', async () => {
    const spec = campaign({ total: 40 });
    const done = await Promise.all(Array.from({ length: 300 }, (_, i) => redeem(spec, `p${i}`, `o${i}`)));
    expect(done.filter(Boolean)).to.have.length(40);
    const doc = await counter();
    expect(doc!.total).to.equal(40);
    expect(doc!.d).to.deep.equal({ k: periods.day, n: 40, a: 0 });
    expect(doc!.lanes ?? {}).to.deep.equal({});
  });

  it('when 30 first takers race to create a counter far below its limit, then all 30 are counted', async () => {
    const spec = campaign({ total: 1000 });
    const done = await Promise.all(Array.from({ length: 30 }, (_, i) => redeem(spec, `p${i}`, `first${i}`)));
    expect(done.every(Boolean)).to.equal(true);
    expect((await counter())!.total).to.equal(30);
  });

  it('when a run reserves and dies before committing, then the next change in its lane undoes it exactly once', async () => {
    const spec = campaign({ total: 2 });
    const dead = newAttempt();
    const { entry } = await reserveAll(services, [spec], { lane: 'p1', key: keyOf('dead'), attempt: dead, step: 1, periods });
    expect((await counter())!.total).to.equal(1);
    // The next redeem in lane p1 settles the abandoned change, then takes its own slot.
    expect(await redeem(spec, 'p1', 'next')).to.equal(true);
    expect(await redeem(spec, 'p2', 'third')).to.equal(true);
    expect((await counter())!.total).to.equal(2);
    // The dead attempt can never commit now, and undoing it again changes nothing.
    expect(await commit('dead', dead, [spec])).to.equal(false);
    await undoAll(services, [spec], 'p1', entry);
    expect((await counter())!.total).to.equal(2);
  });

  it('when a run commits and dies before clearing its lane, then the next change in the lane keeps its count', async () => {
    const spec = campaign({ total: 5 });
    const attempt = newAttempt();
    await reserveAll(services, [spec], { lane: 'p1', key: keyOf('kept'), attempt, step: 1, periods });
    expect(await commit('kept', attempt, [spec])).to.equal(true);
    expect(await redeem(spec, 'p1', 'after')).to.equal(true);
    const doc = await counter();
    expect(doc!.total).to.equal(2);
    expect(doc!.lanes ?? {}).to.deep.equal({});
  });

  it('when a stale run and its re-run overlap (a lost lock), then the order is counted once', async () => {
    const spec = campaign({ total: 10 });
    const key = keyOf('overlap');
    const stale = newAttempt();
    const staleRun = await reserveAll(services, [spec], { lane: 'p3', key, attempt: stale, step: 1, periods });
    // The re-run settles the stale reservation (abandoning it), reserves and commits its own.
    const rerun = newAttempt();
    const r = await reserveAll(services, [spec], { lane: 'p3', key, attempt: rerun, step: 1, periods });
    expect(await commit('overlap', rerun, [spec])).to.equal(true);
    await clearAll(services, r.changed, 'p3', r.entry);
    // The stale run wakes up: its commit fails, and it gives back what it believes it took.
    expect(await commit('overlap', stale, [spec])).to.equal(false);
    await undoAll(services, [spec], 'p3', staleRun.entry);
    expect((await counter())!.total).to.equal(1);
  });

  it('when 1,000 redemptions are counted, then the counter document keeps the same size', async function () {
    const spec = { ...campaign({ total: 1_000_000 }), id: customerCounterId(campaignId, 'c'), kind: 'customer' as const };
    await redeem(spec, 'p0', 'warm');
    const size = async () => JSON.stringify(await services.repos.limitCounters.find(spec.id)).length;
    const first = await size();
    // The time allowed comes from the pace of every 50 on this machine as it runs (test/support/pace.ts).
    const watchdog = paceWatchdog(this, 1000);
    for (let i = 0; i < 1000; i++) {
      watchdog(i);
      await redeem(spec, `p${i % 16}`, `o${i}`);
    }
    expect((await services.repos.limitCounters.find(spec.id))!.total).to.equal(1001);
    expect(await size()).to.be.at.most(first + 4); // 1 → 1001: three more digits
  });

  it('when the day rolls over, then the day count restarts at 1 and a give-back of yesterday leaves today alone', async () => {
    const spec = campaign({ day: 2 });
    expect(await redeem(spec, 'p0', 'd1', periods)).to.equal(true);
    expect(await redeem(spec, 'p0', 'd2', periods)).to.equal(true);
    expect(await redeem(spec, 'p0', 'd3', periods)).to.equal(false);
    const tomorrow = { ...periods, day: '2026-11-24' };
    expect(await redeem(spec, 'p0', 'd4', tomorrow)).to.equal(true);
    expect((await counter())!.d).to.deep.equal({ k: '2026-11-24', n: 1, a: 0 });
    const back = newAttempt();
    await reserveAll(services, [spec], { lane: 'p0', key: keyOf('d1'), attempt: back, step: -1, periods });
    const doc = await counter();
    expect(doc!.d).to.deep.equal({ k: '2026-11-24', n: 1, a: 0 });
    expect(doc!.total).to.equal(2);
  });

  it('when 64 lanes each hold a change of an order with a 256-character id, then the campaign counter stays under 4 KB', async () => {
    const spec = campaign({ total: 1_000_000, day: 900_000, week: 900_000, month: 900_000 });
    const taken = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        reserveAll(services, [spec], {
          lane: `p64_${String(i).padStart(2, '0')}`,
          key: keyOf(`${i}-`.padEnd(256, 'x')),
          attempt: newAttempt(),
          step: 1,
          periods,
        }),
      ),
    );
    expect(taken.every((t) => t.changed.length === 1)).to.equal(true);
    const doc = await counter();
    expect(Object.keys(doc!.lanes!)).to.have.length(64);
    expect(mongo.BSON.calculateObjectSize(doc!)).to.be.below(4096);
  });

  it('when a change is written to a lane and read back, then attempt, step, day and key come back; week and month follow from the day', () => {
    for (const key of [`${campaignId}:AbCd-_0123456789:1`, `${campaignId}:an/order:with/slashes:12`]) {
      for (const step of [1, -1] as const) {
        const change = { attempt: newAttempt(), step, periods: periodKeysOfDay('2027-01-03'), key };
        expect(laneChange(campaignId, laneEntry(change))).to.deep.equal(change);
      }
    }
    expect(laneChange(campaignId, laneEntry({ attempt: 'a', step: 1, periods: null, key: `${campaignId}:o:1` })).periods).to.equal(null);
    expect(periodKeysOfDay('2027-01-03')).to.deep.equal({ day: '2027-01-03', week: '2026-W53', month: '2027-01' });
  });

  it('when an order id is hashed, then its key has the same length whatever the id', () => {
    expect(redemptionKey(campaignId, 'x'.repeat(256), 3)).to.have.length(redemptionKey(campaignId, 'o1', 3).length);
    expect(redemptionKey(campaignId, 'o1', 1)).to.not.equal(redemptionKey(campaignId, 'o2', 1));
    expect(redemptionKey(campaignId, 'o1', 2)).to.match(new RegExp(`^${campaignId}:[A-Za-z0-9_-]{16}:2$`));
  });
});
