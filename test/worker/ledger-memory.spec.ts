/**
 * The ledger writes on what its process's own last move left a balance in, without reading it
 * (shared/usecases/wallet-ledger.ts, docs/wallets.md "The ledger"): against the real database, two
 * processes' services (each its own memory, as two worker replicas have) move one balance in turn
 * and every answer, entry and balance is what reads before every write would have given — a stale
 * memory collides at its slot and is read; a refusal is never decided on memory. The database's
 * commands are counted: a remembered balance is not read.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import type { Services } from '../../shared/services.js';
import { balanceIdOf, MEMORY_PROBE } from '../../shared/data/wallet-balance.repository.js';
import { postLedgerEntry, type PostEntryInput } from '../../shared/usecases/wallet-ledger.js';
import { testServices } from '../support/context.js';

describe('wallet ledger: what a process remembers of a balance', () => {
  let a: Services;
  let b: Services;
  before(async () => {
    [a, b] = [await testServices(), await testServices()];
  });
  const key = () => ({
    applicationId: new Types.ObjectId().toHexString(),
    customerId: new Types.ObjectId().toHexString(),
    walletDbId: new Types.ObjectId().toHexString(),
  });
  let n = 0;
  const entry = (k: ReturnType<typeof key>, type: 'credit' | 'debit', points: number): PostEntryInput => ({
    ...k,
    txnId: `t-${++n}`,
    type,
    points,
    description: `${type} ${points}`,
    origin: 'api',
    tiers: null,
  });
  const post = (s: Services, e: PostEntryInput) => postLedgerEntry({ repos: s.repos, now: () => new Date() }, e);
  /** The balance as stored, checked against its ledger: points the sum of the posted moves, version their count, slots 0… in order. */
  async function stored(k: ReturnType<typeof key>) {
    const id = balanceIdOf(k.applicationId, k.customerId, k.walletDbId);
    const balance = (await a.repos.walletBalances.findById(id))!;
    const entries = await a.db.models.WalletTransaction.find({ application: k.applicationId, customer: k.customerId, state: 'posted' })
      .sort({ seq: 1 })
      .lean<{ seq: number; before: number; after: number }[]>();
    expect(entries.map((e) => e.seq)).to.deep.equal(entries.map((_, i) => i));
    expect(balance.points).to.equal(entries.reduce((sum, e) => sum + e.after - e.before, 0));
    expect(balance.version).to.equal(entries.length);
    return balance;
  }
  /** The database commands `run` sends (names and collections), by the driver's command monitoring. */
  async function commandsOf<T>(s: Services, run: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
    const client = s.db.connection.getClient();
    const commands: string[] = [];
    const seen = (e: { commandName: string; command: Record<string, unknown> }) => {
      if (['find', 'insert', 'update', 'findAndModify'].includes(e.commandName))
        commands.push(`${e.commandName}:${String(e.command[e.commandName])}`);
    };
    client.on('commandStarted', seen);
    try {
      return { result: await run(), commands };
    } finally {
      client.off('commandStarted', seen);
    }
  }

  it('when a process moves a balance again, then it writes without reading it: an entry and a move', async () => {
    const k = key();
    expect(await post(a, entry(k, 'credit', 1000))).to.deep.include({ state: 'applied', before: 0, after: 1000 });
    const { result, commands } = await commandsOf(a, () => post(a, entry(k, 'credit', 500)));
    expect(result).to.deep.include({ state: 'applied', before: 1000, after: 1500, written: true });
    expect(commands).to.deep.equal(['insert:wallet_transactions', 'update:wallet_balances']);
    expect((await stored(k)).points).to.equal(1500);
  });

  it('when another process moved the balance since, then the stale write collides, the balance is read and the entry goes to the next slot', async () => {
    const k = key();
    await post(a, entry(k, 'credit', 1000)); // a remembers version 1
    expect(await post(b, entry(k, 'credit', 300))).to.deep.include({ state: 'applied', before: 1000, after: 1300 });
    const { result, commands } = await commandsOf(a, () => post(a, entry(k, 'credit', 200)));
    expect(result).to.deep.include({ state: 'applied', before: 1300, after: 1500, written: true });
    // The write at the remembered slot collided; then the ordinary read, write and move.
    expect(commands).to.deep.equal([
      'insert:wallet_transactions',
      'find:wallet_balances',
      'insert:wallet_transactions',
      'update:wallet_balances',
    ]);
    const balance = await stored(k);
    expect([balance.points, balance.version]).to.deep.equal([1500, 3]);
    // And a remembers again: its next write reads nothing.
    expect((await commandsOf(a, () => post(a, entry(k, 'debit', 100)))).commands).to.deep.equal([
      'insert:wallet_transactions',
      'update:wallet_balances',
    ]);
  });

  it('when a debit would be refused on what a process remembers, then it reads the balance first: another process credited it, so it is applied', async () => {
    const k = key();
    await post(a, entry(k, 'credit', 100)); // a remembers 100 points
    await post(b, entry(k, 'credit', 900)); // the balance holds 1000
    const debit = await post(a, entry(k, 'debit', 600));
    expect(debit).to.deep.include({ state: 'applied', before: 1000, after: 400 });
    // Refused on a read: the balance truly is short.
    expect(await post(a, entry(k, 'debit', 5000))).to.deep.equal({ state: 'refused', balance: 400, points: 5000 });
    expect((await stored(k)).points).to.equal(400);
  });

  it('when a re-run of an operation this process posted comes again, then it finds its entry and posts nothing more', async () => {
    const k = key();
    const first = entry(k, 'credit', 700);
    await post(a, first);
    await post(a, entry(k, 'credit', 1));
    // The re-run (a lost lock, a BullMQ retry): a remembers version 2 and writes there; its txnId is taken.
    expect(await post(a, first)).to.deep.include({ state: 'applied', before: 0, after: 700, written: false });
    expect(await post(b, first)).to.deep.include({ state: 'applied', before: 0, after: 700, written: false });
    const balance = await stored(k);
    expect([balance.points, balance.version]).to.deep.equal([701, 2]);
  });

  it("when two processes take a balance's operations in turn, then memory stops paying and each reads first — but for a probe now and then", async () => {
    // Processes of their own: how memory went for this test's writes only.
    const [c, d] = [await testServices(), await testServices()];
    const k = key();
    const staleWrites: number[] = [];
    for (let i = 0; i < 60; i++) {
      await post(d, entry(k, 'credit', 1));
      const { commands } = await commandsOf(c, () => post(c, entry(k, 'credit', 1)));
      if (commands[0] === 'insert:wallet_transactions' && commands.length === 4) staleWrites.push(i);
    }
    // Every write on memory was stale (d moved the balance in between): c's first write read (it
    // remembered nothing), the next four were on memory, until the share of writes that held fell
    // under MEMORY_PAYS, then one in MEMORY_PROBE.
    expect(staleWrites.slice(0, 4), JSON.stringify(staleWrites)).to.deep.equal([1, 2, 3, 4]);
    expect(staleWrites.length, JSON.stringify(staleWrites)).to.be.within(
      4 + Math.floor(55 / MEMORY_PROBE),
      4 + Math.ceil(55 / MEMORY_PROBE),
    );
    expect((await stored(k)).points).to.equal(120);
    // Once the balance is c's alone, every probe holds and memory pays again: c's writes stop
    // reading (the share climbs back 1/32 of the way to all per probe that held: from under
    // MEMORY_PAYS after the stale probes, within 40 probes).
    const onMemory = ['insert:wallet_transactions', 'update:wallet_balances'];
    let run = 0;
    let writes = 0;
    for (; writes < 40 * MEMORY_PROBE && run < MEMORY_PROBE; writes++) {
      const { commands } = await commandsOf(c, () => post(c, entry(k, 'credit', 1)));
      run = JSON.stringify(commands) === JSON.stringify(onMemory) ? run + 1 : 0;
    }
    expect(run, `writes on memory in a row after ${writes} writes by c alone`).to.equal(MEMORY_PROBE);
  });

  it('when two processes credit one balance at once, over and over, then every credit is posted once', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 ? a : b, entry(k, 'credit', 10 + i))));
    expect(results.every((r) => r.state === 'applied' && r.written)).to.equal(true);
    const balance = await stored(k);
    expect([balance.points, balance.version]).to.deep.equal([Array.from({ length: 40 }, (_, i) => 10 + i).reduce((x, y) => x + y, 0), 40]);
  });
});
