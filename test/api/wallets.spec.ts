import { expect } from 'chai';
import { Types } from 'mongoose';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

const asObjectId = (id: string) => new Types.ObjectId(id);

describe('wallets: GET /wallets/customer/{source_id} and PUT .../transactions/{wallet_id}', () => {
  let api: TestApi;
  let app: TestApplication;
  let customerId: string;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    customerId = (await createCustomers(api.services, app.id, ['cust-1']))[0]!.id;
    await createWallet(api.services, app.id, 'loyalty');
  });

  const put = (body: unknown, path = '/wallets/customer/cust-1/transactions/loyalty', headers: Record<string, string> = {}) =>
    call(api.url, 'PUT', path, { auth: app.auth, body, headers });

  it('when a customer has no transactions, then the wallet reads 0 points with the wallet fields', async () => {
    const res = await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([
      {
        wallet_id: 'loyalty',
        wallet_name: 'Loyalty Points',
        currency: 'INR',
        singular_unit_name: 'point',
        plural_unit_name: 'points',
        timezone: 'Asia/Kolkata',
        loyalty_points: 0,
      },
    ]);
  });

  it('when the service customer id is used in the path, then it resolves the same customer', async () => {
    await put({ type: 'credit', points: 5 });
    const res = await call(api.url, 'GET', `/wallets/customer/${customerId}`, { auth: app.auth });
    expect(res.body[0].loyalty_points).to.equal(5);
  });

  it('when points are credited then debited, then the result objects carry before/after and the balance follows', async () => {
    const credit = await put({ type: 'credit', points: 100.5, description: 'welcome' }, undefined, { 'x-request-id': 'req-credit-1' });
    expect(credit.status).to.equal(200);
    expect(credit.body).to.include({
      requestId: 'req-credit-1',
      id: customerId,
      wallet_id: 'loyalty',
      loyalty_points: 100.5,
      previous_loyalty_points: 0,
      points: 100.5,
      description: 'welcome',
    });
    expect(credit.body.txn_id).to.be.a('string').with.length.above(0);
    const debit = await put({ type: 'debit', points: 0.5 });
    expect(debit.body).to.include({ loyalty_points: 100, previous_loyalty_points: 100.5, points: 0.5, description: '' });
    const read = await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth });
    expect(read.body[0].loyalty_points).to.equal(100);
  });

  it('when a debit exceeds the balance, then 400 insufficient points and nothing changes (docs/decisions.md#22)', async () => {
    await put({ type: 'credit', points: 10 });
    const res = await put({ type: 'debit', points: 10.01 });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      code: 400,
      message: 'insufficient points',
      details: 'balance is 10, requested 10.01',
      key: 'points',
      request_id: res.headers.get('x-request-id'),
    });
    const read = await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth });
    expect(read.body[0].loyalty_points).to.equal(10);
  });

  const errorRows: [string, unknown, number, Record<string, unknown>][] = [
    [
      'type is missing',
      { points: 10 },
      400,
      { code: 401, message: 'type field is required', details: 'type field is required', key: 'type' },
    ],
    [
      'points are missing',
      { type: 'credit' },
      400,
      { code: 400, message: 'Invalid payload', details: 'The payload cannot be empty', key: 'invalid_payload' },
    ],
    [
      'the body is empty',
      {},
      400,
      { code: 400, message: 'Invalid payload', details: 'The payload cannot be empty', key: 'invalid_payload' },
    ],
    [
      'type is neither credit nor debit',
      { type: 'gift', points: 1 },
      400,
      { code: 400, message: 'Invalid payload', details: 'type should be credit or debit', key: 'type' },
    ],
  ];
  for (const [label, body, status, expected] of errorRows) {
    it(`when ${label}, then ${status} with the documented body`, async () => {
      const res = await put(body);
      expect(res.status).to.equal(status);
      expect(res.body).to.deep.equal({ ...expected, request_id: res.headers.get('x-request-id') });
    });
  }

  for (const points of [0, -1, 1.001, 1e9 + 1, '10', null, true, [1], { $gt: 0 }]) {
    it(`when points is ${JSON.stringify(points)}, then 400 Invalid payload with key points (docs/decisions.md#21)`, async () => {
      const res = await put({ type: 'credit', points });
      expect(res.status).to.equal(400);
      if (points === null) expect(res.body.key).to.equal('invalid_payload');
      else expect(res.body).to.include({ message: 'Invalid payload', key: 'points' });
    });
  }

  // Below a hundredth, or a hundredth plus noise: exactly refused, on credit and debit,
  // sent as the JSON text a client writes (no JavaScript number formatting on the way).
  for (const type of ['credit', 'debit'])
    for (const points of ['1e-9', '5e-9', '5e-324', '0.001', '0.004999', '1.000000001', '2.0000000000001', '99.999']) {
      it(`when a ${type} sends points ${points}, then 400 Invalid payload with key points and no ledger entry`, async () => {
        const res = await call(api.url, 'PUT', '/wallets/customer/cust-1/transactions/loyalty', {
          auth: app.auth,
          rawBody: `{"type":"${type}","points":${points}}`,
        });
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.include({ message: 'Invalid payload', key: 'points' });
        expect(
          await api.services.db.connection.collection('wallet_transactions').countDocuments({ customer: asObjectId(customerId) }),
        ).to.equal(0);
      });
    }

  it('when points have at most 2 decimals, then each is credited exactly', async () => {
    let total = 0;
    for (const points of ['0.01', '0.29', '1.1', '0.1', '123456.78', '1000000000']) {
      const res = await call(api.url, 'PUT', '/wallets/customer/cust-1/transactions/loyalty', {
        auth: app.auth,
        rawBody: `{"type":"credit","points":${points}}`,
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.points).to.equal(Number(points));
      total += Math.round(Number(points) * 100);
    }
    const read = await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth });
    expect(Math.round(read.body[0].loyalty_points * 100)).to.equal(total);
  });

  it('when a keyed update is replayed, then the replay carries Idempotent-Replayed: true and the first answer does not', async () => {
    const first = await put({ type: 'credit', points: 2 }, undefined, { 'idempotency-key': 'replayed-1' });
    const second = await put({ type: 'credit', points: 2 }, undefined, { 'idempotency-key': 'replayed-1' });
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(second.headers.get('idempotent-replayed')).to.equal('true');
    expect(second.text).to.equal(first.text);
  });

  it('when the customer is unknown, then 404 resource not found / customer not found (read and update)', async () => {
    const read = await call(api.url, 'GET', '/wallets/customer/nobody', { auth: app.auth });
    expect(read.status).to.equal(404);
    expect(read.body).to.deep.equal({
      code: 404,
      message: 'resource not found',
      details: 'customer not found',
      request_id: read.headers.get('x-request-id'),
    });
    const upd = await put({ type: 'credit', points: 1 }, '/wallets/customer/nobody/transactions/loyalty');
    expect(upd.status).to.equal(404);
    expect(upd.body.details).to.equal('customer not found');
  });

  it('when the wallet is unknown, then 404 resource not found / wallet not found (docs/decisions.md#10)', async () => {
    const res = await put({ type: 'credit', points: 1 }, '/wallets/customer/cust-1/transactions/nope');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({
      code: 404,
      message: 'resource not found',
      details: 'wallet not found',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('when the application has no wallet, then the read is [] and an update is the unknown-wallet 404 (docs/decisions.md#22a)', async () => {
    const other = await createTestApplication(api.services);
    await createCustomers(api.services, other.id, ['c9']);
    const read = await call(api.url, 'GET', '/wallets/customer/c9', { auth: other.auth });
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal([]);
    const upd = await call(api.url, 'PUT', '/wallets/customer/c9/transactions/loyalty', {
      auth: other.auth,
      body: { type: 'credit', points: 1 },
    });
    expect(upd.status).to.equal(404);
    expect(upd.body.details).to.equal('wallet not found');
  });

  it("when another application's credentials name this customer and wallet, then 404 (docs/decisions.md#25)", async () => {
    const other = await createTestApplication(api.services);
    const res = await call(api.url, 'PUT', '/wallets/customer/cust-1/transactions/loyalty', {
      auth: other.auth,
      body: { type: 'credit', points: 1 },
    });
    expect(res.status).to.equal(404);
    const byId = await call(api.url, 'GET', `/wallets/customer/${customerId}`, { auth: other.auth });
    expect(byId.status).to.equal(404);
  });

  it('when the same Idempotency-Key and body are repeated, then the first response is replayed and applied once', async () => {
    const first = await put({ type: 'credit', points: 7 }, undefined, { 'idempotency-key': 'k-1' });
    const second = await put({ type: 'credit', points: 7 }, undefined, { 'idempotency-key': 'k-1' });
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
    const read = await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth });
    expect(read.body[0].loyalty_points).to.equal(7);
  });

  it('when 20 requests with one new Idempotency-Key arrive at once, then all answer the same 200 and it applies once', async () => {
    const headers = { 'Idempotency-Key': `burst-${Date.now()}` };
    const answers = await Promise.all(Array.from({ length: 20 }, () => put({ type: 'credit', points: 4 }, undefined, headers)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.txn_id)).size).to.equal(1);
    expect(answers.every((a) => a.body.loyalty_points === 4)).to.equal(true);
  });

  it('when the same Idempotency-Key comes with another body, then 409', async () => {
    await put({ type: 'credit', points: 7 }, undefined, { 'idempotency-key': 'k-2' });
    const res = await put({ type: 'credit', points: 8 }, undefined, { 'idempotency-key': 'k-2' });
    expect(res.status).to.equal(409);
    expect(res.body).to.include({ code: 409, message: 'Idempotency-Key reused' });
  });

  it('when a refused debit is repeated with its Idempotency-Key, then the refusal is replayed', async () => {
    const first = await put({ type: 'debit', points: 1 }, undefined, { 'idempotency-key': 'k-3' });
    await put({ type: 'credit', points: 50 });
    const second = await put({ type: 'debit', points: 1 }, undefined, { 'idempotency-key': 'k-3' });
    expect(first.status).to.equal(400);
    expect(second.status).to.equal(400);
    expect(second.body.details).to.equal(first.body.details);
  });

  it('when an Idempotency-Key is longer than 255 characters, then 400', async () => {
    const res = await put({ type: 'credit', points: 1 }, undefined, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).to.equal(400);
    expect(res.body.key).to.equal('Idempotency-Key');
  });

  it('when many credits and debits race on one customer, then balance == sum of the ledger, never negative, FIFO in the ledger', async () => {
    await put({ type: 'credit', points: 20 });
    const ops = Array.from({ length: 120 }, (_, i) => (i % 3 === 0 ? { type: 'credit', points: 2 } : { type: 'debit', points: 3 }));
    const results = await Promise.all(ops.map((op) => put(op)));
    for (const r of results) expect([200, 400]).to.include(r.status);
    const applied = results.filter((r) => r.status === 200);
    const expected = 20 + applied.reduce((s, r) => s + (r.body.loyalty_points - r.body.previous_loyalty_points), 0);
    const read = await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth });
    expect(read.body[0].loyalty_points).to.equal(expected);
    const wallet = (await api.services.repos.wallets.findByWalletId(app.id, 'loyalty'))!;
    const sum = await api.services.repos.walletTransactions.sumApplied(app.id, customerId, wallet.id);
    expect(sum / 100).to.equal(expected);
    // Each applied entry starts where the previous one ended: one at a time, in order.
    const ledger = (await api.services.repos.walletTransactions.listForCustomer(app.id, customerId, wallet.id)).filter(
      (e) => e.state === 'applied',
    );
    ledger.sort((a, b) => a.seq! - b.seq!);
    for (let i = 1; i < ledger.length; i++) expect(ledger[i]!.before).to.equal(ledger[i - 1]!.after);
    for (const e of ledger) expect(e.after).to.be.at.least(0);
  });
});

describe('idempotency records cleanup', () => {
  it('when records expire, then a TTL index on expiresAt removes them (no sweep to run)', async () => {
    const { testServices } = await import('../support/context.js');
    const services = await testServices();
    const indexes = await services.db.models.IdempotencyRecord.collection.indexes();
    expect(indexes.find((i) => i.key.expiresAt === 1)).to.include({ expireAfterSeconds: 0 });
  });
});
