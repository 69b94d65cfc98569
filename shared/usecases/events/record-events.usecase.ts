/**
 * Records the events of a finished operation and fans them out, in the job that applied it
 * (docs/events.md): numbers them, writes one delivery per active endpoint that subscribes (one
 * bulk write), then the events to the outbox (one bulk write), then queues one delivery job per
 * endpoint carrying its run of deliveries (one `addBulk`). Called by the partition processor
 * after the use case returned, so a worker killed anywhere before this completes leaves the job
 * to be re-run (the stall check), and the re-run writes the same events and deliveries — the
 * same numbers and instant too (the reservation is the job's) — and queues the same jobs (their
 * ids derive from the deliveries): nothing twice. What was written but never queued (the job
 * failed for good in between) is found by the sweep: the deliveries are pending and carry the
 * bytes they send.
 */
import { eventIdOf, eventOfBody, renderEvent, subscribes, type EventData, type EventRecord } from '../../domain/events.js';
import { deliveryIdOf, type DeliveryRun, type NewDelivery } from '../../data/webhook-delivery.repository.js';
import type { WebhookEndpointRecord } from '../../data/webhook-endpoint.repository.js';
import type { EventClock } from '../../queue/event-clock.js';
import { runJobId, type WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';
import { changesOf, type FinishedOperation } from './change-facts.js';

export type { FinishedOperation } from './change-facts.js';

export type EventRecorderDeps = Pick<Services, 'repos' | 'applications' | 'webhookEndpoints' | 'now'> & {
  webhooks: Pick<WebhookQueue, 'deliverRuns'>;
  /** Numbers the events of a job (per partition, in Redis: shared/queue/event-clock.ts). */
  clock: Pick<EventClock, 'reserve'>;
};

/**
 * The endpoints of each application come from `webhookEndpoints` (re-read every
 * `CACHE_CHECK_MS`); the customer's `source_id` comes with the job. So an application without
 * endpoints pays nothing, and one with endpoints pays the writes only.
 */
export class EventRecorder {
  constructor(private readonly deps: EventRecorderDeps) {}

  /** Records the events of `op`; returns their ids (empty when nothing is to be reported). */
  async record(op: FinishedOperation): Promise<string[]> {
    const { repos } = this.deps;
    const { applicationId, customerId, requestId, sourceId } = op.input;
    // Events are kept for delivery: an application with no endpoint at all records none.
    const endpoints = await this.deps.webhookEndpoints.get(applicationId);
    if (endpoints.length === 0) return [];
    const { facts, fresh } = await changesOf(this.deps, op);
    if (facts.length === 0) return [];
    const ids = facts.map((f) => eventIdOf(applicationId, f.type, f.changeKey));
    /** The deliveries an event of this type may have (to any endpoint, disabled since or not). */
    const targetsOf = (id: string, type: string) =>
      endpoints.filter((e) => subscribes(e.eventTypes, type)).map((e) => deliveryIdOf(id, e.id));

    // An event already in the outbox was recorded by an earlier run: by another job (a repeat),
    // or by this job before it died — possibly before it queued the deliveries. Its deliveries'
    // runs are queued again: their job ids derive from the deliveries, so a run still queued is
    // not queued twice, and one already delivered finds nothing pending. The deliveries of an event
    // not in the outbox yet may exist too (the run died between the two writes): their bytes are
    // the event's.
    let stored = new Set<string>();
    let sent = new Map<string, string>();
    if (!fresh) {
      [stored, sent] = await Promise.all([
        repos.events.existing(ids),
        repos.webhookDeliveries.bodiesOf(ids.flatMap((id, i) => targetsOf(id, facts[i]!.type))),
      ]);
    }
    const sentBody = (id: string, type: string) => targetsOf(id, type).flatMap((d) => sent.get(d) ?? [])[0];

    const now = this.deps.now();
    const needsNumbers = facts.some((f, i) => !stored.has(ids[i]!) && !sentBody(ids[i]!, f.type));
    const reservation = needsNumbers ? await this.deps.clock.reserve(op, facts.length, now) : null;
    const events: EventRecord[] = [];
    facts.forEach((f, i) => {
      const id = ids[i]!;
      const body = sentBody(id, f.type);
      if (stored.has(id) && !body) return; // recorded, with no delivery to any endpoint it has now
      events.push(
        body
          ? eventOfBody(body)
          : {
              id,
              applicationId,
              customerId,
              type: f.type,
              sequence: reservation!.first + i,
              requestId,
              createdAt: reservation!.at,
              data: { source_id: sourceId, customer_id: customerId, ...f.data } as EventData,
            },
      );
    });

    // A recorded event goes again only to the endpoints it has deliveries for (not to one added since).
    const runs = runsOf(endpoints, events)
      .map((run) => ({ ...run, items: run.items.filter((i) => !stored.has(i.eventId) || sent.has(i.deliveryId)) }))
      .filter((run) => run.items.length > 0);
    await repos.webhookDeliveries.createMissing(runs.flatMap(deliveriesOf), now);
    await repos.events.record(events.filter((e) => !stored.has(e.id)));
    await this.deps.webhooks.deliverRuns(runs);
    return ids;
  }
}

/** Per active endpoint, the run of `events` (of one customer) it receives: those it subscribes to, in sequence order. */
export const runsOf = (endpoints: WebhookEndpointRecord[], events: EventRecord[]): DeliveryRun[] =>
  endpoints.flatMap((e) => (e.status === 'active' ? runOf(e, events) : []));

function runOf(endpoint: WebhookEndpointRecord, events: EventRecord[]): DeliveryRun[] {
  const items = events
    .filter((e) => subscribes(endpoint.eventTypes, e.type))
    .map((e) => ({
      deliveryId: deliveryIdOf(e.id, endpoint.id),
      generation: 0,
      eventId: e.id,
      eventType: e.type,
      sequence: e.sequence,
      body: renderEvent(e),
    }))
    .sort((a, b) => a.sequence - b.sequence);
  if (items.length === 0) return [];
  const first = events[0]!;
  return [{ applicationId: first.applicationId, endpointId: endpoint.id, customerId: first.customerId, items }];
}

/** The deliveries a run creates, each naming the run's job. */
export const deliveriesOf = (run: DeliveryRun): NewDelivery[] =>
  run.items.map((item) => ({
    applicationId: run.applicationId,
    endpointId: run.endpointId,
    customerId: run.customerId,
    eventId: item.eventId,
    eventType: item.eventType,
    sequence: item.sequence,
    body: item.body,
    job: runJobId(run),
  }));
