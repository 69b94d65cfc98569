import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { partitionOf, partitionQueueName } from '../../shared/queue/names.js';
import type { ServiceProcess } from './support/processes.js';
import { sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * "applied": false promises that the operation was not applied, so a client may send the request
 * again without a key. Said of an operation that has been queued, or has started, it would let the
 * resent request apply a credit twice. Each test holds a job in progress on a worker slowed to
 * 400 ms per database call.
 */
describe('chaos: a 503 says "applied": false only of an operation that cannot apply', function () {
  this.timeout(120_000);
  const slow = { TEST_SLOW_DB_MS: '400' };
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'truthful-503', limit: 5, customers: 2 });
    api = await scenario.startApi({ JOB_WAIT_TIMEOUT_MS: '1000' });
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  const credit = (sourceId: string, description: string, key?: string) =>
    fetch(`${api.url}/wallets/customer/${sourceId}/transactions/loyalty`, {
      method: 'PUT',
      headers: { authorization: scenario!.app.auth, 'content-type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify({ type: 'credit', points: 5, description }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  const appliedEntries = async (sourceId: string, description: string) =>
    (
      await scenario!.services.repos.walletTransactions.listForCustomer(
        scenario!.app.id,
        scenario!.customerIds.get(sourceId)!,
        scenario!.walletDbId,
      )
    ).filter((e) => e.description === description && e.state === 'applied').length;

  async function until(check: () => Promise<boolean>, what: string) {
    for (let i = 0; i < 400; i++) {
      if (await check()) return;
      await sleep(50);
    }
    throw new Error(`not reached: ${what}`);
  }

  /** Retries with `key` until a final answer; returns it. */
  async function settle(sourceId: string, description: string, key: string) {
    for (let i = 0; i < 60; i++) {
      const answer = await credit(sourceId, description, key);
      if (answer.status !== 503) return answer;
      await sleep(500);
    }
    throw new Error(`${key}: no final answer`);
  }

  it('when Redis is down and a request retries with the key of a queued operation, then the 503 does not say "applied": false', async () => {
    const worker = await scenario!.startWorker(slow);
    try {
      const first = await credit('c00', 'queued-before-outage');
      expect(first.status).to.equal(503); // the job runs longer than the API waits
      expect(first.body.applied).to.equal(undefined);
      const key = first.body.idempotency_key as string;

      await scenario!.redis.kill();
      const during = await credit('c00', 'queued-before-outage', key);
      await scenario!.redis.launch();
      expect(during.status).to.equal(503);
      expect(during.body, 'the operation was queued: it may apply').not.to.have.property('applied');

      expect((await settle('c00', 'queued-before-outage', key)).status).to.equal(200);
      expect(await appliedEntries('c00', 'queued-before-outage')).to.equal(1);
    } finally {
      await worker.stop();
    }
  });

  it('when a started job is back in the queue (stalled while the queue is paused), then the 503 does not say "applied": false', async () => {
    const sourceId = 'c01';
    const worker = await scenario!.startWorker({ ...slow, JOB_LOCK_MS: '1000', STALLED_INTERVAL_MS: '500' });
    const connection = new Redis(scenario!.redis.url, { maxRetriesPerRequest: null });
    const partition = partitionOf(`${scenario!.app.id}:${scenario!.customerIds.get(sourceId)}`, 4);
    const queue = new Queue(partitionQueueName(partition), { connection, prefix: scenario!.env.QUEUE_PREFIX });
    try {
      const answer = credit(sourceId, 'stalled-then-withdrawn', 'stalled-key');
      await until(async () => (await queue.getJobCounts('active')).active > 0, 'the job is active');
      // The worker hangs mid-job; an operator pauses the queue; another worker's stall check puts
      // the job (which has started) back on the queue — paused, so nobody takes it.
      process.kill(worker.child.pid!, 'SIGSTOP');
      await queue.pause();
      const checker = await scenario!.startWorker({ JOB_LOCK_MS: '1000', STALLED_INTERVAL_MS: '500' });
      await until(async () => (await queue.getJobCounts('wait')).wait > 0, 'the stalled job is back in the queue');
      expect((await answer).status).to.equal(503);
      const retry = await credit(sourceId, 'stalled-then-withdrawn', 'stalled-key');
      expect(retry.status).to.equal(503);
      // The hung worker wakes up and finishes what it started: the credit is applied.
      process.kill(worker.child.pid!, 'SIGCONT');
      await queue.resume();
      expect(retry.body, 'the job had started: it may apply').not.to.have.property('applied');
      expect((await settle(sourceId, 'stalled-then-withdrawn', 'stalled-key')).status).to.equal(200);
      expect(await appliedEntries(sourceId, 'stalled-then-withdrawn')).to.equal(1);
      await checker.stop();
    } finally {
      process.kill(worker.child.pid!, 'SIGCONT');
      await queue.close();
      connection.disconnect();
      await worker.stop();
    }
  });
});
