/**
 * Jobs of the webhook queue → use cases. The delivery job turns the use case's decision into
 * BullMQ moves: a retry or an ordering wait moves the job to delayed (same job, no BullMQ
 * attempt spent), a dead letter fails it without retry (Bull Board's "failed" tab lists them).
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { WEBHOOK_JOB, type WebhookJobPayloads } from '../../shared/queue/names.js';
import { dispatchEvent, type DispatchDeps } from '../../shared/usecases/events/dispatch-event.usecase.js';
import { deliverWebhook, orderingWait, type DeliverDeps, type DeliveryStep } from '../../shared/usecases/events/deliver-webhook.usecase.js';

export type WebhookProcessorDeps = DeliverDeps & DispatchDeps;

export function createWebhookProcessor(deps: WebhookProcessorDeps, onStep?: (step: DeliveryStep) => void) {
  return async (job: Job, token?: string): Promise<unknown> => {
    switch (job.name) {
      case WEBHOOK_JOB.dispatch:
        return dispatchEvent(deps, (job.data as WebhookJobPayloads['dispatch-event']).eventId);
      case WEBHOOK_JOB.deliver: {
        const ticket = job.data as WebhookJobPayloads['deliver-webhook'];
        const step = await deliverWebhook(deps, ticket);
        onStep?.(step);
        if (step.next === 'done') return step;
        if (step.next === 'dead') throw new UnrecoverableError(step.reason);
        await job.moveToDelayed(step.at.getTime(), token);
        if (step.next === 'wait') {
          // The blocker may have finished — and failed to wake this job, still running — between
          // the check and the move: look once more now that the job can be woken.
          const d = await deps.repos.webhookDeliveries.get(ticket.deliveryId);
          if (d && d.generation === ticket.generation && !(await orderingWait(deps, d, deps.now())))
            // Rejects when the blocker's wake promoted it first: either way it runs again now.
            await job.promote().catch(() => undefined);
        }
        throw new DelayedError();
      }
      default:
        throw new Error(`unknown job name ${job.name}`);
    }
  };
}
