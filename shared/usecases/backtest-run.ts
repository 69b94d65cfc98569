/**
 * Runs a backtest (docs/results.md "Backtests"), in a worker's backtest pool: its period's recorded
 * carts streamed in the record's order through the replay (shared/domain/backtest.ts), its progress
 * written every {@link PROGRESS_EVERY_MS}, its figures at the end. The live counters and journals
 * are never read nor written; the event loop is given back every {@link YIELD_EVERY} carts, so the
 * process's other work (its partition jobs) goes on. Run again from the start when its worker died.
 */
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { BacktestReplay } from '../domain/backtest.js';
import type { Campaign } from '../domain/types.js';
import type { Services } from '../services.js';
import { customerTiers } from './customer-tiers.js';
import type { StoredResult } from './admin/backtests.usecase.js';

const PROGRESS_EVERY_MS = 500;
const YIELD_EVERY = 1000;

type Deps = Pick<Services, 'repos' | 'wallets' | 'now'>;

export async function runBacktest(deps: Deps, id: string): Promise<void> {
  const b = await deps.repos.backtests.byId(id);
  if (!b || b.status === 'done' || b.status === 'failed') return;
  const app = await deps.repos.applications.findById(b.applicationId);
  const live = b.campaignId ? await deps.repos.campaigns.findById(b.applicationId, b.campaignId) : null;
  if (!app || (b.campaignId && !live)) {
    await deps.repos.backtests.failed(id, app ? 'the campaign was deleted' : 'the application was deleted', deps.now());
    return;
  }
  const campaign = b.definition as unknown as Campaign;
  const range = {
    applicationId: b.applicationId,
    start: b.start,
    end: b.end,
    ...(b.carts === 'presented' && b.campaignId ? { campaignIds: [b.campaignId] } : {}),
  };
  await deps.repos.backtests.started(id, await deps.repos.recordedCarts.count(range), deps.now());
  const replay = new BacktestReplay(campaign, app.timezone, b.kind === 'draft' ? null : live);
  // A campaign for some tiers reads each customer's levels once (as they are now: the record keeps none).
  const tiers = new Map<string, ReadonlyMap<string, string> | undefined>();
  const tiersOf = async (customerId: string | null) => {
    if (!campaign.tierRequirement || !customerId) return undefined;
    if (!tiers.has(customerId)) tiers.set(customerId, await customerTiers(deps, app.id, customerId, [campaign]));
    return tiers.get(customerId);
  };
  let done = 0;
  let written = Date.now();
  for await (const cart of deps.repos.recordedCarts.inOrder(range)) {
    replay.step(cart, await tiersOf(cart.customerId));
    done++;
    if (done % YIELD_EVERY === 0) {
      await yieldLoop();
      if (Date.now() - written >= PROGRESS_EVERY_MS) {
        await deps.repos.backtests.progressed(id, done);
        written = Date.now();
      }
    }
  }
  const figures = replay.figures();
  const customerIds = [...new Set(figures.changed.carts.flatMap((c) => (c.customerId ? [c.customerId] : [])))];
  const customers = customerIds.length ? await deps.repos.customers.findByIds(app.id, customerIds) : [];
  const result: StoredResult = { ...figures, sourceIds: Object.fromEntries(customers.map((c) => [c.id, c.sourceId])) };
  await deps.repos.backtests.finished(id, result as unknown as Record<string, unknown>, done, deps.now());
}
