/**
 * A database that refuses a write for a reason of its own — a deadlock, a write conflict — is a
 * busy database, not a bad request: the service retries the write, or answers the documented 503,
 * never a 500; nothing is lost and nothing applied twice. The refusals come from the real server
 * (test/support/db-faults.ts).
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { databaseFaults, WHY_NO_FAULTS, type DatabaseFaults } from '../support/db-faults.js';
import { call, createTestApplication, startTestApi, testDatabase, type TestApi, type TestApplication } from '../support/context.js';

const asObjectId = (id: string) => new Types.ObjectId(id);

describe('database refusals of a write (deadlocks, write conflicts)', function () {
  let api: TestApi;
  let faults: DatabaseFaults | null;
  let app: TestApplication;
  before(async function () {
    faults = await databaseFaults(await testDatabase());
    if (!faults) {
      console.log(`      skipped: ${WHY_NO_FAULTS}`);
      this.skip();
    }
    // A short wait: a refusal that lasts is answered 503 within it.
    api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '3000' });
  });
  after(async () => {
    await faults?.clear();
    await api?.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['c-1']);
    await createWallet(api.services, app.id, 'loyalty');
  });
  afterEach(async () => {
    await faults?.clear();
  });

  const credit = (key: string, points = 3) =>
    call(api.url, 'PUT', '/wallets/customer/c-1/transactions/loyalty', {
      auth: app.auth,
      body: { type: 'credit', points },
      headers: { 'idempotency-key': key },
    });
  const balance = async () => (await call(api.url, 'GET', '/wallets/customer/c-1', { auth: app.auth })).body[0].loyalty_points as number;
  const ledger = () => api.services.db.connection.collection('wallet_transactions');

  const cases: [what: string, collection: string, kinds: ('INSERT' | 'UPDATE')[], times: number][] = [
    ["the idempotency record's completion", 'idempotency_records', ['UPDATE'], 2],
    ["the idempotency record's claim", 'idempotency_records', ['INSERT'], 2],
    ['the ledger entry (worker)', 'wallet_transactions', ['INSERT', 'UPDATE'], 3],
    ['the balance (worker)', 'wallet_balances', ['INSERT', 'UPDATE'], 3],
  ];
  for (const [what, collection, kinds, times] of cases) {
    it(`when the database refuses ${what} ${times} times, then the keyed credit answers 200, applies once, and its replay is the same`, async () => {
      await faults!.failNextWrites(collection, kinds, times);
      const first = await credit(`k-${collection}-${kinds.join()}`);
      expect(first.status, `${faults!.error}: ${first.text}`).to.equal(200);
      const replay = await credit(`k-${collection}-${kinds.join()}`);
      expect(replay.text).to.equal(first.text);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(await balance()).to.equal(3);
      expect(await ledger().countDocuments({ txnId: first.body.txn_id })).to.equal(1);
    });
  }

  it('when the database refuses a redemption journal write twice, then the redeem answers 200 and counts once', async () => {
    await createCampaign(api.services, app.id, { code: 'CONFLICT10' });
    await faults!.failNextWrites('redemptions', ['INSERT', 'UPDATE'], 2);
    const body = { source_id: 'c-1', order: makeOrder(), coupon_details: [{ coupon_id: 'CONFLICT10', coupon_code: 'CONFLICT10' }] };
    const res = await call(api.url, 'POST', '/coupons/apply?type=redeem', { auth: app.auth, body, headers: { 'idempotency-key': 'r-1' } });
    expect(res.status, res.text).to.equal(200);
    const again = await call(api.url, 'POST', '/coupons/apply?type=redeem', { auth: app.auth, body });
    expect(again.status).to.equal(200);
    expect(
      await api.services.db.connection.collection('redemptions').countDocuments({ application: asObjectId(app.id), state: 'completed' }),
    ).to.equal(1);
  });

  it('when the database refuses the idempotency record for longer than the wait, then the answer is the documented 503 naming the key, and the retry after it gets the result', async () => {
    await faults!.failNextWrites('idempotency_records', ['UPDATE'], 1_000_000);
    const first = await credit('k-lasting');
    expect(first.status, first.text).to.equal(503);
    expect(first.body).to.include({ code: 503, message: 'Service Unavailable', idempotency_key: 'k-lasting' });
    expect(first.headers.get('retry-after')).to.equal('1');
    await faults!.clear();
    const retry = await credit('k-lasting');
    expect(retry.status, retry.text).to.equal(200);
    expect(await balance()).to.equal(3);
    expect(await ledger().countDocuments({ txnId: retry.body.txn_id })).to.equal(1);
  });
});
