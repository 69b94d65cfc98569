/**
 * A worker never decides on an older configuration than the API that queued the job: the job
 * carries the application's `configVersion` the API found the coupons under, and a worker whose
 * cache is older reads the application again (docs/architecture.md, "What a worker caches").
 * Announced changes reach every process at once (test/worker/config-changes.spec.ts); this is the
 * change nobody announced — a tool writing the database, a hand edit, an API replica that started
 * after it — which an API can see before a worker whose cache re-checks only every CACHE_CHECK_MS.
 */
import { expect } from 'chai';
import { createCampaign, createCustomers, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/** So long that nothing but the job's version can make the worker re-read during the test. */
const CACHE_CHECK_MS = '60000';

describe('a worker decides on at least the configuration the API saw', function () {
  this.timeout(120_000);
  let api: TestApi;
  let worker: WorkerProcess;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi({ CACHE_CHECK_MS }, { inProcessWorker: false });
    worker = await startWorkerProcess({ CACHE_CHECK_MS });
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['c1']);
  });
  after(async () => {
    await worker?.stop();
    await api?.close();
  });

  const redeem = (codes: string[]) =>
    call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'c1', coupon_details: codes.map((coupon_code) => ({ coupon_code })), order: makeOrder() },
    });

  /** A campaign written to the database unannounced (the fixture bumps the config version only); the API then reads it, the worker does not. */
  async function unannounced(code: string) {
    await createCampaign(api.services, app.id, { code });
    apiRereads();
  }

  /** This API process alone drops what it holds of the application (as a replica started now would hold nothing). */
  const apiRereads = () => {
    api.services.credentials.forgetApplication(app.id);
    api.services.applications.forget(app.id);
  };

  it('when a campaign is written unannounced and the API has read it, then a worker holding the older configuration redeems it', async () => {
    await createCampaign(api.services, app.id, { code: 'KNOWN' });
    apiRereads();
    const warm = await redeem(['KNOWN']);
    expect(warm.status, warm.text).to.equal(200); // the worker now holds the application at this version
    await unannounced('NEWER');
    const res = await redeem(['NEWER']);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ status: 'completed', coupon_code: 'NEWER' });
  });

  it('when the application stacks and a campaign is written unannounced, then a stacked redeem naming it completes too', async () => {
    await api.services.repos.applications.update(app.id, { stacking: { maxCoupons: 3, automaticPromotions: false } } as never);
    await createCampaign(api.services, app.id, { code: 'STACK1' });
    apiRereads();
    const warm = await redeem(['STACK1', 'KNOWN']);
    expect(warm.status, warm.text).to.equal(200);
    await unannounced('STACK2');
    const res = await redeem(['STACK1', 'STACK2']);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.coupons.map((c: { coupon_code: string }) => c.coupon_code)).to.have.members(['STACK1', 'STACK2']);
  });
});
