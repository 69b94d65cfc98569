import { expect } from 'chai';
import { fingerprintOf } from '../../shared/usecases/idempotency.js';
import { createCampaign, createCustomers, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/**
 * A sold-out coupon is refused by the API without the queue (shared/usecases/apply/sold-out.usecase.ts):
 * the worker process is frozen (SIGSTOP) while the refusals are asked, so an answer that needed a
 * job could not come; the limit stays exact and a revert's freed slot is taken at once.
 */
describe('sold-out refusals answered by the API (a real worker process)', function () {
  this.timeout(180_000);
  let api: TestApi;
  let worker: WorkerProcess;
  let app: TestApplication;
  const customers = Array.from({ length: 80 }, (_, i) => `so-${i}`);
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
    worker = await startWorkerProcess();
  });
  after(async () => {
    if (worker.child.pid) process.kill(worker.child.pid, 'SIGCONT');
    await worker.stop();
    await api.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, customers);
  });

  const freeze = () => process.kill(worker.child.pid!, 'SIGSTOP');
  const thaw = () => process.kill(worker.child.pid!, 'SIGCONT');
  const apply = (
    type: string,
    sourceId: string,
    code: string,
    order: Record<string, unknown>,
    headers: Record<string, string> = {},
    url = api.url,
  ) =>
    call(url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_id: code, coupon_code: code }], order },
      headers,
    });
  /** The refusal's body as the contract fixes it (request ids differ per request). */
  const refusal = (r: { status: number; body: Record<string, unknown>; headers: Headers }) => ({
    status: r.status,
    message: r.body.message,
    details: r.body.details,
    keys: Object.keys(r.body).sort(),
    reason: r.headers.get('coupon-reason'),
  });

  it('when a coupon is sold out, then later redeems are refused with the worker’s body while the worker is frozen, and a revert frees a slot at once', async () => {
    const campaign = await createCampaign(api.services, app.id, { code: 'SOLD5', limits: { total: 5 } });
    const orders = customers.map(() => makeOrder());
    for (let i = 0; i < 5; i++) expect((await apply('redeem', customers[i]!, 'SOLD5', orders[i]!)).status).to.equal(200);
    const queued = await apply('redeem', customers[5]!, 'SOLD5', orders[5]!); // through the worker: it hints the campaign
    expect(refusal(queued)).to.deep.include({ status: 400, details: 'coupon code redemption total_limit exceeded', reason: 'total_limit' });

    freeze();
    try {
      const answers = await Promise.all(customers.slice(6, 46).map((c, i) => apply('redeem', c, 'SOLD5', orders[6 + i]!)));
      for (const a of answers) expect(refusal(a)).to.deep.equal(refusal(queued));
      expect(api.jobs.pending, 'no job waits for the frozen worker').to.equal(0);
    } finally {
      thaw();
    }

    // A redeem of an order already redeemed is the journal's to answer (200, docs/decisions.md#17), and
    // another customer's order has its own refusal: both go through the worker.
    expect((await apply('redeem', customers[0]!, 'SOLD5', orders[0]!)).body.status).to.equal('completed');
    expect((await apply('redeem', customers[1]!, 'SOLD5', orders[0]!)).body.details).to.equal(
      'order_id is already redeemed with this coupon by another customer',
    );

    // A revert that frees a slot: the very next redeem takes it, the one after is refused again.
    expect((await apply('revert', customers[2]!, 'SOLD5', orders[2]!)).body.status).to.equal('reverted');
    expect((await apply('redeem', customers[50]!, 'SOLD5', orders[50]!)).status).to.equal(200);
    expect(refusal(await apply('redeem', customers[51]!, 'SOLD5', orders[51]!))).to.deep.equal(refusal(queued));
    expect(await usageOf(api.services, app.id, campaign.id, 'total')).to.equal(5);
    expect((await api.services.repos.redemptions.countByState(campaign.id)).completed).to.equal(5);
  });

  it('when a stampede of redeems meets reverts after a sell-out, then nothing is lost or counted twice: the slots left are exactly the limit minus what stands', async () => {
    const campaign = await createCampaign(api.services, app.id, { code: 'RUSH20', limits: { total: 20 } });
    const orders = customers.map(() => makeOrder());
    const first = await Promise.all(customers.slice(0, 30).map((c, i) => apply('redeem', c, 'RUSH20', orders[i]!)));
    const winners = first.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(winners).to.have.length(20);
    // The stampede: 40 more customers at once, with 6 winners reverting among them.
    const reverts = winners.slice(0, 6);
    const wave = await Promise.all([
      ...customers.slice(30, 70).map((c, i) => apply('redeem', c, 'RUSH20', orders[30 + i]!)),
      ...reverts.map((i) => apply('revert', customers[i]!, 'RUSH20', orders[i]!)),
    ]);
    for (const r of wave) expect([200, 400], JSON.stringify(r.body)).to.include(r.status);
    const taken = wave.slice(0, 40).filter((r) => r.status === 200).length;
    expect(wave.slice(40).every((r) => r.body.status === 'reverted')).to.equal(true);
    const standing = 20 - reverts.length + taken;
    expect(standing).to.be.at.most(20);
    expect(await usageOf(api.services, app.id, campaign.id, 'total')).to.equal(standing);
    // What is left is exactly what can still be taken: one by one until refused.
    let more = 0;
    for (const c of customers.slice(70, 80)) {
      const r = await apply('redeem', c, 'RUSH20', makeOrder());
      if (r.status !== 200) break;
      more++;
    }
    expect(standing + more).to.equal(20);
    expect((await api.services.repos.redemptions.countByState(campaign.id)).completed).to.equal(20);
  });

  it('when a request’s Idempotency-Key may have queued a job already, then it is not refused without the queue; a fresh key’s refusal is stored and replayed', async () => {
    // An API of its own with a short job wait: a request that reaches the queue while the worker is frozen answers 503 soon.
    const api2 = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '1500' }, { inProcessWorker: false });
    const at2 = (sourceId: string, order: Record<string, unknown>, headers: Record<string, string> = {}) =>
      apply('redeem', sourceId, 'ONE1', order, headers, api2.url);
    try {
      await createCampaign(api.services, app.id, { code: 'ONE1', limits: { total: 1 } });
      expect((await at2(customers[0]!, makeOrder())).status).to.equal(200);
      expect((await at2(customers[1]!, makeOrder())).status).to.equal(400); // through the worker: hints this API

      const fresh = makeOrder();
      freeze();
      let first, again;
      try {
        first = await at2(customers[2]!, fresh, { 'idempotency-key': 'k-fresh' });
        again = await at2(customers[2]!, fresh, { 'idempotency-key': 'k-fresh' });
      } finally {
        thaw();
      }
      expect(first.status, 'refused without the frozen worker').to.equal(400);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);

      // A key claimed by an earlier request (one whose API died after queueing, say): its retry joins the queue.
      const order = makeOrder();
      const body = { source_id: customers[3], coupon_details: [{ coupon_id: 'ONE1', coupon_code: 'ONE1' }], order };
      await api.services.repos.idempotency.claimOrFind(
        app.id,
        'k-claimed',
        fingerprintOf('apply:redeem', body),
        new Date(Date.now() + 60_000),
      );
      freeze();
      let whileFrozen;
      try {
        whileFrozen = await at2(customers[3]!, order, { 'idempotency-key': 'k-claimed' });
      } finally {
        thaw();
      }
      expect(whileFrozen.status, 'it waited for the frozen worker').to.equal(503);
      const retried = await at2(customers[3]!, order, { 'idempotency-key': 'k-claimed' });
      expect(retried.body.details).to.equal('coupon code redemption total_limit exceeded');

      // A request without a key queued by an API that saw no sell-out (its 503 names a generated key),
      // then retried with that key at the API that did: the job may still apply, so the retry waits for it.
      const unhinted = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '1500' }, { inProcessWorker: false });
      try {
        const queuedOrder = makeOrder();
        freeze();
        let first, retry;
        try {
          first = await apply('redeem', customers[4]!, 'ONE1', queuedOrder, {}, unhinted.url);
          retry = await at2(customers[4]!, queuedOrder, { 'idempotency-key': String(first.body.idempotency_key) });
        } finally {
          thaw();
        }
        expect(first.status, 'queued behind the frozen worker').to.equal(503);
        expect(String(first.body.idempotency_key)).to.match(/^auto-/);
        expect(retry.status, 'the retry with the generated key joined the queued job').to.equal(503);
        const settled = await at2(customers[4]!, queuedOrder, { 'idempotency-key': String(first.body.idempotency_key) });
        expect(settled.body.details).to.equal('coupon code redemption total_limit exceeded');
      } finally {
        await unhinted.close();
      }
    } finally {
      await api2.close();
    }
  });
});
