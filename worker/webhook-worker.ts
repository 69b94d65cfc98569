/**
 * The delivery pool of a worker process: one BullMQ Worker on the webhook queue with
 * `WEBHOOK_CONCURRENCY` jobs at a time (HTTP I/O, apart from the partition workers: a slow
 * receiver holds a delivery slot, never a customer's operations), and the periodic sweep.
 * `WEBHOOK_CONCURRENCY=0` turns both off in this process (run dedicated delivery replicas).
 */
import { Worker } from 'bullmq';
import type { Config } from '../shared/config.js';
import { DestinationPolicy } from '../shared/domain/webhook-destination.js';
import { retrySchedule, shortestRetryWindowMs } from '../shared/domain/webhook-retry.js';
import type { Logger } from '../shared/logger.js';
import { createWebhookSender } from '../shared/net/webhook-client.js';
import { WEBHOOK_QUEUE, workerOptions } from '../shared/queue/names.js';
import { EventClock } from '../shared/queue/event-clock.js';
import { redisConnection } from '../shared/queue/redis.js';
import { WebhookQueue } from '../shared/queue/webhook-queue.js';
import type { Services } from '../shared/services.js';
import type { DeliveryStep } from '../shared/usecases/events/deliver-webhook.usecase.js';
import { EventRecorder } from '../shared/usecases/events/record-events.usecase.js';
import { sweepWebhooks } from '../shared/usecases/events/sweep-webhooks.usecase.js';
import { createWebhookProcessor } from './processors/webhook.processor.js';

const DAY_MS = 86_400_000;

export class WebhookWorker {
  private worker: Worker | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly services: Services,
    private readonly webhooks: WebhookQueue,
    private readonly onStep?: (step: DeliveryStep) => void,
  ) {}

  async start(): Promise<void> {
    const { config, logger } = this;
    if (config.webhookConcurrency === 0) return;
    const policy = { baseMs: config.webhookRetryBaseMs, maxMs: config.webhookRetryMaxMs, maxAttempts: config.webhookMaxAttempts };
    if (shortestRetryWindowMs(policy) < DAY_MS)
      logger.warn({ scheduleMs: retrySchedule(policy) }, 'webhook retry schedule covers less than 24 h');
    const deps = {
      ...this.services,
      webhooks: this.webhooks,
      send: createWebhookSender({ policy: new DestinationPolicy(config.webhookAllowedCidrs), timeoutMs: config.webhookTimeoutMs }),
    };
    this.worker = new Worker(WEBHOOK_QUEUE, createWebhookProcessor(deps, this.onStep), {
      ...workerOptions(config, redisConnection(config.redisUrl!)),
      concurrency: config.webhookConcurrency,
      lockDuration: Math.max(config.jobLockMs, config.webhookTimeoutMs * 2),
    });
    this.worker.on('failed', (job, err) => {
      if (job?.name === 'deliver-webhook' && err.name === 'UnrecoverableError')
        logger.warn({ jobId: job.id, reason: err.message }, 'webhook delivery dead-lettered');
      else logger.error({ err, jobId: job?.id, jobName: job?.name, queue: WEBHOOK_QUEUE }, 'job failed');
    });
    this.worker.on('error', (err) => logger.error({ err, queue: WEBHOOK_QUEUE }, 'worker error'));
    this.worker.on('stalled', (jobId) => logger.warn({ jobId, queue: WEBHOOK_QUEUE }, 'job stalled, re-queued'));
    void this.worker.run();
    await this.worker.waitUntilReady();
    this.sweep = setInterval(() => {
      this.sweeping ??= sweepWebhooks(deps)
        .then((r) => (r.requeued || r.deleted) && logger.info(r, 'webhook sweep'))
        .catch((err) => logger.error({ err }, 'webhook sweep failed'))
        .finally(() => (this.sweeping = undefined));
    }, config.webhookSweepMs);
    this.sweep.unref();
  }

  /** Finishes the deliveries in flight, takes no new ones. */
  async close(): Promise<void> {
    clearInterval(this.sweep);
    await this.sweeping;
    await this.worker?.close();
  }
}

/** The webhook side of a worker process, started: the queue, the recorder, the delivery pool. */
export interface WorkerWebhooks {
  /** Producer of delivery jobs. */
  queue: WebhookQueue;
  /** Handed to the partition processor: records each operation's events. */
  recorder: EventRecorder;
  /** Stops the delivery pool and the sweep (finishing deliveries in flight). */
  stopDelivering(): Promise<void>;
  /** Closes the producer and the event clock: after the partition workers, which still record events while draining. */
  close(): Promise<void>;
}

export async function startWorkerWebhooks(
  config: Config,
  logger: Logger,
  services: Services,
  onStep?: (step: DeliveryStep) => void,
): Promise<WorkerWebhooks> {
  const queue = new WebhookQueue(config);
  await queue.waitUntilReady();
  const clock = new EventClock(config);
  const recorder = new EventRecorder({ ...services, webhooks: queue, clock });
  const worker = new WebhookWorker(config, logger, services, queue, onStep);
  await worker.start();
  return {
    queue,
    recorder,
    stopDelivering: () => worker.close(),
    close: async () => {
      await queue.close();
      await clock.close();
    },
  };
}
