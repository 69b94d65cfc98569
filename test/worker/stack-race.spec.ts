import { Job } from 'bullmq';
import { expect } from 'chai';
import { campaignCounterId } from '../../shared/data/limit-counter.repository.js';
import { jobIdOf } from '../../shared/queue/gateway.js';
import { customerKeyOf, partitionOf } from '../../shared/queue/names.js';
import { createCampaign, createCustomers, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

const ROUNDS = 30;

/**
 * Two orders racing for the last use of one of two stacked coupons (docs/stacking.md): coupon A
 * has one use left, coupon B a limit no round reaches. Each round sends two redeems of [A, B] at
 * once, through the real API and two worker processes. Exactly one completes; the other gets
 * A's documented refusal and counts nothing — B's counter and journal show B once, never half a
 * redeem.
 */
/** A customer of the round's application and the partition its operations run on. */
interface Customer {
  sourceId: string;
  partition: number;
}

describe('worker: two stacked redeems racing for the last use of a coupon', function () {
  this.timeout(240_000);
  let api: TestApi;
  let workers: WorkerProcess[];
  let app: TestApplication;
  /**
   * A fresh application (no process caches it yet, so its campaigns are seen at once), opted in
   * before its first request, with customers and the partition each one's operations run on.
   */
  async function freshApplication() {
    app = await createTestApplication(api.services);
    await api.services.repos.applications.update(app.id, { stacking: { maxCoupons: 3, automaticPromotions: false } } as never);
    const created = await createCustomers(
      api.services,
      app.id,
      Array.from({ length: 8 }, (_, i) => `racer-${i}`),
    );
    return created.map((c): Customer => ({
      sourceId: c.sourceId,
      partition: partitionOf(customerKeyOf(app.id, c.id), api.services.config.queuePartitions),
    }));
  }
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
    workers = await Promise.all([startWorkerProcess(), startWorkerProcess()]);
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api.close();
  });

  const redeem = (sourceId: string, order: { order_id: string }, key: string) =>
    call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      headers: { 'idempotency-key': key },
      body: { source_id: sourceId, coupon_details: [{ coupon_code: 'LAST' }, { coupon_code: 'PLENTY' }], order },
    });
  /** When a redeem's job ran, as its worker stamped it. */
  async function ranOf(partition: number, key: string) {
    const job = await Job.fromId(api.jobs.partitionQueues[partition]!, jobIdOf(app.id, key));
    return { from: job!.processedOn!, to: job!.finishedOn! };
  }
  const counter = (campaignId: string) => api.services.repos.limitCounters.find(campaignCounterId(campaignId));
  /** Every cycle of a campaign over the given orders, by state. */
  async function journaled(campaignId: string, orderIds: string[]) {
    const cycles = (await Promise.all(orderIds.map((o) => api.services.repos.redemptions.cycles(app.id, campaignId, o)))).flat();
    return cycles.map((c) => c.state);
  }

  /**
   * `ROUNDS` rounds of two concurrent redeems of [A, B] by the two customers `racers` picks,
   * each round on a fresh application with fresh campaigns. Returns in how many rounds the two
   * jobs ran at the same time.
   */
  async function race(racers: (customers: Customer[]) => [Customer, Customer]) {
    let completed = 0;
    let refused = 0;
    let overlapped = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const racing = racers(await freshApplication());
      const a = await createCampaign(api.services, app.id, { code: 'LAST', name: 'LAST', limits: { total: 1 } });
      const b = await createCampaign(api.services, app.id, { code: 'PLENTY', name: 'PLENTY', limits: { total: 1000 } });
      const orders = [makeOrder(), makeOrder()];
      const keys = orders.map((o) => `race-${o.order_id}`);
      const results = await Promise.all(racing.map((c, i) => redeem(c.sourceId, orders[i]!, keys[i]!)));
      const won = results.filter((r) => r.status === 200);
      const lost = results.filter((r) => r.status !== 200);
      expect(won, `round ${round}: ${results.map((r) => r.text).join(' | ')}`).to.have.length(1);
      expect(won[0]!.body.status).to.equal('completed');
      expect(won[0]!.body.coupons.map((c: { coupon_code: string }) => c.coupon_code).sort()).to.deep.equal(['LAST', 'PLENTY']);
      expect(lost[0]!.status, lost[0]!.text).to.equal(400);
      expect(lost[0]!.body).to.deep.equal({
        code: 400,
        message: 'coupon validation failed',
        details: 'coupon code redemption total_limit exceeded',
        request_id: lost[0]!.body.request_id,
      });
      expect(lost[0]!.headers.get('coupon-reason')).to.equal('total_limit');
      // Nothing half-applied: each coupon counted once, journaled once, no lane held.
      const orderIds = orders.map((o) => o.order_id);
      for (const c of [a, b]) {
        const doc = await counter(c.id);
        expect({ total: doc?.total, lanes: Object.keys(doc?.lanes ?? {}) }, `round ${round}, ${c.code}`).to.deep.equal({
          total: 1,
          lanes: [],
        });
        expect(await journaled(c.id, orderIds), `round ${round}, ${c.code}`).to.deep.equal(['completed']);
      }
      completed += won.length;
      refused += lost.length;
      const [x, y] = await Promise.all(racing.map((c, i) => ranOf(c.partition, keys[i]!)));
      if (x!.from < y!.to && y!.from < x!.to) overlapped++;
    }
    expect({ completed, refused }).to.deep.equal({ completed: ROUNDS, refused: ROUNDS });
    return overlapped;
  }

  it(`when one customer sends two orders with [A, B] at once, ${ROUNDS} times, then each time exactly one completes and B counts once`, async () => {
    const overlapped = await race((customers) => [customers[0]!, customers[0]!]);
    // One partition runs one job at a time: the second redeem finds the first committed.
    expect(overlapped, 'rounds whose two jobs ran at the same time').to.equal(0);
  });

  it(`when two customers on two partitions send an order with [A, B] at once, ${ROUNDS} times, then each time exactly one completes and B counts once`, async () => {
    const overlapped = await race((customers) => {
      const one = customers[0]!;
      const other = customers.find((c) => c.partition !== one.partition);
      expect(other, 'all eight customers fall on one partition').to.not.equal(undefined);
      return [one, other!];
    });
    // Two partitions: the redeems really ran at the same time, the loser finding A taken in flight.
    expect(overlapped, 'rounds whose two jobs ran at the same time').to.be.above(0);
  });
});
