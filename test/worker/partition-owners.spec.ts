import { Queue } from 'bullmq';
import { expect } from 'chai';
import { partitionQueueName } from '../../shared/queue/names.js';
import { ownedPartitions } from '../../shared/queue/partition-owners.js';
import { redisConnection } from '../../shared/queue/redis.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_QUEUE_PREFIX, type TestApi } from '../support/context.js';
import { waitFor } from '../support/webhook-receiver.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/**
 * Partition owners (shared/queue/partition-owners.ts): replicas split the partitions between them
 * through heartbeats in Redis, and a replica that dies loses its partitions to the others.
 */
describe('partition owners', function () {
  this.timeout(120_000);

  describe('the split', () => {
    const members = ['host-a:1:aaaa', 'host-b:2:bbbb', 'host-c:3:cccc'];

    it('when replicas are alive, then every partition has exactly one owner and each owns a fair share', () => {
      const shares = members.map((m) => ownedPartitions(members, m, 64));
      expect(shares.flat().sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 64 }, (_, p) => p));
      for (const share of shares) expect(share.length).to.be.within(10, 35);
    });

    it('when a replica leaves, then only its partitions move; alone, a replica owns them all', () => {
      const before = members.map((m) => ownedPartitions(members, m, 64));
      const after = members.slice(0, 2).map((m) => ownedPartitions(members.slice(0, 2), m, 64));
      for (const i of [0, 1]) expect(after[i]).to.include.members(before[i]!);
      expect([...after[0]!, ...after[1]!].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 64 }, (_, p) => p));
      expect(ownedPartitions([members[0]!], members[0]!, 8)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
      // A replica that does not see itself among the members yet counts itself in.
      expect(ownedPartitions(members.slice(1), members[0]!, 64)).to.deep.equal(before[0]);
    });
  });

  describe('between worker processes', () => {
    const PARTITIONS = 16;
    const env = { QUEUE_PARTITIONS: String(PARTITIONS), WORKER_HEARTBEAT_MS: '300', JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
    let api: TestApi;
    let workers: WorkerProcess[] = [];
    let connection: ReturnType<typeof redisConnection>;
    let queues: Queue[] = [];
    /** How many worker connections consume each partition queue. */
    const consumers = () => Promise.all(queues.map(async (q) => (await q.getWorkers()).length));

    before(async () => {
      api = await startTestApi({ QUEUE_PARTITIONS: String(PARTITIONS), JOB_WAIT_TIMEOUT_MS: '60000' }, { inProcessWorker: false });
      // The test's Redis is known once the API started (the embedded one when REDIS_URL is unset).
      connection = redisConnection(process.env.REDIS_URL!);
      queues = Array.from({ length: PARTITIONS }, (_, p) => new Queue(partitionQueueName(p), { connection, prefix: TEST_QUEUE_PREFIX }));
    });
    after(async () => {
      await Promise.all(workers.map((w) => w.stop().catch(() => null)));
      await Promise.all(queues.map((q) => q.close()));
      await connection?.quit();
      await api.close();
    });

    it('when two workers run, then each partition has one consumer; when one is killed, the other takes its partitions and every credit is applied', async () => {
      const app = await createTestApplication(api.services);
      const sourceIds = Array.from({ length: 40 }, (_, i) => `po${i}`);
      await createCustomers(api.services, app.id, sourceIds);
      await createWallet(api.services, app.id);
      const victim = await startWorkerProcess(env);
      const survivor = await startWorkerProcess(env);
      workers = [victim, survivor];

      // Each partition ends up with one consumer (the second worker's heartbeat took its share).
      await waitFor('one consumer per partition', async () => (await consumers()).every((n) => n === 1), 15_000);

      const credit = (sourceId: string) =>
        call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points: 1 } });
      const first = await Promise.all(sourceIds.map(credit));
      expect(first.map((r) => r.status)).to.deep.equal(sourceIds.map(() => 200));

      // SIGKILL: no leave; its heartbeat expires after 3 beats and the survivor takes its partitions.
      await victim.kill();
      const killedAt = Date.now();
      // Each credit's time to answer: those on the victim's partitions wait for the takeover.
      const second = Promise.all(sourceIds.map(async (id) => ({ res: await credit(id), ms: Date.now() - killedAt })));
      // Its partitions lost their consumer (so it had some: the two split them)…
      const orphaned = (await consumers()).filter((n) => n === 0).length;
      expect(orphaned).to.be.within(1, PARTITIONS - 1);
      // …until the survivor took them.
      await waitFor('the survivor to take every partition', async () => (await consumers()).every((n) => n === 1), 15_000);
      const tookOverMs = Date.now() - killedAt;
      const answers = await second;
      expect(answers.map((a) => a.res.status)).to.deep.equal(sourceIds.map(() => 200));
      // What the default (every replica on every partition) avoids: docs/architecture.md, "Partition owners".
      const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
      console.log(
        `      [owners] the survivor consumed every partition ${tookOverMs} ms after the SIGKILL; ` +
          `credits sent at the kill answered in p50 ${ms[ms.length >> 1]} ms, slowest ${ms[ms.length - 1]} ms`,
      );
      for (const sourceId of sourceIds) {
        const read = await call(api.url, 'GET', `/wallets/customer/${sourceId}`, { auth: app.auth });
        expect(read.body[0].loyalty_points, sourceId).to.equal(2);
      }
    });
  });
});
