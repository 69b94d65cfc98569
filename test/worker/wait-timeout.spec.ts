import { Queue } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../scripts/embedded-servers.js';
import { parseConfig } from '../../shared/config.js';
import { JobGateway, jobIdOf, type JobAnswer } from '../../shared/queue/gateway.js';
import { JOB, partitionQueueName } from '../../shared/queue/names.js';
import { createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess } from '../support/service-process.js';

/**
 * The API waits JOB_WAIT_TIMEOUT_MS for a queued operation; past it the 503 tells the truth:
 * a job that had not started is withdrawn ("applied": false) and a retry applies it once; a job
 * that is running will finish once, and a retry with the key the 503 names returns its result —
 * with or without the client having sent a key of its own.
 */
describe('waiting for a job past the timeout', function () {
  this.timeout(120_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '300' }, { inProcessWorker: false });
  });
  after(() => api.close());

  it('when no worker runs, then 503 "not applied" (the job is withdrawn); once one runs, a retry redeems once', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['late']);
    const campaign = await createCampaign(api.services, app.id, { code: 'LATE', limits: { total: 10 } });
    const body = { source_id: 'late', coupon_details: [{ coupon_code: 'LATE' }], order: makeOrder() };
    const first = await call(api.url, 'POST', '/coupons/apply?type=redeem', { auth: app.auth, body });
    expect(first.status).to.equal(503);
    expect(first.body).to.include({ code: 503, message: 'Service Unavailable', applied: false });
    expect(first.body.idempotency_key).to.match(/^auto-/);
    expect(first.headers.get('retry-after')).to.equal('1');
    expect(first.body.request_id).to.equal(first.headers.get('x-request-id'));

    const worker = await startWorkerProcess();
    try {
      await new Promise((r) => setTimeout(r, 1500)); // a withdrawn job must not run now
      expect(await api.services.db.models.Redemption.countDocuments({ application: app.id })).to.equal(0);
      // The retry, as advised (without a key: nothing was applied), through a patient replica.
      const patient = await startTestApi({}, { inProcessWorker: false });
      try {
        const retry = await call(patient.url, 'POST', '/coupons/apply?type=redeem', { auth: app.auth, body });
        expect(retry.status).to.equal(200);
        expect(retry.body).to.include({ status: 'completed', coupon_code: 'LATE', orderId: body.order.order_id });
      } finally {
        await patient.close();
      }
      expect(await usageOf(api.services, app.id, campaign.id, 'total')).to.equal(1);
      expect(await api.services.db.models.Redemption.countDocuments({ application: app.id, state: 'completed' })).to.equal(1);
    } finally {
      await worker.stop();
    }
  });

  it('when an unkeyed wallet credit is running past the wait, then 503 names a key, and retrying with it twice applies it once', async () => {
    const app = await createTestApplication(api.services);
    const [customer] = await createCustomers(api.services, app.id, ['slow']);
    const wallet = await createWallet(api.services, app.id);
    // A worker that takes longer than the API waits: every database command is slowed down.
    const worker = await startWorkerProcess({ TEST_SLOW_DB_MS: '150' });
    try {
      const credit = (headers: Record<string, string> = {}) =>
        call(api.url, 'PUT', '/wallets/customer/slow/transactions/loyalty', {
          auth: app.auth,
          body: { type: 'credit', points: 3 },
          headers,
        });
      const first = await credit();
      expect(first.status).to.equal(503);
      expect(first.body.applied).to.equal(undefined);
      const key = first.body.idempotency_key as string;
      expect(first.body.details).to.include(`Idempotency-Key: ${key}`);
      // Retried as advised, twice, until the answer comes.
      let answer = await credit({ 'Idempotency-Key': key });
      for (let i = 0; i < 50 && answer.status === 503; i++) answer = await credit({ 'Idempotency-Key': key });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ points: 3, loyalty_points: 3, previous_loyalty_points: 0 });
      const again = await credit({ 'Idempotency-Key': key });
      expect(again.body).to.deep.include({ txn_id: answer.body.txn_id, loyalty_points: 3 });
      const ledger = await api.services.repos.walletTransactions.listForCustomer(app.id, customer!.id, wallet.id);
      expect(ledger.map((e) => [e.type, e.points, e.state])).to.deep.equal([['credit', 300, 'applied']]);
    } finally {
      await worker.stop();
    }
  });
});

/**
 * The withdraw of a job whose wait is over can time out on a frozen Redis and still run when Redis
 * comes back (the command was sent): it must then leave no trace of the job, or the job's id
 * stays taken by a hash in no list — every retry's add is ignored, and the operation the 503
 * called "queued or running" never runs.
 */
