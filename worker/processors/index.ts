/**
 * Job name → use case. Processors are thin: they call the same use cases the API validated
 * for, turn domain refusals into outcomes, and retry transient errors in place.
 */
import type { Job } from 'bullmq';
import { JOB, laneOf, type JobPayloads } from '../../shared/queue/names.js';
import { toOutcome, type Outcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { redeemCoupon, revertCoupon, type JobRun } from '../../shared/usecases/apply-coupon.usecase.js';
import { applyWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { retryTransient } from '../../shared/data/transient.js';

/** The job's id and its lane in the limit counters: its partition (at most one live job each). */
const runOf = (job: Job): JobRun => ({ jobId: job.id!, lane: laneOf(job.queueName) });

export function createProcessor(services: Services) {
  const budget = services.config.jobRetryBudgetMs;
  return async (job: Job): Promise<Outcome<unknown>> => {
    switch (job.name) {
      case JOB.redeem:
        return retryTransient(() => toOutcome(() => redeemCoupon(services, job.data as JobPayloads['redeem'], runOf(job))), budget);
      case JOB.revert:
        return retryTransient(() => toOutcome(() => revertCoupon(services, job.data as JobPayloads['revert'], runOf(job))), budget);
      case JOB.walletTransaction:
        return retryTransient(() => toOutcome(() => applyWalletOperation(services, job.data as JobPayloads['wallet-transaction'])), budget);
      case JOB.noop:
        return { ok: true, value: null };
      default:
        // An unknown name is a deployment mismatch, not a client error: fail the job visibly.
        throw new Error(`unknown job name ${job.name}`);
    }
  };
}
