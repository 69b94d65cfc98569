/**
 * One run of a delivery job: decide whether the delivery may be attempted now, attempt it, and
 * say what the job does next (docs/events.md). Ordering: a stream is (endpoint, customer); a
 * delivery is attempted only when no earlier delivery of its stream is unfinished and every
 * earlier event of its customer has been dispatched. Otherwise it waits: its job sleeps until the
 * blocker's next attempt, and is woken as soon as the blocker finishes.
 */
import { renderEvent, subscribes } from '../../domain/events.js';
import { retryDelayMs } from '../../domain/webhook-retry.js';
import { signatureHeader } from '../../domain/webhook-signature.js';
import type { DeliveryRecord, DeliveryTicket } from '../../data/webhook-delivery.repository.js';
import { signingSecretsOf } from '../../data/webhook-endpoint.repository.js';
import type { DeliveryStatus } from '../../data/webhook-delivery.schema.js';
import type { WebhookSender } from '../../net/webhook-client.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';

export type DeliverDeps = Pick<Services, 'repos' | 'config' | 'now'> & {
  webhooks: Pick<WebhookQueue, 'wake'>;
  send: WebhookSender;
  /** Jitter source, [0, 1). Default Math.random. */
  random?: () => number;
};

/** What the job does after this run. */
export type DeliveryStep =
  | { next: 'done'; status: Exclude<DeliveryStatus, 'pending'> | 'stale' }
  /** The attempt failed and another is due at `at`. */
  | { next: 'retry'; at: Date; error: string }
  /** An earlier delivery of the stream comes first; re-check at `at` (or when woken). */
  | { next: 'wait'; at: Date }
  /** Dead-lettered: the last attempt failed, or the receiver answered 410. */
  | { next: 'dead'; reason: string };

/** Time past an attempt's budget before it counts as lost (for the ordering and the sweep). */
const IN_FLIGHT_MARGIN_MS = 60_000;
/**
 * A waiting delivery is woken when its blocker finishes; these only bound the wait if a wake is
 * lost: it re-checks this long after the blocker's scheduled run, or — when the blocker is already
 * due (queued behind others) — after {@link DUE_RECHECK_MS}.
 */
const RECHECK_AFTER_MS = 1000;
const DUE_RECHECK_MS = 30_000;

/** When a waiting delivery should look again, or null when it may be attempted now. */
export async function orderingWait(deps: Pick<Services, 'repos' | 'config'>, d: DeliveryRecord, now: Date): Promise<Date | null> {
  const latest = now.getTime() + deps.config.webhookOverdueMs;
  // An earlier event not yet fanned out may become an earlier delivery of this stream; its
  // dispatch wakes this one.
  if (await deps.repos.events.hasUndispatchedBefore(d.applicationId, d.customerId, d.sequence)) return new Date(latest);
  const blocker = await deps.repos.webhookDeliveries.firstPendingBefore(d.endpointId, d.customerId, d.sequence);
  if (!blocker) return null;
  const recheck =
    blocker.nextAttemptAt && blocker.nextAttemptAt > now
      ? blocker.nextAttemptAt.getTime() + RECHECK_AFTER_MS
      : now.getTime() + DUE_RECHECK_MS;
  return new Date(Math.min(recheck, latest));
}

/** Wakes the next unfinished delivery of a stream (it may be waiting for `after`). */
export async function wakeNext(
  deps: Pick<Services, 'repos'> & { webhooks: Pick<WebhookQueue, 'wake'> },
  endpointId: string,
  customerId: string,
  after: number,
): Promise<void> {
  const next = await deps.repos.webhookDeliveries.firstPendingAfter(endpointId, customerId, after);
  if (next) await deps.webhooks.wake({ deliveryId: next.id, generation: next.generation });
}