describe('a withdraw that times out on a frozen Redis and runs when it comes back', function () {
  this.timeout(120_000);

  it('when the withdraw runs after the API gave up on it, then a retry with the key queues the operation again and applies it once', async () => {
    const redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, QUEUE_PREFIX: `withdraw-${process.pid}`, JOB_WAIT_TIMEOUT_MS: '500' };
    const api = await startTestApi(env, { inProcessWorker: false });
    let worker: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
    try {
      const app = await createTestApplication(api.services);
      const [customer] = await createCustomers(api.services, app.id, ['frozen']);
      const wallet = await createWallet(api.services, app.id);
      const credit = () =>
        call(api.url, 'PUT', '/wallets/customer/frozen/transactions/loyalty', {
          auth: app.auth,
          body: { type: 'credit', points: 4 },
          headers: { 'Idempotency-Key': 'frozen-1' },
        });
      // No worker: the job waits; Redis freezes before the wait ends, so the withdraw times out.
      const first = credit();
      await new Promise((r) => setTimeout(r, 250));
      process.kill(redis.child.pid!, 'SIGSTOP');
      let answer: Awaited<ReturnType<typeof credit>>;
      try {
        answer = await first;
      } finally {
        await new Promise((r) => setTimeout(r, 500));
        process.kill(redis.child.pid!, 'SIGCONT'); // the withdraw sent meanwhile runs now
      }
      expect(answer.status).to.equal(503);
      expect(answer.body.applied, 'the API could not know whether its withdraw ran').to.equal(undefined);
      worker = await startWorkerProcess(env);
      let retry = await credit();
      for (let i = 0; i < 20 && retry.status === 503; i++) retry = await credit();
      expect(retry.status, retry.text).to.equal(200);
      const ledger = await api.services.repos.walletTransactions.listForCustomer(app.id, customer!.id, wallet.id);
      expect(ledger.map((e) => [e.type, e.points, e.state])).to.deep.equal([['credit', 400, 'applied']]);
    } finally {
      await worker?.stop();
      await api.close();
      await redis.stop();
    }
  });
});

/**
 * The gateway's withdrawal against a retry with the same key at the same moment (shared/queue/
 * gateway.ts `expire`), on a Redis of its own that the test pauses (CLIENT PAUSE would stall every
 * other test on the shared one). A retry with the key may send its add while another request's
 * wait ends: were the retry told "not applied" by the withdrawal, its add could queue the job
 * again, the job would run, and the client's next request without the key would apply the credit a
 * second time.
 */
describe('a withdrawal and a retry with the key at the same moment', function () {
  this.timeout(60_000);

  it('when a retry with the key is added while another request withdraws the job, then "not applied" is said only of a job that is gone', async () => {
    const redis = await startRedisServer();
    const admin = new Redis(redis.url);
    const gateway = new JobGateway(parseConfig({ ...process.env, REDIS_URL: redis.url, QUEUE_PREFIX: 'race', QUEUE_PARTITIONS: '1' }));
    await gateway.start();
    const queue = new Queue(partitionQueueName(0), { connection: admin.duplicate(), prefix: 'race' });
    try {
      const op = { applicationId: 'app', operationKey: 'retried-key', fresh: false };
      const jobId = jobIdOf(op.applicationId, op.operationKey);
      const job = { name: JOB.noop, customerId: 'c', payload: {} };
      const settle = (p: Promise<JobAnswer>) => p.then((a) => (a.answered ? 'answered' : a.standing));
      // No worker: the job waits. The first request's wait ends at 600 ms.
      const first = settle(gateway.queueAndWait(job, { ...op, timeoutMs: 600 }));
      while (!(await queue.getJob(jobId))) await new Promise((r) => setTimeout(r, 20));
      // Redis holds every command from 300 to 1,300 ms: the first request's withdrawal (sent at
      // 600 ms) and then the retry's add (sent at 900 ms) reach it in that order, on one connection.
      await new Promise((r) => setTimeout(r, 300));
      await admin.call('CLIENT', 'PAUSE', '1000', 'ALL');
      await new Promise((r) => setTimeout(r, 600));
      let retryAnswered = false;
      const retry = settle(gateway.queueAndWait(job, { ...op, timeoutMs: 3000 })).then(async (standing) => {
        retryAnswered = true;
        // What the job is when the retry is answered: "not applied" must mean it is gone.
        return { standing, job: (await queue.getJob(jobId))?.id ?? null };
      });
      expect(await first).to.equal('not_applied'); // the first request's job was withdrawn
      const answer = await retry;
      expect(retryAnswered).to.equal(true);
      if (answer.standing === 'not_applied') expect(answer.job, 'told "not applied" while its job is queued').to.equal(null);
      else expect(answer.standing).to.equal('pending');
    } finally {
      await queue.close();
      await gateway.close();
      admin.disconnect();
      await redis.stop();
    }
  });
});
