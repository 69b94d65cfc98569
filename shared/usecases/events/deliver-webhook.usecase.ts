/**
 * One activation of a delivery job: decide whether its run of deliveries may be attempted now,
 * send them one after the other, and say what the job does next (docs/events.md).
 *
 * A run is deliveries of one stream — (endpoint, customer) — in sequence order: those one
 * operation made for one endpoint (carried whole in the job, with the bytes to send), or a single
 * delivery (read from the database). Ordering: a run goes only when no earlier delivery of its
 * stream is pending; otherwise its job sleeps until the blocker's next attempt, and is woken as
 * soon as a job of the stream finishes. The same indexed read tells which deliveries of the run
 * are still pending and how many attempts each made; one guarded bulk write records the outcome
 * of every attempt. The endpoint (URL, secrets, status) comes from the in-process cache.
 */
import { subscribes } from '../../domain/events.js';
import { decideAfterAttempt } from '../../domain/webhook-retry.js';
import { DELIVERY_HEADERS, signatureHeaders } from '../../domain/webhook-signature.js';
import type {
  DeliveryChange,
  DeliveryJobData,
  DeliveryRun,
  DeliveryTicket,
  PendingDelivery,
  RunItem,
} from '../../data/webhook-delivery.repository.js';
import { signingSecretsOf, type WebhookEndpointRecord } from '../../data/webhook-endpoint.repository.js';
import type { DeliveryStatus } from '../../data/webhook-delivery.schema.js';
import type { WebhookSender } from '../../net/webhook-client.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';

export type DeliverDeps = Pick<Services, 'repos' | 'config' | 'now' | 'webhookEndpoints'> &
  OrderingDeps & {
    webhooks: Pick<WebhookQueue, 'deliverRuns' | 'wakeStream' | 'awaitStream'>;
    send: WebhookSender;
    /** Jitter source, [0, 1). Default Math.random. */
    random?: () => number;
  };

/** What happened to one delivery in an activation (or, for `wait`, to the whole run). */
export type DeliveryStep =
  | { next: 'done'; status: Exclude<DeliveryStatus, 'pending'> | 'stale' }
  /** The attempt failed and another is due at `at`. */
  | { next: 'retry'; at: Date; error: string }
  /** An earlier delivery of the stream comes first; re-check at `at` (or when woken). */
  | { next: 'wait'; at: Date }
  /** Dead-lettered: the last attempt failed, or the receiver answered 410. */
  | { next: 'dead'; reason: string };

/**
 * A waiting run is woken when a job of its stream finishes; these only bound the wait if a wake
 * is lost: it re-checks this long after the blocker's next attempt, or — when the blocker is
 * already due (queued behind others, or in flight) — after {@link DUE_RECHECK_MS}.
 */
const RECHECK_AFTER_MS = 1000;
const DUE_RECHECK_MS = 30_000;

/**
 * The run a job carries, or the single delivery its ticket names (read, with its bytes). A step
 * instead when there is nothing to
 * send: the delivery is finished or owned by another job (`stale`), or its event is gone.
 */
export async function runOfJob(deps: DeliverDeps, data: DeliveryJobData): Promise<DeliveryRun | DeliveryStep> {
  if (data.run) return data.run;
  const d = await deps.repos.webhookDeliveries.get(data.deliveryId);
  if (!d || d.generation !== data.generation || d.status !== 'pending') {
    // A re-run of a job whose worker died after finishing the delivery but before waking the stream.
    if (d) await deps.webhooks.wakeStream(d.endpointId, d.customerId);
    return { next: 'done', status: 'stale' };
  }
  const item: RunItem = { ...data, eventId: d.eventId, eventType: d.eventType, sequence: d.sequence, body: d.body };
  return { applicationId: d.applicationId, endpointId: d.endpointId, customerId: d.customerId, items: [item] };
}

export type OrderingDeps = Pick<Services, 'repos' | 'config'>;

