import { expect } from 'chai';
import type { WorkerFailpoint } from '../../shared/config.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';
import { createCustomers, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { exitOf, startWorkerProcess, tailOf, type WorkerProcess } from '../support/service-process.js';

/**
 * A worker SIGKILLed at each step of an order report (docs/wallets.md "Orders reported by the
 * storefront"): the worker kills itself at a named point (WORKER_FAILPOINT), a second worker takes
 * the stalled job over, and the order has earned once, been taken back once, or never earned —
 * never twice, never lost; the exactness verifier agrees.
 */
describe('worker: an order report killed at each step', function () {
  this.timeout(240_000);
  /** A dead worker's job is re-queued within a few seconds, as in crash-recovery.spec.ts. */
  const fastStall = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
  let api: TestApi;
  let app: TestApplication;
  const workers: WorkerProcess[] = [];
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => (w.alive() ? w.stop() : null)));
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['cust-1']);
    // 1 point per 10.00 of the selling subtotal, through the admin API's own format.
    const res = await call(api.url, 'POST', `/admin/applications/${app.id}/wallets`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: { wallet_id: 'loyalty', earning_rules: [{ name: 'Base points', points: 1, per: 10 }] },
    });
    expect(res.status, res.text).to.equal(201);
  });

  const start = async (env: NodeJS.ProcessEnv = {}) => {
    const w = await startWorkerProcess({ ...fastStall, ...env });
    workers.push(w);
    return w;
  };
  const report = (order: Record<string, unknown>, key: string) =>
    call(api.url, 'POST', '/wallets/customer/cust-1/orders/loyalty', {
      auth: app.auth,
      headers: { 'idempotency-key': key },
      body: { order },
    });
  /** The answer, asked again with the same key while it is a 503 (not known in time). */
  async function answerOf(first: ReturnType<typeof report>, again: () => ReturnType<typeof report>) {
    let res = await first;
    for (let retries = 0; res.status === 503 && retries < 3; retries++) res = await again();
    return res;
  }
  const completed = (orderId: string) => ({ ...makeOrder({ order_id: orderId }), status: 'completed' }); // makeOrder's subtotal earns 1 point per 10.00
  const returned = (orderId: string) => ({ order_id: orderId, status: 'returned' });
  const points = async () => (await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth })).body[0].loyalty_points as number;
  const entries = async () => {
    const customer = await api.services.repos.customers.resolve(app.id, 'cust-1');
    const wallet = await api.services.repos.wallets.findByWalletId(app.id, 'loyalty');
    const rows = await api.services.repos.walletTransactions.listForCustomer(app.id, customer!.id, wallet!.id, { limit: 100 });
    return rows.map((e) => `${e.txnId} ${e.state}`);
  };

  /** Sends a request while a worker kills itself at `at`, checks it died there, then starts a normal worker and returns the answer. */
  async function killedWhile(at: WorkerFailpoint, send: () => ReturnType<typeof call>) {
    const victim = await start({ WORKER_FAILPOINT: at });
    victim.deliberatelyEnded = true; // it kills itself: the fault under test
    const first = send();
    const ended = await Promise.race([exitOf(victim.child).then(() => 'killed'), first.then(() => 'answered')]);
    expect(ended, `the job finished without reaching ${at}; the worker's output:\n${tailOf(victim.log)}`).to.equal('killed');
    expect(victim.exit?.signal).to.equal('SIGKILL');
    await start();
    return answerOf(first, send);
  }
  /** The report sent to a worker that kills itself at `at`; then a normal worker answers it. */
  const killedAt = (at: WorkerFailpoint, order: Record<string, unknown>) => {
    const key = `${String(order.status)}-${String(order.order_id)}`;
    return killedWhile(at, () => report(order, key));
  };
  async function expectVerified() {
    const verified = await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 });
    expect(verified.discrepancies).to.deep.equal([]);
  }
  /** A completed order's points, by a normal worker (stopped afterwards). */
  async function earned(orderId: string) {
    const worker = await start();
    const res = await report(completed(orderId), `completed-${orderId}`);
    expect(res.status, res.text).to.equal(200);
    await worker.stop();
    return res.body.points as number;
  }

  it('when the worker dies once the earning is posted, before the job finishes, then the re-run answers it and nothing is credited twice', async () => {
    const res = await killedAt('order-after-post', completed('o-1'));
    expect(res.status, res.text).to.equal(200);
    expect(res.body.points).to.be.above(0);
    expect(await points()).to.equal(res.body.points);
    expect(await entries()).to.deep.equal(['order:loyalty:o-1 applied']);
    await expectVerified();
  });

  it('when the worker dies after the return looked for the earning, before taking it back, then the re-run takes it back once', async () => {
    const got = await earned('o-2');
    const res = await killedAt('order-after-void', returned('o-2'));
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ points: got, loyalty_points: 0, txn_id: 'order-return:loyalty:o-2' });
    expect(await points()).to.equal(0);
    expect(await entries()).to.deep.equal(['order:loyalty:o-2 applied', 'order-return:loyalty:o-2 applied']);
    await expectVerified();
  });

  it('when the worker dies once the return is posted, then the re-run does not take back twice', async () => {
    const got = await earned('o-3');
    const res = await killedAt('order-after-post', returned('o-3'));
    expect(res.body).to.include({ points: got, loyalty_points: 0 });
    expect(await points()).to.equal(0);
    expect(await entries()).to.deep.equal(['order:loyalty:o-3 applied', 'order-return:loyalty:o-3 applied']);
    await expectVerified();
  });

  it('when the worker dies once a return reported first has voided the earning, then the completion never earns', async () => {
    const res = await killedAt('order-after-void', returned('o-4'));
    expect(res.body).to.include({ points: 0, txn_id: null });
    const worker = await start();
    const late = await report(completed('o-4'), 'completed-o-4');
    expect(late.body).to.include({ points: 0, txn_id: null });
    await worker.stop();
    expect(await points()).to.equal(0);
    expect(await entries()).to.deep.equal(['order:loyalty:o-4 void']);
    await expectVerified();
  });

  it('when the worker dies once a partial return is recorded on the earning, before its debit, then the re-run takes that part back once', async () => {
    const got = await earned('o-5'); // makeOrder: 1000.00, 100 points
    const part = {
      order_id: 'o-5',
      status: 'returned',
      return_id: 'r-1',
      items: [{ product_id: 'p2', selling_price: 200, original_price: 250, quantity: 2 }],
    };
    const res = await killedAt('return-after-record', part);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ points: 40, return_id: 'r-1', txn_id: 'order-return:loyalty:o-5#r-1' });
    expect(await points()).to.equal(got - 40);
    const worker = await start();
    const rest = await report(returned('o-5'), 'returned-o-5-whole');
    expect(rest.body).to.include({ points: got - 40, loyalty_points: 0 });
    await worker.stop();
    expect(await entries()).to.deep.equal([
      'order:loyalty:o-5 applied',
      'order-return:loyalty:o-5#r-1 applied',
      'order-return:loyalty:o-5 applied',
    ]);
    await expectVerified();
  });

  describe('a redeem of a completed order, as its report (loyalty.earn_on_redeem)', () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    let code: string;
    beforeEach(async () => {
      const patched = await call(api.url, 'PATCH', `/admin/applications/${app.id}`, {
        headers: admin,
        body: { loyalty: { earn_on_redeem: true } },
      });
      expect(patched.status, patched.text).to.equal(200);
      const made = await call(api.url, 'POST', `/admin/applications/${app.id}/campaigns`, {
        headers: admin,
        body: { name: 'Ten off', code: `TEN${app.id}`, discount: { kind: 'discount', type: 'percentage', value: 10 } },
      });
      expect(made.status, made.text).to.equal(201);
      code = made.body.code;
    });
    const apply = (type: 'redeem' | 'revert', order: Record<string, unknown>, key: string) =>
      call(api.url, 'POST', `/coupons/apply?type=${type}`, {
        auth: app.auth,
        headers: { 'idempotency-key': key },
        body: { source_id: 'cust-1', coupon_details: [{ coupon_code: code }], order },
      });
    /** The apply sent to a worker that kills itself at `at`; then a normal worker answers it. */
    const applyKilledAt = (at: WorkerFailpoint, type: 'redeem' | 'revert', order: Record<string, unknown>) =>
      killedWhile(at, () => apply(type, order, `${type}-${String(order.order_id)}`));
    // makeOrder's selling subtotal 1000.00, less 10%: 900.00 paid, 90 points.
    it('when the worker dies after the redeem committed, before the order earned, then the re-run earns once', async () => {
      const res = await applyKilledAt('redeem-before-earning', 'redeem', makeOrder({ order_id: 'r-1' }));
      expect(res.status, res.text).to.equal(200);
      expect(await points()).to.equal(90);
      expect(await entries()).to.deep.equal(['order:loyalty:r-1 applied']);
      await expectVerified();
    });

    it('when the worker dies once the redeem earning is posted, then the re-run does not credit twice', async () => {
      const res = await applyKilledAt('order-after-post', 'redeem', makeOrder({ order_id: 'r-2' }));
      expect(res.status, res.text).to.equal(200);
      expect(await points()).to.equal(90);
      expect(await entries()).to.deep.equal(['order:loyalty:r-2 applied']);
      await expectVerified();
    });

    it('when the worker dies after the revert, before taking the earning back, then the re-run takes it back once', async () => {
      const worker = await start();
      const order = makeOrder({ order_id: 'r-3' });
      expect((await apply('redeem', order, 'redeem-r-3')).status).to.equal(200);
      await worker.stop();
      const res = await applyKilledAt('revert-before-taking-back', 'revert', { ...order, status: 'reverted' });
      expect(res.status, res.text).to.equal(200);
      expect(await points()).to.equal(0);
      expect(await entries()).to.deep.equal(['order:loyalty:r-3 applied', 'order-return:loyalty:r-3 applied']);
      await expectVerified();
    });
  });
});
