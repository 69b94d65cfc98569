/**
 * A worker that dies right after its job is marked completed: the API that queued the job must
 * still answer at once with the outcome — not wait out JOB_WAIT_TIMEOUT_MS and then read the
 * finished job. A worker SIGKILLed between completing a job and sending its reply must not leave
 * the client waiting out the whole wait for an outcome that exists (docs/reliability.md).
 */
import { expect } from 'chai';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/** Long enough that an answer by the wait's end cannot pass for an answer by reply. */
const WAIT_MS = 60_000;

describe('worker: a reply survives the worker dying after the job completed', function () {
  this.timeout(WAIT_MS + 60_000);
  let api: TestApi;
  let worker: WorkerProcess | undefined;
  before(async () => {
    api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: String(WAIT_MS) }, { inProcessWorker: false });
  });
  after(async () => {
    if (worker?.alive()) await worker.kill();
    await api.close();
  });

  it('when the worker is SIGKILLed right after marking the job completed, then the client still gets the outcome from its reply, long before the wait ends', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['reply-1']);
    await createWallet(api.services, app.id);
    worker = await startWorkerProcess({ WORKER_FAILPOINT: 'after-complete' });
    worker.deliberatelyEnded = true; // it kills itself: that is the fault under test
    const started = Date.now();
    const res = await call(api.url, 'PUT', '/wallets/customer/reply-1/transactions/loyalty', {
      auth: app.auth,
      body: { type: 'credit', points: 5 },
    });
    const ms = Date.now() - started;
    // The failpoint fired: the worker is gone, killed by its own SIGKILL after the job completed.
    await new Promise<void>((r) => (worker!.alive() ? worker!.child.once('exit', () => r()) : r()));
    expect(worker.exit?.signal, worker.log).to.equal('SIGKILL');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.loyalty_points).to.equal(5);
    expect(ms, `answered after ${ms} ms: by the wait's end (${WAIT_MS} ms), not by the job's reply`).to.be.below(WAIT_MS);
  });
});
