/**
 * Writes the events of a finished operation to the outbox, in the job that applied it, and
 * queues their dispatch (docs/events.md). Called by the partition processor after the use case
 * returned, so a worker killed anywhere before this completes leaves the job to be re-run (the
 * stall check), and the re-run records the same events under the same ids — nothing twice.
 * A job whose events were written but whose dispatch was never queued is found by the sweep.
 */
import { eventIdOf, type EventData, type EventRecord } from '../../domain/events.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';
import { changesOf, type FinishedOperation } from './change-facts.js';

export type { FinishedOperation } from './change-facts.js';

export type EventRecorderDeps = Pick<Services, 'repos' | 'applications' | 'now'> & {
  webhooks: Pick<WebhookQueue, 'dispatch'>;
  /** How long "this application has endpoints" is trusted (`CACHE_CHECK_MS`). */
  checkMs: number;
};

const MAX_CACHED = 50_000;

/**
 * Holds two in-process caches so an application without endpoints pays nothing and one with
 * endpoints pays the outbox writes only: whether an application has endpoints (re-read every
 * `checkMs`), and customers' `source_id`s (never change).
 */
export class EventRecorder {
  private readonly endpointsKnown = new Map<string, { has: boolean; at: number }>();
  private readonly sourceIds = new Map<string, string>();

  constructor(private readonly deps: EventRecorderDeps) {}

  /** Records the events of `op`; returns their ids (empty when nothing is to be reported). */
  async record(op: FinishedOperation): Promise<string[]> {
    const { applicationId, customerId, requestId, sourceId: given } = op.input;
    // Events are kept for delivery: an application with no endpoint at all records none.
    if (!(await this.hasEndpoints(applicationId))) return [];
    const facts = await changesOf(this.deps, op);
    if (facts.length === 0) return [];
    const [sourceId, first] = await Promise.all([
      given ?? this.sourceIdOf(applicationId, customerId),
      this.deps.repos.eventSequences.reserve(applicationId, customerId, facts.length),
    ]);
    const createdAt = this.deps.now();
    const events: EventRecord[] = facts.map((f, i) => ({
      id: eventIdOf(applicationId, f.type, f.changeKey),
      applicationId,
      customerId,
      type: f.type,
      sequence: first + i,
      requestId,
      createdAt,
      data: { source_id: sourceId, customer_id: customerId, ...f.data } as EventData,
    }));
    await this.deps.repos.events.record(events);
    const ids = events.map((e) => e.id);
    await this.deps.webhooks.dispatch(ids);
    return ids;
  }

  private async hasEndpoints(applicationId: string): Promise<boolean> {
    const hit = this.endpointsKnown.get(applicationId);
    const now = Date.now();
    if (hit && now - hit.at < this.deps.checkMs) return hit.has;
    const has = await this.deps.repos.webhookEndpoints.hasAny(applicationId);
    remember(this.endpointsKnown, applicationId, { has, at: now });
    return has;
  }

  /** For jobs queued before they carried the source id: read once per customer, then cached. */
  private async sourceIdOf(applicationId: string, customerId: string): Promise<string> {
    const key = `${applicationId}:${customerId}`;
    const hit = this.sourceIds.get(key);
    if (hit !== undefined) return hit;
    const [customer] = await this.deps.repos.customers.findByIds(applicationId, [customerId]);
    const sourceId = customer?.sourceId ?? '';
    remember(this.sourceIds, key, sourceId);
    return sourceId;
  }
}

/** Bounded map: the oldest entry goes when it is full. */
function remember<V>(map: Map<string, V>, key: string, value: V) {
  if (!map.has(key) && map.size >= MAX_CACHED) map.delete(map.keys().next().value!);
  map.set(key, value);
}
