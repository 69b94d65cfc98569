/**
 * Time's changes to wallet balances (docs/wallets.md): the sweep finds the balances with points
 * due to become available or to expire, by the (nextDue, _id) index — a range that holds what is
 * due, not every balance — and queues one settle job per balance and due instant on the
 * customer's partition, so it runs in line with the customer's operations. The job posts every
 * transition due (shared/usecases/wallet-ledger.ts `settleBalance`). Job ids derive from the
 * balance and the instant: sweeps of several workers at once, or again before the job ran, queue
 * it once; a re-run (a worker killed mid-job) finds the transitions posted and posts nothing twice.
 * Operations on a balance settle what is due first anyway, so a late sweep delays only the events
 * and the balance a read shows, never what an operation may spend.
 */
import { createHash } from 'node:crypto';
import type { WalletSettleInput } from '../queue/job-payloads.js';
import type { Services } from '../services.js';
import { settleBalance } from './wallet-ledger.js';
import { tierContextOf } from './wallet-operation.usecase.js';
import type { WalletRecord } from '../data/wallet.repository.js';

/** The trigger a settle job's transitions carry (their events read them back by it). */
export const settleTrigger = (input: Pick<WalletSettleInput, 'walletDbId' | 'due'>) => `settle:${input.walletDbId}:${input.due}`;

/** The settle job's id: one per balance and due instant. */
export const settleJobIdOf = (balanceId: string, due: string) =>
  `settle-${createHash('sha256').update(`${balanceId}\n${due}`).digest('hex').slice(0, 32)}`;

/**
 * Posts the transitions due on the balance by the later of now and the instant the sweep saw
 * due (a worker whose clock is a little behind the sweeper's still settles what it was sent for).
 */
export async function settleWallet(deps: Pick<Services, 'repos' | 'now'>, input: WalletSettleInput): Promise<{ settled: number }> {
  const due = new Date(input.due);
  const now = () => {
    const t = deps.now();
    return t.getTime() >= due.getTime() ? t : due;
  };
  const settled = await settleBalance(
    { repos: deps.repos, now },
    {
      applicationId: input.applicationId,
      customerId: input.customerId,
      walletDbId: input.walletDbId,
      trigger: settleTrigger(input),
      tiers: input.tiers ?? null,
    },
  );
  return { settled };
}

/** The wallet's tiers for a settle job (a wallet deleted since has none). */
const tiersOf = (wallet: WalletRecord | undefined) => {
  const tiers = wallet && !wallet.archivedAt ? tierContextOf(wallet) : null;
  return tiers ? { tiers } : {};
};

/** A settle job to queue on the partition of `customerKey`. */
export interface SettleJob {
  applicationId: string;
  customerId: string;
  jobId: string;
  payload: WalletSettleInput;
}

/**
 * A step of the sweep: the next `limit` balances due by now after `after` (from the soonest without
 * it), as settle jobs, and the cursor of the last. Reads one range of the (nextDue, _id) index,
 * then the customers' and wallets' ids by `_id`.
 */
export async function dueSettleJobs(
  deps: Pick<Services, 'repos' | 'now'>,
  limit: number,
  after?: { due: Date; id: string },
): Promise<{ jobs: SettleJob[]; last: { due: Date; id: string } | null }> {
  const due = await deps.repos.walletBalances.listDue(deps.now(), limit, after);
  if (due.length === 0) return { jobs: [], last: null };
  const byApp = new Map<string, typeof due>();
  for (const b of due) byApp.set(b.applicationId, [...(byApp.get(b.applicationId) ?? []), b]);
  const jobs: SettleJob[] = [];
  for (const [applicationId, balances] of byApp) {
    const [customers, wallets] = await Promise.all([
      deps.repos.customers.findByIds(applicationId, [...new Set(balances.map((b) => b.customerId))]),
      deps.repos.wallets.findByIds(applicationId, [...new Set(balances.map((b) => b.walletDbId))]),
    ]);
    const sourceOf = new Map(customers.map((c) => [c.id, c.sourceId]));
    const walletOf = new Map(wallets.map((w) => [w.id, w]));
    for (const b of balances) {
      const at = b.due.toISOString();
      const jobId = settleJobIdOf(b.id, at);
      jobs.push({
        applicationId,
        customerId: b.customerId,
        jobId,
        payload: {
          applicationId,
          customerId: b.customerId,
          // A customer or wallet deleted since cannot have a balance with buckets (deletes need an empty ledger).
          sourceId: sourceOf.get(b.customerId) ?? b.customerId,
          walletDbId: b.walletDbId,
          walletId: walletOf.get(b.walletDbId)?.walletId ?? b.walletDbId,
          due: at,
          requestId: jobId,
          ...tiersOf(walletOf.get(b.walletDbId)),
        },
      });
    }
  }
  const tail = due.at(-1)!;
  return { jobs, last: { due: tail.due, id: tail.id } };
}