async function end(
  deps: DeliverDeps,
  t: DeliveryTicket,
  d: DeliveryRecord,
  status: Exclude<DeliveryStatus, 'pending'>,
  o: { statusCode?: number | null; error?: string | null },
): Promise<void> {
  await deps.repos.webhookDeliveries.finish(t, status, { ...o, at: deps.now() });
  await wakeNext(deps, d.endpointId, d.customerId, d.sequence);
}

/** Runs delivery `t` once. Safe to run twice at once: a stale or duplicated job changes nothing. */
export async function deliverWebhook(deps: DeliverDeps, t: DeliveryTicket): Promise<DeliveryStep> {
  const { repos, config } = deps;
  const d = await repos.webhookDeliveries.get(t.deliveryId);
  if (!d || d.generation !== t.generation) return { next: 'done', status: 'stale' };
  if (d.status !== 'pending') {
    // A re-run of a job whose worker died after finishing the delivery but before waking the next.
    await wakeNext(deps, d.endpointId, d.customerId, d.sequence);
    return { next: 'done', status: d.status };
  }
  const now = deps.now();

  const endpoint = await repos.webhookEndpoints.findById(d.applicationId, d.endpointId);
  const unsendable = !endpoint
    ? 'endpoint deleted'
    : endpoint.status !== 'active'
      ? `endpoint disabled (${endpoint.disabledReason ?? 'admin'})`
      : !subscribes(endpoint.eventTypes, d.eventType)
        ? `endpoint no longer subscribes to ${d.eventType}`
        : null;
  if (unsendable) {
    await end(deps, t, d, 'cancelled', { error: unsendable });
    return { next: 'done', status: 'cancelled' };
  }

  const waitUntil = await orderingWait(deps, d, now);
  if (waitUntil) {
    await repos.webhookDeliveries.scheduleAt(t, waitUntil);
    return { next: 'wait', at: waitUntil };
  }

  const event = await repos.events.get(d.eventId);
  if (!event) {
    await end(deps, t, d, 'cancelled', { error: 'event no longer kept (retention)' });
    return { next: 'done', status: 'cancelled' };
  }
  const deadline = new Date(now.getTime() + config.webhookTimeoutMs + IN_FLIGHT_MARGIN_MS);
  if (!(await repos.webhookDeliveries.startAttempt(t, d.attempts, now, deadline))) return { next: 'done', status: 'stale' };
  const attempt = d.attempts + 1;

  const body = renderEvent(event);
  const result = await deps.send(endpoint!.url, body, {
    'content-type': 'application/json',
    'coupons-event-id': event.id,
    'coupons-event-type': event.type,
    'coupons-delivery-id': d.id,
    'coupons-delivery-attempt': String(attempt),
    'coupons-signature': signatureHeader(body, signingSecretsOf(endpoint!, now), Math.floor(now.getTime() / 1000)),
  });

  if (result.error === null) {
    await end(deps, t, d, 'succeeded', { statusCode: result.status });
    return { next: 'done', status: 'succeeded' };
  }
  if (result.status === 410) {
    const reason = 'receiver answered 410 Gone: endpoint disabled';
    await repos.webhookEndpoints.disableGone(d.applicationId, d.endpointId, deps.now());
    await repos.webhookDeliveries.cancelPendingOfEndpoint(d.endpointId, 'endpoint disabled (gone)', d.id);
    await end(deps, t, d, 'dead', { statusCode: 410, error: reason });
    return { next: 'dead', reason };
  }
  if (attempt >= config.webhookMaxAttempts) {
    const reason = `gave up after ${attempt} attempts: ${result.error}`;
    await end(deps, t, d, 'dead', { statusCode: result.status, error: result.error });
    return { next: 'dead', reason };
  }
  const policy = { baseMs: config.webhookRetryBaseMs, maxMs: config.webhookRetryMaxMs, maxAttempts: config.webhookMaxAttempts };
  const at = new Date(deps.now().getTime() + retryDelayMs(attempt, policy, deps.random));
  await repos.webhookDeliveries.scheduleAt(t, at, { statusCode: result.status, error: result.error });
  return { next: 'retry', at, error: result.error };
}
