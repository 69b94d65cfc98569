/**
 * Job name → use case. Processors are thin: they call the same use cases the API validated
 * for, turn domain refusals into outcomes, and retry transient errors in place. After a redeem,
 * revert or wallet operation they record its events in the same job (docs/events.md), from what
 * the use case told it committed: a job is only finished once its events and their deliveries are
 * written and queued, and a re-run records nothing twice.
 */
import type { Job } from 'bullmq';
import { JOB, laneOfJob, type JobPayloads } from '../../shared/queue/names.js';
import { toOutcome, type Outcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { redeemCoupon } from '../../shared/usecases/apply/redeem-coupon.usecase.js';
import { revertCoupon } from '../../shared/usecases/apply/revert-coupon.usecase.js';
import { earnOnRedeem, takeBackOnRevert } from '../../shared/usecases/apply/earn-on-redeem.js';
import type { Committed, JobRun } from '../../shared/usecases/job-run.js';
import type { EventRecorder, FinishedOperation } from '../../shared/usecases/events/record-events.usecase.js';
import { applyWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { settleWallet } from '../../shared/usecases/settle-wallet.usecase.js';
import { applyOrderReport } from '../../shared/usecases/order-report.usecase.js';
import { retryTransient } from '../../shared/data/transient.js';
import { tallyRedeem } from '../../shared/usecases/tally-redeem.js';
import { recordRedeem, recordRevert } from '../../shared/usecases/record-cart.js';
import {
  redeemGiftCard,
  redeemStackWithCard,
  revertGiftCard,
  revertStackWithCard,
} from '../../shared/usecases/gift-card-checkout.usecase.js';

/**
 * The job's id, its lane in the limit counters (its partition: at most one live job each), and
 * where the use case tells what it commits (`observed`, handed to the event recorder).
 */
const runOf = (job: Job, observed: Committed[]): JobRun => ({ jobId: job.id!, lane: laneOfJob(job), observe: (c) => observed.push(c) });

/** @param events - records the events of each operation; without it (benchmark baselines) none are. */
export function createProcessor(services: Services, events?: Pick<EventRecorder, 'record'>) {
  const budget = services.config.jobRetryBudgetMs;
  const recorded = async (op: FinishedOperation): Promise<Outcome<unknown>> => {
    if (events) await retryTransient(() => events.record(op), budget);
    return op.outcome;
  };
  /** A use case's outcome, retrying transient errors in place. */
  const run = <T>(useCase: () => Promise<T>) => retryTransient(() => toOutcome(useCase), budget);
  // A redeem of a completed order earns, a revert takes back, for an application that opted in
  // (shared/usecases/apply/earn-on-redeem.ts): after the use case, on every run of the job.
  const earning = async <T>(redeemed: Promise<T>, input: Parameters<typeof earnOnRedeem>[1], job: Job, observed: Committed[]) => {
    const result = await redeemed;
    await earnOnRedeem(services, input, runOf(job, observed));
    return result;
  };
  const takingBack = async <T>(reverted: Promise<T>, input: Parameters<typeof takeBackOnRevert>[1], job: Job, observed: Committed[]) => {
    const result = await reverted;
    await takeBackOnRevert(services, input, runOf(job, observed));
    return result;
  };
  return async (job: Job): Promise<Outcome<unknown>> => {
    const { queueName } = job;
    const jobId = job.id!;
    // What the use case committed, across its in-place retries.
    const observed: Committed[] = [];
    // Before anything is taken: a redeemed cart's place in the record (shared/usecases/record-cart.ts).
    const startedAt = services.now();
    switch (job.name) {
      case JOB.redeem: {
        const input = job.data as JobPayloads['redeem'];
        const outcome = await run(() => earning(redeemCoupon(services, input, runOf(job, observed)), input, job, observed));
        await tallyRedeem(services, input.applicationId, input.campaignId, outcome, observed);
        await recordRedeem(services, { ...input, entries: [input] }, jobId, startedAt, outcome, observed);
        return recorded({ name: JOB.redeem, input, jobId, queueName, outcome, observed });
      }
      case JOB.revert: {
        const input = job.data as JobPayloads['revert'];
        const outcome = await run(() => takingBack(revertCoupon(services, input, runOf(job, observed)), input, job, observed));
        await recordRevert(services, input, outcome, observed);
        return recorded({ name: JOB.revert, input, jobId, queueName, outcome, observed });
      }
      case JOB.redeemStack: {
        const input = job.data as JobPayloads['redeem-stack'];
        const outcome = await run(() => earning(redeemStackWithCard(services, input, runOf(job, observed)), input, job, observed));
        await tallyRedeem(
          services,
          input.applicationId,
          input.entries.length === 1 ? input.entries[0]!.campaignId : null,
          outcome,
          observed,
        );
        await recordRedeem(services, input, jobId, startedAt, outcome, observed);
        return recorded({ name: JOB.redeemStack, input, jobId, queueName, outcome, observed });
      }
      case JOB.revertStack: {
        const input = job.data as JobPayloads['revert-stack'];
        const outcome = await run(() => takingBack(revertStackWithCard(services, input, runOf(job, observed)), input, job, observed));
        await recordRevert(services, input, outcome, observed);
        return recorded({ name: JOB.revertStack, input, jobId, queueName, outcome, observed });
      }
      case JOB.walletTransaction: {
        const input = job.data as JobPayloads['wallet-transaction'];
        const outcome = await run(() => applyWalletOperation(services, input, runOf(job, observed)));
        return recorded({ name: JOB.walletTransaction, input, jobId, queueName, outcome, observed });
      }
      case JOB.orderReport: {
        const input = job.data as JobPayloads['order-report'];
        const outcome = await run(() => applyOrderReport(services, input, runOf(job, observed)));
        return recorded({ name: JOB.orderReport, input, jobId, queueName, outcome, observed });
      }
      // A gift card alone at checkout (docs/gift-cards.md): it does not count as the order's report (no earning).
      case JOB.redeemGiftCard: {
        const input = job.data as JobPayloads['redeem-gift-card'];
        const outcome = await run(() => redeemGiftCard(services, input));
        return recorded({ name: JOB.redeemGiftCard, input, jobId, queueName, outcome, observed });
      }
      case JOB.revertGiftCard: {
        const input = job.data as JobPayloads['revert-gift-card'];
        const outcome = await run(() => revertGiftCard(services, input));
        return recorded({ name: JOB.revertGiftCard, input, jobId, queueName, outcome, observed });
      }
      case JOB.walletSettle: {
        const input = job.data as JobPayloads['wallet-settle'];
        const outcome = await run(() => settleWallet(services, input));
        return recorded({ name: JOB.walletSettle, input, jobId, queueName, outcome, observed });
      }
      case JOB.noop:
        return { ok: true, value: null };
      default:
        // An unknown name is a deployment mismatch, not a client error: fail the job visibly.
        throw new Error(`unknown job name ${job.name}`);
    }
  };
}
