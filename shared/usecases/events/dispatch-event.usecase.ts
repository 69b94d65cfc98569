/**
 * Fans one outbox event out to its application's endpoints, as the recording job does for the
 * events it writes: for events the previous release recorded (it queued a dispatch job per event)
 * and the sweep finds undispatched. Idempotent: a re-run creates nothing twice and queues the same
 * jobs (deduplicated by id). Endpoints registered after the event was dispatched do not receive
 * it (an operator can redeliver it to them).
 */
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';
import { deliveriesOf, runsOf } from './record-events.usecase.js';

export type DispatchDeps = Pick<Services, 'repos' | 'now'> & { webhooks: Pick<WebhookQueue, 'deliverRuns' | 'wakeStream'> };

export async function dispatchEvent(deps: DispatchDeps, eventId: string): Promise<{ deliveries: number }> {
  const event = await deps.repos.events.get(eventId);
  if (!event) return { deliveries: 0 };
  if (event.dispatched) {
    // A re-run after a crash between marking and waking must still wake.
    for (const e of await deps.repos.webhookEndpoints.listByApplication(event.applicationId))
      await deps.webhooks.wakeStream(e.id, event.customerId);
    return { deliveries: 0 };
  }
  const endpoints = await deps.repos.webhookEndpoints.listByApplication(event.applicationId);
  const runs = runsOf(endpoints, [event]);
  await deps.repos.webhookDeliveries.createMissing(runs.flatMap(deliveriesOf), deps.now());
  await deps.webhooks.deliverRuns(runs);
  await deps.repos.events.markDispatched(event.id);
  // Later deliveries of this customer may be waiting for this event to be dispatched.
  for (const e of endpoints) await deps.webhooks.wakeStream(e.id, event.customerId);
  return { deliveries: runs.length };
}
