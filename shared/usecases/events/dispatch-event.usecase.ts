/**
 * Fans one outbox event out to its application's endpoints: one delivery per active endpoint
 * that subscribes to its type, each queued. Idempotent: a re-run creates nothing twice and
 * queues what is still pending (queueing is deduplicated by job id). Endpoints registered after
 * the event was dispatched do not receive it (an operator can redeliver it to them).
 */
import { subscribes } from '../../domain/events.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';
import { wakeNext } from './deliver-webhook.usecase.js';

export type DispatchDeps = Pick<Services, 'repos' | 'now'> & { webhooks: Pick<WebhookQueue, 'deliver' | 'wake'> };

export async function dispatchEvent(deps: DispatchDeps, eventId: string): Promise<{ deliveries: number }> {
  const event = await deps.repos.events.get(eventId);
  if (!event) return { deliveries: 0 };
  const endpoints = (await deps.repos.webhookEndpoints.listByApplication(event.applicationId)).filter((e) => e.status === 'active');
  // Later deliveries of this customer may be waiting for this event to be dispatched (and a
  // re-run after a crash between marking and waking must still wake them).
  const wakeWaiting = () => Promise.all(endpoints.map((e) => wakeNext(deps, e.id, event.customerId, event.sequence)));
  if (event.dispatched) {
    await wakeWaiting();
    return { deliveries: 0 };
  }
  const tickets = await deps.repos.webhookDeliveries.createMissing(
    endpoints
      .filter((e) => subscribes(e.eventTypes, event.type))
      .map((e) => ({
        applicationId: event.applicationId,
        endpointId: e.id,
        customerId: event.customerId,
        eventId: event.id,
        eventType: event.type,
        sequence: event.sequence,
      })),
    deps.now(),
  );
  await deps.webhooks.deliver(tickets);
  await deps.repos.events.markDispatched(event.id);
  await wakeWaiting();
  return { deliveries: tickets.length };
}