/** The stream's pending deliveries up to the run's last one: the first tells whether an earlier one blocks. */
const pendingOf = (deps: Pick<Services, 'repos'>, run: DeliveryRun, limit = run.items.length) =>
  deps.repos.webhookDeliveries.pendingOfStream(run.endpointId, run.customerId, run.items.at(-1)!.sequence, limit);

/**
 * When a run held back should look again, or null when it may go: an earlier delivery of its
 * stream is pending (`head`, the stream's lowest, comes before the run).
 */
async function holdUntil(deps: OrderingDeps, run: DeliveryRun, head: PendingDelivery | undefined, now: Date): Promise<Date | null> {
  const latest = now.getTime() + deps.config.webhookOverdueMs;
  const first = run.items[0]!.sequence;
  if (head && head.sequence < first) {
    const recheck =
      head.nextAttemptAt && head.nextAttemptAt > now ? head.nextAttemptAt.getTime() + RECHECK_AFTER_MS : now.getTime() + DUE_RECHECK_MS;
    return new Date(Math.min(recheck, latest));
  }
  return null;
}

/** True while the run must wait for its turn. */
export async function isBlocked(deps: OrderingDeps & Pick<Services, 'now'>, run: DeliveryRun): Promise<boolean> {
  const [head] = await pendingOf(deps, run, 1);
  return (await holdUntil(deps, run, head, deps.now())) !== null;
}

const ticketOf = (t: DeliveryTicket): DeliveryTicket => ({ deliveryId: t.deliveryId, generation: t.generation });
const cancelled = (reason: string): DeliveryChange['set'] => ({ status: 'cancelled', nextAttemptAt: null, lastError: reason });

/** Why an endpoint cannot receive an event of `type` now; null when it can. */
function refusalOf(endpoint: WebhookEndpointRecord | undefined, type: string): string | null {
  if (!endpoint) return 'endpoint deleted';
  if (endpoint.status !== 'active') return `endpoint disabled (${endpoint.disabledReason ?? 'admin'})`;
  return subscribes(endpoint.eventTypes, type) ? null : `endpoint no longer subscribes to ${type}`;
}

/**
 * The run's endpoint from the cache and what it refuses. The cache is trusted to send (a change
 * reaches this process within `CACHE_CHECK_MS`), not to cancel: a refusal is read again first.
 */
async function endpointFor(deps: DeliverDeps, run: DeliveryRun) {
  const lookup = async () => (await deps.webhookEndpoints.get(run.applicationId)).find((e) => e.id === run.endpointId);
  let endpoint = await lookup();
  if (run.items.some((i) => refusalOf(endpoint, i.eventType))) {
    deps.webhookEndpoints.forget(run.applicationId);
    endpoint = await lookup();
  }
  return { endpoint, refusals: run.items.map((i) => refusalOf(endpoint, i.eventType)) };
}

