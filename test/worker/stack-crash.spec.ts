import { expect } from 'chai';
import type { WorkerFailpoint } from '../../shared/config.js';
import { campaignCounterId, customerCounterId } from '../../shared/data/limit-counter.repository.js';
import type { Campaign } from '../../shared/domain/types.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { exitOf, startWorkerProcess, tailOf, type WorkerProcess } from '../support/service-process.js';

/**
 * A worker SIGKILLed at each step of a redeem of three coupons on one order, and of its revert
 * (docs/stacking.md, "Crash safety"; docs/architecture.md, "Several coupons"): the worker kills
 * itself at a named point (WORKER_FAILPOINT), a second worker takes the stalled job over, and the
 * order ends with all three coupons or none — each counted once, each cycle journaled once, the
 * cashback credited once, no lane left held.
 */
describe('worker: a stacked redeem or revert killed at each step', function () {
  this.timeout(240_000);
  /** A dead worker's job is re-queued within a few seconds, as in crash-recovery.spec.ts. */
  const fastStall = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
  let api: TestApi;
  let app: TestApplication;
  let campaigns: Campaign[];
  let customerId: string;
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
    // Opted in before its first request, so no cache holds it yet.
    await api.services.repos.applications.update(app.id, { stacking: { maxCoupons: 3, automaticPromotions: false } } as never);
    [customerId] = (await createCustomers(api.services, app.id, ['cust-1'])).map((c) => c.id) as [string];
    const wallet = await createWallet(api.services, app.id, 'cashback');
    campaigns = [
      // Two counters (the campaign's and the customer's): a crash leaves lanes on both.
      await createCampaign(api.services, app.id, { code: 'SA', name: 'SA', limits: { total: 10, perCustomer: 5 } }),
      await createCampaign(api.services, app.id, { code: 'SB', name: 'SB', limits: { total: 10 } }),
      await createCampaign(api.services, app.id, {
        code: 'SC',
        name: 'SC',
        limits: { total: 10 },
        discount: { kind: 'cashback', type: 'flat', value: 2500, maxCents: null, walletId: wallet.walletId },
      }),
    ];
  });

  const start = async (env: NodeJS.ProcessEnv = {}) => {
    const w = await startWorkerProcess({ ...fastStall, ...env });
    workers.push(w);
    return w;
  };
  const apply = (type: 'redeem' | 'revert', order: Record<string, unknown>, key: string) =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      headers: { 'idempotency-key': key },
      body: { source_id: 'cust-1', coupon_details: ['SA', 'SB', 'SC'].map((c) => ({ coupon_code: c })), order },
    });
  /** The answer of a request, retried with its key while it is a 503 (the outcome not known in time). */
  async function answerOf(first: ReturnType<typeof apply>, again: () => ReturnType<typeof apply>) {
    let res = await first;
    for (let retries = 0; res.status === 503 && retries < 3; retries++) res = await again();
    return res;
  }

  /** The counters of every campaign: total of each, and how many lanes each holds. */
  async function countersNow() {
    const ids = [campaignCounterId(campaigns[0]!.id), customerCounterId(campaigns[0]!.id, customerId)];
    ids.push(...campaigns.slice(1).map((c) => campaignCounterId(c.id)));
    const docs = await Promise.all(ids.map((id) => api.services.repos.limitCounters.find(id)));
    return {
      totals: docs.map((d) => d?.total ?? 0),
      lanes: docs.reduce((n, d) => n + Object.keys(d?.lanes ?? {}).length, 0),
    };
  }
  const cyclesOf = async (orderId: string) =>
    (await Promise.all(campaigns.map((c) => api.services.repos.redemptions.cycles(app.id, c.id, orderId)))).map((cs) =>
      cs.map((c) => c.state),
    );
  const stackStates = async (orderId: string) => (await api.services.repos.redemptions.stacks(app.id, orderId)).map((s) => s.state);
  const points = async () => (await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth })).body[0].loyalty_points;

  /**
   * Sends `type` for `order` to a worker that kills itself at `failpoint`, checks that it died
   * there, lets `atDeath` look at what it left, then starts a normal worker and returns the
   * answer (retried with the same key after a 503).
   */
  async function killedAt(
    failpoint: WorkerFailpoint,
    type: 'redeem' | 'revert',
    order: Record<string, unknown>,
    atDeath: () => Promise<void>,
  ) {
    const victim = await start({ WORKER_FAILPOINT: failpoint });
    victim.deliberatelyEnded = true; // it kills itself: that is the fault under test
    const key = `${type}-${String(order.order_id)}`;
    const first = apply(type, order, key);
    const ended = await Promise.race([exitOf(victim.child).then(() => 'killed'), first.then(() => 'answered')]);
    expect(ended, `the job finished without reaching ${failpoint}; the worker's output:\n${tailOf(victim.log)}`).to.equal('killed');
    expect(victim.exit?.signal).to.equal('SIGKILL');
    await atDeath();
    // What the worker left is in flight, never a discrepancy: the verifier reads its lanes.
    const left = await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 });
    expect(left.discrepancies).to.deep.equal([]);
    expect(left.inFlightCount).to.be.above(0);
    await start();
    return answerOf(first, () => apply(type, order, key));
  }

  function expectAnswer(res: Awaited<ReturnType<typeof apply>>, status: 'completed' | 'reverted', order: Record<string, unknown>) {
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ status, coupon_code: 'SA', orderId: order.order_id });
    expect(res.body.coupons.map((c: { coupon_code: string }) => c.coupon_code).sort()).to.deep.equal(['SA', 'SB', 'SC']);
  }

  /** After a redeem recovered: all three counted and journaled once, the cashback once, no lane; then a revert gives all back. */
  async function expectRedeemedOnceThenRevert(order: Record<string, unknown>) {
    expect(await countersNow()).to.deep.equal({ totals: [1, 1, 1, 1], lanes: 0 });
    expect(await cyclesOf(String(order.order_id))).to.deep.equal([['completed'], ['completed'], ['completed']]);
    expect(await stackStates(String(order.order_id))).to.deep.equal(['completed']);
    expect(await points()).to.equal(25);
    const revert = await answerOf(apply('revert', order, `revert-${String(order.order_id)}`), () =>
      apply('revert', order, `revert-${String(order.order_id)}`),
    );
    expectAnswer(revert, 'reverted', order);
    expect(await countersNow()).to.deep.equal({ totals: [0, 0, 0, 0], lanes: 0 });
    expect(await cyclesOf(String(order.order_id))).to.deep.equal([['reverted'], ['reverted'], ['reverted']]);
    expect(await points()).to.equal(0);
    await expectVerified();
  }

  /** The exactness verifier finds nothing wrong and nothing in flight. */
  async function expectVerified() {
    const report = await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 });
    expect(report.discrepancies).to.deep.equal([]);
    expect(report.inFlight).to.deep.equal([]);
  }

  describe('redeem', () => {
    it('when the worker dies once every counter is taken, before the stack record commits, then the re-run redeems all three once', async () => {
      const order = makeOrder();
      const res = await killedAt('stack-after-reserve', 'redeem', order, async () => {
        // Taken and held in the dead worker's lanes; nothing committed.
        expect(await countersNow()).to.deep.equal({ totals: [1, 1, 1, 1], lanes: 4 });
        expect(await stackStates(String(order.order_id))).to.deep.equal([]);
      });
      expectAnswer(res, 'completed', order);
      await expectRedeemedOnceThenRevert(order);
    });

    it('when the worker dies once the stack record commits, before the cycles are written, then the re-run writes each cycle once', async () => {
      const order = makeOrder();
      const res = await killedAt('stack-after-commit', 'redeem', order, async () => {
        expect(await countersNow()).to.deep.equal({ totals: [1, 1, 1, 1], lanes: 4 });
        expect(await stackStates(String(order.order_id))).to.deep.equal(['completed']);
        expect(await cyclesOf(String(order.order_id))).to.deep.equal([[], [], []]);
      });
      expectAnswer(res, 'completed', order);
      await expectRedeemedOnceThenRevert(order);
    });

    it('when the worker dies once the cycles are written, before the lanes are freed, then the re-run frees them and counts nothing again', async () => {
      const order = makeOrder();
      const res = await killedAt('stack-after-cycles', 'redeem', order, async () => {
        expect(await countersNow()).to.deep.equal({ totals: [1, 1, 1, 1], lanes: 4 });
        expect(await cyclesOf(String(order.order_id))).to.deep.equal([['completed'], ['completed'], ['completed']]);
      });
      expectAnswer(res, 'completed', order);
      await expectRedeemedOnceThenRevert(order);
    });
  });

  describe('revert', () => {
    /** A stacked order redeemed by a normal worker, which is then stopped. */
    async function redeemed() {
      const order = makeOrder();
      const worker = await start();
      expectAnswer(await apply('redeem', order, `redeem-${String(order.order_id)}`), 'completed', order);
      await worker.stop();
      expect(await countersNow()).to.deep.equal({ totals: [1, 1, 1, 1], lanes: 0 });
      return order;
    }
    async function expectRevertedOnce(order: Record<string, unknown>, res: Awaited<ReturnType<typeof apply>>) {
      expectAnswer(res, 'reverted', order);
      expect(await countersNow()).to.deep.equal({ totals: [0, 0, 0, 0], lanes: 0 });
      expect(await cyclesOf(String(order.order_id))).to.deep.equal([['reverted'], ['reverted'], ['reverted']]);
      expect(await stackStates(String(order.order_id))).to.deep.equal(['reverted']);
      expect(await points()).to.equal(0);
      await expectVerified();
    }

    it('when the worker dies once every counter is given back, before the revert commits, then the re-run reverts all three once', async () => {
      const order = await redeemed();
      const res = await killedAt('stack-revert-after-reserve', 'revert', order, async () => {
        expect(await countersNow()).to.deep.equal({ totals: [0, 0, 0, 0], lanes: 4 });
        expect(await stackStates(String(order.order_id))).to.deep.equal(['completed']);
      });
      await expectRevertedOnce(order, res);
    });

    it('when the worker dies once the revert commits, before the cycles move, then the re-run moves each cycle once', async () => {
      const order = await redeemed();
      const res = await killedAt('stack-revert-after-commit', 'revert', order, async () => {
        expect(await countersNow()).to.deep.equal({ totals: [0, 0, 0, 0], lanes: 4 });
        expect(await stackStates(String(order.order_id))).to.deep.equal(['reverted']);
        expect(await cyclesOf(String(order.order_id))).to.deep.equal([['completed'], ['completed'], ['completed']]);
        expect(await points()).to.equal(25);
      });
      await expectRevertedOnce(order, res);
    });

    it('when the worker dies once the cycles are reverted, before the lanes are freed, then the re-run frees them and gives nothing back again', async () => {
      const order = await redeemed();
      const res = await killedAt('stack-revert-after-cycles', 'revert', order, async () => {
        expect(await countersNow()).to.deep.equal({ totals: [0, 0, 0, 0], lanes: 4 });
        expect(await cyclesOf(String(order.order_id))).to.deep.equal([['reverted'], ['reverted'], ['reverted']]);
      });
      await expectRevertedOnce(order, res);
    });
  });
});
