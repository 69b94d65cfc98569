/**
 * The backtest pool of a worker process (docs/results.md "Backtests"): one BullMQ Worker on the
 * backtest queue with BACKTEST_CONCURRENCY backtests at a time, apart from the partition workers.
 * BACKTEST_CONCURRENCY=0 turns it off in this process (run backtests on replicas of their own).
 */
import { Worker, type Job } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { BACKTEST_QUEUE, workerOptions } from '../shared/queue/names.js';
import { redisConnection } from '../shared/queue/redis.js';
import type { Services } from '../shared/services.js';
import { runBacktest } from '../shared/usecases/backtest-run.js';

export class BacktestWorker {
  private worker: Worker | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly services: Services,
  ) {}

  async start(): Promise<void> {
    const { config, logger, services } = this;
    if (config.backtestConcurrency === 0) return;
    const run = async (job: Job<{ id: string }>) => {
      try {
        await runBacktest(services, job.data.id);
      } catch (err) {
        // Its last attempt: the backtest says it failed (an earlier one is tried again, from the start).
        if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1))
          await services.repos.backtests.failed(job.data.id, err instanceof Error ? err.message : String(err), services.now());
        throw err;
      }
    };
    this.worker = new Worker(BACKTEST_QUEUE, run, {
      ...workerOptions(config, redisConnection(config.redisUrl!)),
      concurrency: config.backtestConcurrency,
      lockDuration: config.jobLockMs,
    });
    this.worker.on('failed', (job, err) => logger.error({ err, jobId: job?.id, queue: BACKTEST_QUEUE }, 'backtest failed'));
    this.worker.on('error', (err) => logger.error({ err, queue: BACKTEST_QUEUE }, 'worker error'));
    void this.worker.run();
    await this.worker.waitUntilReady();
  }

  /** Stops taking backtests; the ones running finish. */
  async close(): Promise<void> {
    await this.worker?.close();
  }
}
