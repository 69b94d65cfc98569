/**
 * The safety net of the outbox, run periodically by every delivery worker (concurrent sweeps
 * are harmless): pending deliveries whose job is gone (a recording job failed for good between
 * writing them and queueing their job, the job was lost from Redis, or it failed on
 * infrastructure errors), and the retention of old events and finished deliveries.
 */
import { eventOfBody, type EventRecord } from '../../domain/events.js';
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';

export type SweepDeps = Pick<Services, 'repos' | 'config' | 'now'> & {
  webhooks: Pick<WebhookQueue, 'deliver' | 'isQueued'>;
};

const BATCH = 500;
const DAY_MS = 86_400_000;

/** What a sweep did. */
export interface SweepResult {
  requeued: number;
  deleted: number;
}

export async function sweepWebhooks(deps: SweepDeps): Promise<SweepResult> {
  const { repos, config } = deps;
  const now = deps.now();
  const overdue = new Date(now.getTime() - config.webhookOverdueMs);

  const requeue = [];
  for (const t of await repos.webhookDeliveries.listOverdue(overdue, BATCH)) {
    // Late but still queued (a backlog, a run waiting behind a retry): leave it, its job will run.
    if (await deps.webhooks.isQueued(t)) continue;
    const taken = await repos.webhookDeliveries.takeOver(t, now);
    if (taken) requeue.push(taken);
  }
  if (requeue.length > 0) {
    // A recording job that failed for good between writing the deliveries and the events left the
    // outbox without them: put them back from the bytes the deliveries send (a no-op if there).
    const events = new Map<string, EventRecord>();
    for (const body of (await repos.webhookDeliveries.bodiesOf(requeue.map((t) => t.deliveryId))).values()) {
      const event = eventOfBody(body);
      events.set(event.id, event);
    }
    await repos.events.record([...events.values()]);
  }
  await deps.webhooks.deliver(requeue);

  const expired = new Date(now.getTime() - config.webhookRetentionDays * DAY_MS);
  const deleted = (await repos.events.deleteBefore(expired)) + (await repos.webhookDeliveries.deleteFinishedBefore(expired));
  return { requeued: requeue.length, deleted };
}
