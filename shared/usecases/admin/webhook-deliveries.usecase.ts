/**
 * Admin use cases on events and deliveries (docs/admin-api.md): list an application's events,
 * list an endpoint's deliveries with their status, attempts and last error, and redeliver one
 * event or every event of a time range to an endpoint.
 */
import Joi from 'joi';
import type { StoredEvent } from '../../data/event.repository.js';
import type { DeliveryRecord } from '../../data/webhook-delivery.repository.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../data/webhook-delivery.schema.js';
import { EVENT_TYPES, eventEnvelope, subscribes, type EventType } from '../../domain/events.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';
import { adminInvalid, adminNotFound, validateInput } from './admin-errors.js';
import { requireApplication } from './applications.usecase.js';
import { requireWebhook } from './webhooks.usecase.js';

/** Most events one redelivery request queues. */
export const MAX_REDELIVERY = 10_000;

const listDeliveriesSchema = Joi.object({
  status: Joi.string().valid(...DELIVERY_STATUSES),
  event: Joi.string().max(64),
  limit: Joi.number().integer().min(1).max(1000),
});
const listEventsSchema = Joi.object({
  type: Joi.string().valid(...EVENT_TYPES),
  customer: Joi.string().max(256),
  limit: Joi.number().integer().min(1).max(1000),
});
const redeliverSchema = Joi.object({
  event_id: Joi.string().max(64),
  from: Joi.string().isoDate(),
  to: Joi.string().isoDate(),
})
  .xor('event_id', 'from')
  .and('from', 'to');

export const presentDelivery = (d: DeliveryRecord) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  customer_id: d.customerId,
  sequence: d.sequence,
  status: d.status,
  attempts: d.attempts,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  last_attempt_at: d.lastAttemptAt,
  next_attempt_at: d.nextAttemptAt,
  delivered_at: d.deliveredAt,
  created_at: d.createdAt,
});

export async function listDeliveries(deps: Pick<Services, 'repos'>, applicationId: string, webhookId: string, query: unknown) {
  await requireWebhook(deps, applicationId, webhookId);
  const q = validateInput(listDeliveriesSchema, query, { query: true }) as { status?: DeliveryStatus; event?: string; limit?: number };
  const rows = await deps.repos.webhookDeliveries.list(applicationId, webhookId, {
    status: q.status,
    eventId: q.event,
    limit: q.limit ?? 100,
  });
  return { deliveries: rows.map(presentDelivery) };
}

export async function listEvents(deps: Pick<Services, 'repos'>, applicationId: string, query: unknown) {
  await requireApplication(deps, applicationId);
  const q = validateInput(listEventsSchema, query, { query: true }) as { type?: EventType; customer?: string; limit?: number };
  let customerId: string | undefined;
  if (q.customer) {
    const c = await deps.repos.customers.resolve(applicationId, q.customer);
    if (!c) throw adminNotFound('customer');
    customerId = c.id;
  }
  const rows = await deps.repos.events.list(applicationId, { type: q.type, customerId, limit: q.limit ?? 100 });
  return { events: rows.map((e) => ({ ...eventEnvelope(e), dispatched: e.dispatched })) };
}

/**
 * Sends events again to one endpoint: one event by id, or every event the endpoint subscribes to
 * in [from, to). Each delivery restarts with a full retry schedule; receivers deduplicate by
 * event id. Events are kept `WEBHOOK_RETENTION_DAYS` and only recorded while the application has
 * at least one endpoint.
 */
export async function redeliver(
  deps: Pick<Services, 'repos' | 'now'> & { webhooks: Pick<WebhookQueue, 'deliver'> },
  applicationId: string,
  webhookId: string,
  input: unknown,
) {
  const endpoint = await requireWebhook(deps, applicationId, webhookId);
  const v = validateInput(redeliverSchema, input) as { event_id?: string; from?: string; to?: string };
  if (endpoint.status !== 'active') throw adminInvalid('the webhook is disabled: enable it first');
  let events: StoredEvent[];
  if (v.event_id) {
    const event = await deps.repos.events.find(applicationId, v.event_id);
    if (!event) throw adminNotFound('event');
    if (!subscribes(endpoint.eventTypes, event.type)) throw adminInvalid(`the webhook does not subscribe to ${event.type}`);
    events = [event];
  } else {
    const from = new Date(v.from!);
    const to = new Date(v.to!);
    if (!(from < to)) throw adminInvalid('"from" must be before "to"');
    events = await deps.repos.events.inRange(applicationId, from, to, MAX_REDELIVERY + 1);
    if (events.length > MAX_REDELIVERY) throw adminInvalid(`the range holds more than ${MAX_REDELIVERY} events: narrow it`);
    events = events.filter((e) => subscribes(endpoint.eventTypes, e.type));
  }
  const tickets = await deps.repos.webhookDeliveries.reopen(
    events.map((e) => ({
      applicationId,
      endpointId: endpoint.id,
      customerId: e.customerId,
      eventId: e.id,
      eventType: e.type,
      sequence: e.sequence,
    })),
    deps.now(),
  );
  await deps.webhooks.deliver(tickets);
  return { queued: tickets.length };
}
