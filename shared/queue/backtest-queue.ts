/** Producer side of the backtest queue ({@link BACKTEST_QUEUE}): the admin API queues one job per backtest, named after it. */
import { Queue } from 'bullmq';
import type { Config } from '../config.js';
import { BACKTEST_JOB, BACKTEST_QUEUE } from './names.js';
import { redisConnection } from './redis.js';

export class BacktestQueue {
  readonly queue: Queue;

  constructor(config: Pick<Config, 'redisUrl' | 'queuePrefix' | 'keepFinishedSeconds'>) {
    this.queue = new Queue(BACKTEST_QUEUE, { connection: redisConnection(config.redisUrl!), prefix: config.queuePrefix });
    // A lost connection is reported by the job gateway's connection and by readiness (as for the webhook queue).
    this.queue.on('error', () => undefined);
    this.keepSeconds = config.keepFinishedSeconds;
  }

  private readonly keepSeconds: number;

  /** Queues backtest `id` (once: the job's id is the backtest's). A worker that dies running it leaves it to another (stalled). */
  async add(id: string): Promise<void> {
    await this.queue.add(
      BACKTEST_JOB,
      { id },
      {
        jobId: `backtest-${id}`,
        attempts: 3,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: this.keepSeconds },
        removeOnFail: { age: this.keepSeconds * 24 },
      },
    );
  }

  waitUntilReady(): Promise<unknown> {
    return this.queue.waitUntilReady();
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
