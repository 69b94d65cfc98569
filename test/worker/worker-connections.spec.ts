/**
 * A worker process's Redis connections (worker/worker-pool.ts): every partition worker's commands
 * share one connection, each partition's blocking fetch has its own, and closing the pool ends all
 * of them. Before, each partition had a commands connection of its own that BullMQ left open when
 * its worker closed (it was the caller's): 2 per partition, and one more leaked at every handover.
 * Counted with `CLIENT LIST` on the test's Redis, by the names the connections carry.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import pino from 'pino';
import { partitionQueueName } from '../../shared/queue/names.js';
import { until } from '../support/poll.js';
import { ensureInfra } from '../support/hooks.js';
import { testConfig, TEST_QUEUE_PREFIX } from '../support/context.js';
import { WorkerPool } from '../../worker/worker-pool.js';

describe('worker: Redis connections of the partition workers', function () {
  let redis: Redis;
  before(async () => {
    await ensureInfra();
    redis = new Redis(process.env.REDIS_URL!);
  });
  after(() => redis?.disconnect());

  /** This test process's pool connections by kind: the shared commands one and each partition's blocking fetch. */
  async function connections(partitions: number): Promise<{ commands: number; fetches: number }> {
    const names = ((await redis.client('LIST')) as string)
      .split('\n')
      .map((line) => / name=(\S*)/.exec(line)?.[1] ?? '')
      .filter((n) => n.startsWith(`${TEST_QUEUE_PREFIX}:`));
    const queues = Array.from({ length: partitions }, (_, p) => Buffer.from(partitionQueueName(p)).toString('base64'));
    return {
      commands: names.filter((n) => n === `${TEST_QUEUE_PREFIX}:partition-commands`).length,
      fetches: names.filter((n) => queues.some((q) => n.startsWith(`${TEST_QUEUE_PREFIX}:${q}`))).length,
    };
  }

  it('when a pool consumes 4 partitions, then it holds one commands connection and one blocking fetch per partition, and none once closed', async () => {
    const config = testConfig({ QUEUE_PARTITIONS: '4' });
    const before = await connections(4);
    const pool = new WorkerPool(config, pino({ level: 'silent' }), async () => ({ ok: true }));
    await pool.start();
    try {
      // A blocking fetch connects when its worker first waits for a job.
      const running = await until(
        'every partition fetching',
        async () => {
          const c = await connections(4);
          return c.fetches - before.fetches === 4 && c;
        },
        20_000,
      );
      expect(running.commands - before.commands).to.equal(1);
    } finally {
      await pool.close();
    }
    const after = await until(
      'the pool’s connections closed',
      async () => {
        const c = await connections(4);
        return c.commands === before.commands && c.fetches === before.fetches && c;
      },
      20_000,
    );
    expect(after).to.deep.equal(before);
  });
});
