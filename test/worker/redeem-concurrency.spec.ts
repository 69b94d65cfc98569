import { expect } from 'chai';
import { createBulkCodes, createCampaign, createCustomers, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/**
 * Limits exact under concurrency: hundreds of redeems through the real API and two real worker
 * processes; the counters must end exactly at the limit and match the accepted responses.
 */
describe('redeem limits under concurrency (two worker processes)', function () {
  this.timeout(180_000);
  let api: TestApi;
  let workers: WorkerProcess[];
  let app: TestApplication;
  let customers: string[];
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
    workers = await Promise.all([startWorkerProcess(), startWorkerProcess()]);
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    customers = Array.from({ length: 40 }, (_, i) => `cust-${i}`);
    await createCustomers(api.services, app.id, customers);
  });

  const redeem = (sourceId: string, code: string, order = makeOrder()) =>
    call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_id: code, coupon_code: code }], order },
    });

  async function burst(n: number, code: string, pick: (i: number) => string = (i) => customers[i % customers.length]!) {
    const results = await Promise.all(Array.from({ length: n }, (_, i) => redeem(pick(i), code)));
    for (const r of results) expect([200, 400], JSON.stringify(r.body)).to.include(r.status);
    return results;
  }

  it('when 200 customers-orders race for a total limit of 25, then exactly 25 complete and the rest get total_limit exceeded', async () => {
    await createCampaign(api.services, app.id, { code: 'TOTAL25', limits: { total: 25 } });
    const results = await burst(200, 'TOTAL25');
    const ok = results.filter((r) => r.status === 200);
    expect(ok).to.have.length(25);
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.body).to.include({ message: 'coupon validation failed', details: 'coupon code redemption total_limit exceeded' });
    }
    const campaign = (await api.services.repos.campaigns.listByApplication(app.id))[0]!;
    expect(await usageOf(api.services, app.id, campaign.id, 'total')).to.equal(25);
  });

  it('when one customer races 60 orders against a per-customer limit of 3, then exactly 3 complete', async () => {
    await createCampaign(api.services, app.id, { code: 'PERUSER3', limits: { perCustomer: 3 } });
    const results = await burst(60, 'PERUSER3', () => 'cust-1');
    expect(results.filter((r) => r.status === 200)).to.have.length(3);
    expect(results.find((r) => r.status === 400)!.body.details).to.equal('coupon code redemption per_user_limit exceeded');
  });

  it('when 150 redeems race for a per-day limit of 10, then exactly 10 complete', async () => {
    await createCampaign(api.services, app.id, { code: 'DAY10', limits: { perDay: 10 } });
    const results = await burst(150, 'DAY10');
    expect(results.filter((r) => r.status === 200)).to.have.length(10);
    expect(results.find((r) => r.status === 400)!.body.details).to.equal('coupon code redemption per_day_limit exceeded');
  });

  it('when 40 customers race for one single-use bulk code, then exactly one completes', async () => {
    const campaign = await createCampaign(api.services, app.id, { codeType: 'bulk', code: undefined, bulkCodeUsageLimit: 1 });
    await createBulkCodes(api.services, app.id, campaign.id, ['ONE-SHOT-1']);
    const results = await burst(40, 'ONE-SHOT-1');
    expect(results.filter((r) => r.status === 200)).to.have.length(1);
  });
});
