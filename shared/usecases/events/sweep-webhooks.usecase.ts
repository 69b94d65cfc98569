/**
 * The safety net of the outbox, run periodically by every delivery worker (concurrent sweeps
 * are harmless): events written but never dispatched (their job died between the write and the
 * queueing, or the dispatch job failed), pending deliveries whose job is gone (lost from Redis,
 * or failed on infrastructure errors), and the retention of old events and finished deliveries.
 */
import type { WebhookQueue } from '../../queue/webhook-queue.js';
import type { Services } from '../../services.js';

export type SweepDeps = Pick<Services, 'repos' | 'config' | 'now'> & {
  webhooks: Pick<WebhookQueue, 'redispatch' | 'deliver' | 'isQueued'>;
};

const BATCH = 500;
const DAY_MS = 86_400_000;

export async function sweepWebhooks(deps: SweepDeps): Promise<{ redispatched: number; requeued: number; deleted: number }> {
  const { repos, config } = deps;
  const now = deps.now();
  const overdue = new Date(now.getTime() - config.webhookOverdueMs);

  const redispatched = await deps.webhooks.redispatch(await repos.events.listUndispatched(overdue, BATCH));

  const requeue = [];
  for (const t of await repos.webhookDeliveries.listOverdue(overdue, BATCH)) {
    // Late but still queued (a backlog): leave it, its job will run.
    if (await deps.webhooks.isQueued(t)) continue;
    const taken = await repos.webhookDeliveries.takeOver(t, now);
    if (taken) requeue.push(taken);
  }
  await deps.webhooks.deliver(requeue);

  const expired = new Date(now.getTime() - config.webhookRetentionDays * DAY_MS);
  const deleted = (await repos.events.deleteDispatchedBefore(expired)) + (await repos.webhookDeliveries.deleteFinishedBefore(expired));
  return { redispatched, requeued: requeue.length, deleted };
}
