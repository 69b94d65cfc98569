/**
 * Jobs of the webhook queue → use cases. A delivery job turns what happened to its run into
 * BullMQ moves: a retry or an ordering wait moves the job to delayed (same job, no BullMQ attempt
 * spent), a dead letter fails it without retry (Bull Board's "failed" tab lists them).
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { DeliveryJobData } from '../../shared/data/webhook-delivery.repository.js';
import { WEBHOOK_JOB } from '../../shared/queue/names.js';
import {
  deliverRun,
  isBlocked,
  runOfJob,
  type DeliverDeps,
  type DeliveryStep,
} from '../../shared/usecases/events/deliver-webhook.usecase.js';

export type WebhookProcessorDeps = DeliverDeps;

export function createWebhookProcessor(deps: WebhookProcessorDeps, onStep?: (step: DeliveryStep) => void) {
  return async (job: Job, token?: string): Promise<unknown> => {
    switch (job.name) {
      case WEBHOOK_JOB.deliver: {
        const run = await runOfJob(deps, job.data as DeliveryJobData);
        const steps = 'items' in run ? await deliverRun(deps, run) : [run];
        for (const step of steps) onStep?.(step);
        // The last step says what the job does next.
        const last = steps.at(-1)!;
        if (last.next === 'done') return steps;
        if (last.next === 'dead') throw new UnrecoverableError(last.reason);
        if (last.next === 'wait' && 'items' in run) await deps.webhooks.awaitStream(run.endpointId, run.customerId, job.id!);
        await job.moveToDelayed(last.at.getTime(), token);
        // The blocker may have finished — and found no one to wake, this job not being named yet —
        // between the check and the move: look once more now that the job can be woken.
        if (last.next === 'wait' && 'items' in run && !(await isBlocked(deps, run)))
          // Rejects when a wake promoted it first: either way it runs again now.
          await job.promote().catch(() => undefined);
        throw new DelayedError();
      }
      default:
        throw new Error(`unknown job name ${job.name}`);
    }
  };
}
