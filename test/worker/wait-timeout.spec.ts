import { expect } from 'chai';
import { createCampaign, createCustomers, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi } from '../support/context.js';
import { startWorkerProcess } from '../support/worker-process.js';

/**
 * The API waits JOB_WAIT_TIMEOUT_MS for a queued operation; past it the client gets a 503 Error
 * object, the operation still happens exactly once, and a retry returns its final result.
 */
describe('waiting for a job past the timeout', function () {
  this.timeout(120_000);

  it('when no worker runs, then 503; once one runs the redeem completes once, and a retry answers completed', async () => {
    const api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '300' }, { inProcessWorker: false });
    try {
      const app = await createTestApplication(api.services);
      await createCustomers(api.services, app.id, ['late']);
      const campaign = await createCampaign(api.services, app.id, { code: 'LATE', limits: { total: 10 } });
      const body = { source_id: 'late', coupon_details: [{ coupon_code: 'LATE' }], order: makeOrder() };
      const first = await call(api.url, 'POST', '/coupons/apply?type=redeem', { auth: app.auth, body });
      expect(first.status).to.equal(503);
      expect(first.body).to.include({ code: 503, message: 'Service Unavailable' });
      expect(first.body.request_id).to.equal(first.headers.get('x-request-id'));

      const worker = await startWorkerProcess();
      try {
        const deadline = Date.now() + 30_000;
        let completed = 0;
        while (Date.now() < deadline) {
          completed = await api.services.db.models.Redemption.countDocuments({ application: app.id, state: 'completed' });
          if (completed > 0) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(completed).to.equal(1);
        // The retry goes through a second API replica with the default (long) wait.
        const patient = await startTestApi({}, { inProcessWorker: false });
        try {
          const retry = await call(patient.url, 'POST', '/coupons/apply?type=redeem', { auth: app.auth, body });
          expect(retry.status).to.equal(200);
          expect(retry.body).to.include({ status: 'completed', coupon_code: 'LATE', orderId: body.order.order_id });
        } finally {
          await patient.close();
        }
        await new Promise((r) => setTimeout(r, 1000));
        expect(await usageOf(api.services, app.id, campaign.id, 'total')).to.equal(1);
        expect(await api.services.db.models.Redemption.countDocuments({ application: app.id })).to.equal(1);
      } finally {
        await worker.stop();
      }
    } finally {
      await api.close();
    }
  });
});
