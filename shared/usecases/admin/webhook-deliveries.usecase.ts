/**
 * Admin use cases on events and deliveries (docs/admin-api.md): list an application's events,
 * list an endpoint's deliveries with their status, attempts and last error, and redeliver one
 * event or every event of a time range to an endpoint.
 */
import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import type { StoredEvent } from '../../data/event.repository.js';
import type { DeliveryRecord } from '../../data/webhook-delivery.repository.js';
import { eventEnvelope, PING_EVENT, renderEvent, renderPing, subscribes } from '../../domain/events.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';
import { adminInvalid, adminNotFound } from '../../admin-errors.js';
import { validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';
import { pageOf, parsePageQuery, timeCursor } from './paging.js';
import { requireWebhook } from './webhooks.usecase.js';

/** Most events one redelivery request queues. */
export const MAX_REDELIVERY = 10_000;

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

/** A page of an endpoint's deliveries, newest first, optionally of one status and/or one event (paging.ts). */
export async function listDeliveries(deps: Pick<Services, 'repos'>, applicationId: string, webhookId: string, query: unknown = {}) {
  await requireWebhook(deps, applicationId, webhookId);
  const q = parsePageQuery(query, ['status', 'event']);
  const rows = await deps.repos.webhookDeliveries.list(applicationId, webhookId, {
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.event !== undefined ? { eventId: q.event } : {}),
    ...(q.cursor !== undefined ? { before: timeCursor.decode(q.cursor) } : {}),
    limit: q.limit + 1,
  });
  const page = pageOf(rows, q.limit, (d) => timeCursor.encode(d.createdAt, d.id));
  return { deliveries: page.rows.map(presentDelivery), next_cursor: page.next_cursor };
}

/**
 * A page of an application's recorded events, newest first, optionally of one type and/or one
 * customer (its `source_id` or id; an archived customer is not found) (paging.ts).
 */
export async function listEvents(deps: Pick<Services, 'repos'>, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const q = parsePageQuery(query, ['type', 'customer']);
  let customerId: string | undefined;
  if (q.customer !== undefined) {
    const c = await deps.repos.customers.resolve(applicationId, q.customer);
    if (!c) throw adminNotFound('customer');
    customerId = c.id;
  }
  const rows = await deps.repos.events.list(applicationId, {
    ...(q.type !== undefined ? { type: q.type } : {}),
    ...(customerId !== undefined ? { customerId } : {}),
    ...(q.cursor !== undefined ? { before: timeCursor.decode(q.cursor) } : {}),
    limit: q.limit + 1,
  });
  const page = pageOf(rows, q.limit, (e) => timeCursor.encode(e.createdAt, e.id));
  return { events: page.rows.map((e) => eventEnvelope(e)), next_cursor: page.next_cursor };
}

/** The endpoint, which must be active to be sent anything (400 when disabled, 404 when unknown). */
async function requireActiveWebhook(deps: Pick<Services, 'repos'>, applicationId: string, webhookId: string) {
  const endpoint = await requireWebhook(deps, applicationId, webhookId);
  if (endpoint.status !== 'active') throw adminInvalid('the webhook is disabled: enable it first');
  return endpoint;
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
  const endpoint = await requireActiveWebhook(deps, applicationId, webhookId);
  const v = validateInput(redeliverSchema, input) as { event_id?: string; from?: string; to?: string };
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
      body: renderEvent(e),
    })),
    deps.now(),
  );
  await deps.webhooks.deliver(tickets);
  return { queued: tickets.length };
}

/**
 * Sends a signed test event (`webhook.ping`) to one endpoint now, through the same queue,
 * signing and retries as every event; its delivery is listed with the endpoint's others. The
 * ping is alone in a stream of its own, so it never waits behind (or holds up) a customer's
 * events, and it is not recorded in the application's events.
 */
export async function pingWebhook(
  deps: Pick<Services, 'repos' | 'now'> & { webhooks: Pick<WebhookQueue, 'deliver'> },
  applicationId: string,
  webhookId: string,
  requestId: string,
) {
  const endpoint = await requireActiveWebhook(deps, applicationId, webhookId);
  const now = deps.now();
  const id = `evt_${randomBytes(16).toString('hex')}`;
  const body = renderPing({ id, applicationId, webhookId: endpoint.id, requestId, createdAt: now });
  const [ticket] = await deps.repos.webhookDeliveries.reopen(
    [
      {
        applicationId,
        endpointId: endpoint.id,
        customerId: randomBytes(12).toString('hex'),
        eventId: id,
        eventType: PING_EVENT,
        sequence: 1,
        body,
      },
    ],
    now,
  );
  await deps.webhooks.deliver([ticket!]);
  return { event_id: id, delivery_id: ticket!.deliveryId };
}
