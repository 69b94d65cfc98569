import { expect } from 'chai';
import { createCampaign, createCustomers, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, testServices } from '../support/context.js';
import { startApiProcess, startWorkerProcess } from '../support/service-process.js';

/**
 * SIGTERM during a burst of redeems: the API stops accepting connections, answers every request
 * it accepted (including those waiting on a job) and exits 0; a worker finishes its current job
 * and exits 0. Nothing is half-applied: every completed redemption was answered 200.
 */
describe('graceful shutdown under load', function () {
  this.timeout(120_000);

  it('when the API and a worker get SIGTERM mid-burst, then every accepted request is answered, both exit 0, and nothing is half-applied', async () => {
    const services = await testServices();
    const app = await createTestApplication(services);
    const sourceIds = Array.from({ length: 10 }, (_, i) => `g${i}`);
    await createCustomers(services, app.id, sourceIds);
    const campaign = await createCampaign(services, app.id, { code: 'DRAIN', limits: { total: 1000 } });
    const apiProc = await startApiProcess({ ADMIN_TOKEN: undefined, JOB_WAIT_TIMEOUT_MS: '60000' });
    const leaving = await startWorkerProcess();
    const staying = await startWorkerProcess();
    const url = apiProc.url!;

    const burst = Array.from({ length: 80 }, (_, i) =>
      call(url, 'POST', '/coupons/apply?type=redeem', {
        auth: app.auth,
        body: { source_id: sourceIds[i % sourceIds.length], coupon_details: [{ coupon_code: 'DRAIN' }], order: makeOrder() },
      }).then(
        (r) => ({ answered: true as const, status: r.status, body: r.body }),
        (err: Error) => ({ answered: false as const, error: String((err as { cause?: { code?: string } }).cause?.code ?? err.message) }),
      ),
    );
    await new Promise((r) => setTimeout(r, 150));
    const [apiExit, workerExit] = await Promise.all([apiProc.stop(), leaving.stop()]);
    const results = await Promise.all(burst);
    try {
      expect(apiExit, 'api exit code').to.equal(0);
      expect(workerExit, 'worker exit code').to.equal(0);
      const answered = results.filter((r) => r.answered);
      expect(answered.length).to.be.greaterThan(0);
      for (const r of answered) expect(r.status, JSON.stringify(r.body)).to.equal(200);
      // Requests the server never accepted fail to connect; none was cut off mid-request.
      for (const r of results.filter((x) => !x.answered)) expect(r.error).to.be.oneOf(['ECONNREFUSED', 'UND_ERR_SOCKET', 'ECONNRESET']);
      const cycles = await services.db.models.Redemption.find({ application: app.id, campaign: campaign.id }).lean();
      const completed = cycles.filter((c) => c.state === 'completed').length;
      expect(completed).to.equal(answered.length);
      expect(await usageOf(services, app.id, campaign.id, 'total')).to.equal(completed);
    } finally {
      await staying.stop();
    }
  });
});
