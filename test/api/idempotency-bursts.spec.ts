/**
 * Load test of `Idempotency-Key` under concurrent duplicates: bursts of identical keyed requests
 * sent a few milliseconds apart, several bursts in flight at once, as a storefront retrying
 * impatiently would — alternately to two API replicas, so that duplicates race in the database as
 * well as within one process. Counted, not assumed: no 5xx, each operation applied once, and every
 * answer of a burst — and a replay after it — is the first answer, byte for byte.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { call, createTestApplication, useTestApi, type TestApplication } from '../support/context.js';

/** Identical requests per burst, and the gap between two of them (a client retrying at once). */
const BURST = 12;
const GAP_MS = 4;
const asId = (id: string) => new Types.ObjectId(id);
/** Bursts each loop sends one after another, and loops running side by side. */
const BURSTS = 20;
const LOOPS = 3;

interface Answer {
  status: number;
  text: string;
  ms: number;
}

async function burst(send: () => Promise<{ status: number; text: string }>): Promise<Answer[]> {
  const answers: Promise<Answer>[] = [];
  for (let i = 0; i < BURST; i++) {
    const started = Date.now();
    answers.push(send().then((r) => ({ status: r.status, text: r.text, ms: Date.now() - started })));
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  return Promise.all(answers);
}

describe('Idempotency-Key under bursts of concurrent duplicates', function () {
  this.timeout(300_000);
  const api = useTestApi();
  // A second replica: its own process state (caches, requests in flight), the same database and queues.
  const replica = useTestApi({}, { inProcessWorker: false });
  let app: TestApplication;
  let run = 0;
  beforeEach(async () => {
    app = await createTestApplication(api().services);
    await createCustomers(api().services, app.id, ['burst-1', 'burst-2', 'burst-3']);
    await createWallet(api().services, app.id, 'loyalty');
    run++;
  });

  let sent = 0;
  const put = (customer: string, body: unknown, key: string) =>
    call((sent++ % 2 === 0 ? api() : replica()).url, 'PUT', `/wallets/customer/${customer}/transactions/loyalty`, {
      auth: app.auth,
      body,
      headers: { 'idempotency-key': key },
    });

  /** Runs LOOPS loops of BURSTS bursts; returns every burst's answers and its replay, by key. */
  async function bursts(body: (loop: number, n: number) => unknown) {
    const results = new Map<string, { customer: string; answers: Answer[]; replay: Answer }>();
    await Promise.all(
      Array.from({ length: LOOPS }, async (_, loop) => {
        const customer = `burst-${loop + 1}`;
        for (let n = 0; n < BURSTS; n++) {
          const key = `run-${run}-loop-${loop}-burst-${n}`;
          const answers = await burst(() => put(customer, body(loop, n), key));
          const started = Date.now();
          const replayed = await put(customer, body(loop, n), key);
          results.set(key, { customer, answers, replay: { status: replayed.status, text: replayed.text, ms: Date.now() - started } });
        }
      }),
    );
    const all = [...results.values()].flatMap((r) => [...r.answers, r.replay]);
    const fiveXx = all.filter((a) => a.status >= 500);
    const slowest = Math.max(...all.map((a) => a.ms));
    console.log(`      [bursts] ${all.length} requests, ${fiveXx.length} 5xx, slowest answer ${slowest} ms`);
    expect(fiveXx.map((a) => `${a.status} ${a.text}`)).to.deep.equal([]);
    return results;
  }

  it('when keyed credits arrive in bursts of concurrent duplicates, then none is a 5xx, each applies once, and every duplicate and replay is the first answer', async () => {
    const results = await bursts((loop, n) => ({ type: 'credit', points: Number((1 + loop + n / 100).toFixed(2)) }));
    const expected = new Map<string, number>();
    for (const [key, r] of results) {
      const first = r.answers[0]!;
      expect(first.status, first.text).to.equal(200);
      for (const a of [...r.answers, r.replay]) expect(a.text, key).to.equal(first.text);
      const points = JSON.parse(first.text).points as number;
      expected.set(r.customer, (expected.get(r.customer) ?? 0) + Math.round(points * 100));
    }
    // Applied once: one ledger entry per key, and the balances are their sums.
    const entries = await api()
      .services.db.connection.collection('wallet_transactions')
      .countDocuments({ application: asId(app.id) });
    expect(entries).to.equal(LOOPS * BURSTS);
    for (const [customer, hundredths] of expected) {
      const read = await call(api().url, 'GET', `/wallets/customer/${customer}`, { auth: app.auth });
      expect(Math.round(read.body[0].loyalty_points * 100), customer).to.equal(hundredths);
    }
  });

  it('when keyed debits beyond the balance arrive in bursts, then every duplicate and replay is the first refusal, request_id included', async () => {
    const results = await bursts(() => ({ type: 'debit', points: 5 }));
    for (const [key, r] of results) {
      const first = r.answers[0]!;
      expect(first.status, first.text).to.equal(400);
      expect(JSON.parse(first.text)).to.include({ message: 'insufficient points', key: 'points' });
      for (const a of [...r.answers, r.replay]) expect(a.text, key).to.equal(first.text);
    }
    // Each refusal recorded once, nothing posted: the balances are still 0.
    const ledger = api().services.db.connection.collection('wallet_transactions');
    expect(await ledger.countDocuments({ application: asId(app.id), state: 'refused' })).to.equal(LOOPS * BURSTS);
    expect(await ledger.countDocuments({ application: asId(app.id), state: { $ne: 'refused' } })).to.equal(0);
  });
});
