import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import { Schema, type mongo } from 'mongoose';
import { CommandBatcher, type BatchedModel } from '../../shared/data/batched.js';
import type { Database } from '../../shared/data/db.js';
import { testDatabase } from '../support/context.js';

/**
 * Coalesced commands (shared/data/batched.ts) on the real test database: operations issued in the
 * same turn of the event loop share one command of each kind, and each caller gets exactly the
 * answer its own statement would have had alone — found or not, inserted or duplicate, matched,
 * upserted or refused by a guard — including when other statements of the same command fail.
 */
describe('coalesced database commands', function () {
  this.timeout(30_000);
  let db: Database;
  let col: mongo.Collection<mongo.Document>;
  let model: BatchedModel;
  let batch: CommandBatcher;

  before(async () => {
    db = await testDatabase();
    const name = `batched_spec_${process.pid}`;
    col = db.connection.db!.collection(name);
    model = db.connection.model(name, new Schema({}, { strict: false, collection: name }));
  });
  beforeEach(async () => {
    await col.deleteMany({});
    batch = new CommandBatcher(model);
  });
  after(async () => {
    await col.drop().catch(() => undefined);
  });

  /** The commands sent on the collection while `run` runs. */
  async function commandsOf<T>(run: () => Promise<T>): Promise<{ result: T; commands: CommandStartedEvent[] }> {
    const client = db.connection.getClient();
    const commands: CommandStartedEvent[] = [];
    const onStart = (e: CommandStartedEvent) => {
      if (e.command[e.commandName] === col.collectionName) commands.push(e);
    };
    client.on('commandStarted', onStart);
    try {
      return { result: await run(), commands };
    } finally {
      client.off('commandStarted', onStart);
    }
  }

  it('when finds by key are issued at once, then one command answers each with its own document or null', async () => {
    await col.insertMany([
      { _id: 'a' as never, app: 1, n: 1 },
      { _id: 'b' as never, app: 1, n: 2 },
      { _id: 'c' as never, app: 2, n: 3 },
    ]);
    const { result, commands } = await commandsOf(() =>
      Promise.all([
        batch.findOne({ _id: 'a', app: 1 }),
        batch.findOne({ _id: 'b', app: 1 }),
        batch.findOne({ _id: 'c', app: 1 }), // another app's document: not this caller's
        batch.findOne({ _id: 'zz', app: 1 }),
      ]),
    );
    expect(result.map((d) => d?.n ?? null)).to.deep.equal([1, 2, null, null]);
    expect(commands.map((c) => c.commandName)).to.deep.equal(['find']);
  });

  it('when finds with a condition for all and a projection are issued at once, then the condition applies and the projection keeps the keys', async () => {
    await col.insertMany([
      { _id: 'a' as never, key: 'x', archivedAt: null, big: 'payload', n: 1 },
      { _id: 'b' as never, key: 'y', archivedAt: new Date(), n: 2 },
    ]);
    const [x, y] = await Promise.all([
      batch.findOne({ key: 'x' }, { where: { archivedAt: null }, projection: { n: 1 } }),
      batch.findOne({ key: 'y' }, { where: { archivedAt: null }, projection: { n: 1 } }),
    ]);
    expect(x).to.deep.equal({ _id: 'a', key: 'x', n: 1 });
    expect(y).to.equal(null);
  });

  it('when inserts are issued at once and one repeats an existing key, then one command inserts the others and only that caller hears "duplicate"', async () => {
    await col.insertOne({ _id: 'taken' as never });
    const { result, commands } = await commandsOf(() =>
      Promise.all([batch.insert({ _id: 'one' }), batch.insert({ _id: 'taken' }), batch.insert({ _id: 'two' })]),
    );
    expect(result).to.deep.equal([true, false, true]);
    expect(commands.map((c) => [c.commandName, (c.command as { documents: unknown[] }).documents.length])).to.deep.equal([['insert', 3]]);
    expect((await col.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).to.deep.equal(['one', 'taken', 'two']);
  });

  it('when guarded upserts race for a limit in one command, then each hears matched, upserted or refused, and the limit holds', async () => {
    await col.insertOne({ _id: 'counter' as never, n: 8 });
    const take = () => batch.upsert({ _id: 'counter', n: { $lt: 10 } }, { $inc: { n: 1 } });
    const { result, commands } = await commandsOf(() =>
      Promise.all([take(), take(), take(), take(), batch.upsert({ _id: 'fresh', n: { $lt: 10 } }, { $inc: { n: 1 } })]),
    );
    expect(result.slice(0, 4).sort()).to.deep.equal(['matched', 'matched', 'refused', 'refused']);
    expect(result[4]).to.equal('upserted');
    expect(commands.map((c) => c.commandName)).to.deep.equal(['update']);
    expect((await col.findOne({ _id: 'counter' as never }))!.n).to.equal(10);
    expect((await col.findOne({ _id: 'fresh' as never }))!.n).to.equal(1);
  });

  it('when one statement of a batch fails for another reason, then only its caller gets the error and the others are applied', async () => {
    await col.insertMany([
      { _id: 'text' as never, n: 'not a number' },
      { _id: 'ok' as never, n: 1 },
    ]);
    const results = await Promise.allSettled([
      batch.updateBlind({ _id: 'text' }, { $inc: { n: 1 } }), // $inc on a string: refused by the server
      batch.upsert({ _id: 'ok', n: { $lt: 5 } }, { $inc: { n: 1 } }),
    ]);
    expect(results[0]!.status).to.equal('rejected');
    expect(results[1]).to.deep.equal({ status: 'fulfilled', value: 'matched' });
    expect((await col.findOne({ _id: 'ok' as never }))!.n).to.equal(2);
  });

  it('when an operation is alone, then it goes out on its own, one command each', async () => {
    const { result, commands } = await commandsOf(async () => [
      await batch.insert({ _id: 'alone' }),
      await batch.findOne({ _id: 'alone' }),
    ]);
    expect(result).to.deep.equal([true, { _id: 'alone' }]);
    expect(commands.map((c) => c.commandName)).to.deep.equal(['insert', 'find']);
  });

  it('when concurrent commands write the same documents called in opposite orders, then each sends them in _id order and all complete with every statement applied', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    await col.insertMany(ids.map((_id) => ({ _id, n: 0 }) as mongo.Document));
    // 30 rounds of 16 batchers, each taking three documents in its own order: without one order of
    // the statements, commands of a database that locks rows per command wait on each other.
    const { commands } = await commandsOf(async () => {
      for (let round = 0; round < 30; round++) {
        await Promise.all(
          Array.from({ length: 16 }, (_, k) => {
            const own = new CommandBatcher(model);
            const picked = [ids[k % 6]!, ids[(k + 3) % 6]!, ids[(k + 1) % 6]!];
            const order = k % 2 ? picked.reverse() : picked;
            return Promise.all(order.map((_id) => own.upsert({ _id, n: { $gte: 0 } }, { $inc: { n: 1 } })));
          }),
        );
      }
    });
    const updates = commands.filter((c) => c.commandName === 'update');
    expect(updates).to.have.length(30 * 16);
    for (const u of updates) {
      const sent = (u.command.updates as { q: { _id: string } }[]).map((x) => x.q._id);
      expect(sent).to.deep.equal([...sent].sort());
    }
    const total = (await col.find({}).toArray()).reduce((a, d) => a + (d.n as number), 0);
    expect(total).to.equal(30 * 16 * 3);
  });
});
