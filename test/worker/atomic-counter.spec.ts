import { expect } from 'chai';
import { Types } from 'mongoose';
import { testDatabase, testServices } from '../support/context.js';

/**
 * The guarantee every limit rests on: a guarded single-document update is atomic. True on
 * mongod; on FerretDB only through the harness's write proxy (docs/architecture.md).
 */
describe('guarded single-document updates under concurrency', () => {
  it('when 400 concurrent guarded $inc race for a limit of 57, then the counter ends exactly at 57', async () => {
    const db = await testDatabase();
    const col = db.connection.db!.collection(`atomic_${Date.now()}`);
    await col.insertOne({ _id: 'c' as unknown as Types.ObjectId, count: 0 });
    const results = await Promise.all(
      Array.from({ length: 400 }, () =>
        col.updateOne({ _id: 'c' as unknown as Types.ObjectId, count: { $lt: 57 } }, { $inc: { count: 1 } }),
      ),
    );
    expect(results.filter((r) => r.modifiedCount === 1)).to.have.length(57);
    expect((await col.findOne({ _id: 'c' as unknown as Types.ObjectId }))!.count).to.equal(57);
    await col.drop();
  });

  it('when 300 holders race to take a usage counter with limit 40, then exactly 40 hold it and re-takes are idempotent', async () => {
    const services = await testServices();
    const app = new Types.ObjectId().toString();
    const campaign = new Types.ObjectId().toString();
    const takes = await Promise.all(
      Array.from({ length: 300 }, (_, i) => services.repos.usageCounters.take(app, campaign, 'total', `h${i}`, 40)),
    );
    expect(takes.filter(Boolean)).to.have.length(40);
    const winners = takes.map((t, i) => (t ? `h${i}` : null)).filter((h): h is string => h !== null);
    // Taking again with a holder already counted reports taken without counting.
    expect(await services.repos.usageCounters.take(app, campaign, 'total', winners[0]!, 40)).to.equal(true);
    const counts = await services.repos.usageCounters.read(app, [campaign], ['total']);
    expect(counts.get(`${campaign}|total`)).to.equal(40);
    await Promise.all(winners.map((h) => services.repos.usageCounters.giveBack(app, campaign, 'total', h)));
    await services.repos.usageCounters.giveBack(app, campaign, 'total', winners[0]!); // twice: a no-op
    expect((await services.repos.usageCounters.read(app, [campaign], ['total'])).get(`${campaign}|total`)).to.equal(0);
  });
});

describe('usage counters: the first takers of a new counter', () => {
  it('when 30 holders race to create and take a counter far below its limit, then all 30 get a slot', async () => {
    const services = await testServices();
    const app = new Types.ObjectId().toString();
    const campaign = new Types.ObjectId().toString();
    const takes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => services.repos.usageCounters.take(app, campaign, 'total', `first${i}`, 1000)),
    );
    expect(takes.every(Boolean)).to.equal(true);
    expect((await services.repos.usageCounters.read(app, [campaign], ['total'])).get(`${campaign}|total`)).to.equal(30);
  });
});