/** Runs one activation of a delivery job. Safe to run twice at once: a stale or duplicated job changes nothing twice. */
export async function deliverRun(deps: DeliverDeps, run: DeliveryRun): Promise<DeliveryStep[]> {
  const { repos, config } = deps;
  const wake = () => deps.webhooks.wakeStream(run.endpointId, run.customerId);
  const { endpoint, refusals } = await endpointFor(deps, run);
  const steps: DeliveryStep[] = [];
  const changes: DeliveryChange[] = [];

  if (refusals.some((r) => r)) {
    // Cancelled before anything is sent: the endpoint is gone, disabled, or dropped some types.
    run.items.forEach((item, i) => refusals[i] && changes.push({ ...ticketOf(item), set: cancelled(refusals[i]) }));
    await repos.webhookDeliveries.settle(changes);
    const rest = run.items.filter((_, i) => !refusals[i]);
    if (rest.length === 0) {
      await wake();
      return run.items.map(() => ({ next: 'done', status: 'cancelled' }));
    }
    return [
      ...changes.map((): DeliveryStep => ({ next: 'done', status: 'cancelled' })),
      ...(await deliverRun(deps, { ...run, items: rest })),
    ];
  }

  const pending = await pendingOf(deps, run);
  const wait = await holdUntil(deps, run, pending[0], deps.now());
  if (wait) {
    // Recorded so that the sweep does not take a run waiting its turn for a lost one.
    await repos.webhookDeliveries.settle(run.items.map((item) => ({ ...ticketOf(item), set: { nextAttemptAt: wait } })));
    return [{ next: 'wait', at: wait }];
  }
  // Of the run, those still pending and owned by this job (the others finished — in an earlier
  // activation, before a retry — or were taken over by another job).
  const state = new Map(pending.map((p) => [p.id, p]));
  const live = run.items.filter((i) => state.get(i.deliveryId)?.generation === i.generation);
  if (live.length === 0) {
    // A re-run of a job whose worker died after finishing its run but before waking the stream.
    await wake();
    return [{ next: 'done', status: 'stale' }];
  }

  for (let k = 0; k < live.length; k++) {
    const item = live[k]!;
    const attempts = state.get(item.deliveryId)!.attempts;
    const attempt = attempts + 1;
    const at = deps.now();
    const result = await deps.send(endpoint!.url, item.body, {
      'content-type': 'application/json',
      [DELIVERY_HEADERS.eventId]: item.eventId,
      [DELIVERY_HEADERS.eventType]: item.eventType,
      [DELIVERY_HEADERS.deliveryId]: item.deliveryId,
      [DELIVERY_HEADERS.attempt]: String(attempt),
      ...signatureHeaders(item.body, item.eventId, signingSecretsOf(endpoint!, at), Math.floor(at.getTime() / 1000)),
    });
    const attempted = { ...ticketOf(item), attempts };
    const tried = { attempts: attempt, lastAttemptAt: at, lastStatusCode: result.status };
    const policy = { baseMs: config.webhookRetryBaseMs, maxMs: config.webhookRetryMaxMs, maxAttempts: config.webhookMaxAttempts };
    const decision = decideAfterAttempt(result, attempt, policy, deps.random);
    switch (decision.action) {
      case 'succeeded':
        changes.push({
          ...attempted,
          set: { ...tried, status: 'succeeded', nextAttemptAt: null, lastError: null, deliveredAt: deps.now() },
        });
        steps.push({ next: 'done', status: 'succeeded' });
        continue;
      case 'gone':
        changes.push({ ...attempted, set: { ...tried, status: 'dead', nextAttemptAt: null, lastError: decision.reason } });
        await repos.webhookDeliveries.settle(changes);
        await repos.webhookEndpoints.disableGone(run.applicationId, run.endpointId, deps.now());
        deps.webhookEndpoints.forget(run.applicationId);
        await repos.webhookDeliveries.cancelPendingOfEndpoint(run.endpointId, 'endpoint disabled (gone)');
        await wake();
        for (let j = k + 1; j < live.length; j++) steps.push({ next: 'done', status: 'cancelled' });
        return [...steps, { next: 'dead', reason: decision.reason }];
      case 'give-up': {
        changes.push({ ...attempted, set: { ...tried, status: 'dead', nextAttemptAt: null, lastError: result.error } });
        await repos.webhookDeliveries.settle(changes);
        // The stream goes on: what is left of the run continues in a job of its own (this one fails, a dead letter).
        const rest = live.slice(k + 1);
        if (rest.length > 0) await deps.webhooks.deliverRuns([{ ...run, items: rest }]);
        await wake();
        return [...steps, { next: 'dead', reason: decision.reason }];
      }
      case 'retry': {
        const retryAt = new Date(deps.now().getTime() + decision.delayMs);
        changes.push({ ...attempted, set: { ...tried, nextAttemptAt: retryAt, lastError: decision.error } });
        // What is left of the run goes after it (the sweep must not take them for lost meanwhile).
        for (const later of live.slice(k + 1)) changes.push({ ...ticketOf(later), set: { nextAttemptAt: retryAt } });
        await repos.webhookDeliveries.settle(changes);
        return [...steps, { next: 'retry', at: retryAt, error: decision.error }];
      }
    }
  }
  await repos.webhookDeliveries.settle(changes);
  await wake();
  return steps;
}
