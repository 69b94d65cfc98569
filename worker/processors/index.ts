/**
 * Job name → use case. Processors are thin: they call the same use cases the API validated
 * for, turn domain refusals into outcomes, and retry transient errors in place.
 */
import type { Job } from 'bullmq';
import { JOB, type JobPayloads } from '../../shared/queue/names.js';
import { toOutcome, type Outcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { redeemCoupon, revertCoupon } from '../../shared/usecases/apply-coupon.usecase.js';
import { applyWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { retryTransient } from './retry-transient.js';

export function createProcessor(services: Services) {
  return async (job: Job): Promise<Outcome<unknown>> => {
    switch (job.name) {
      case JOB.redeem:
        return retryTransient(() => toOutcome(() => redeemCoupon(services, { ...(job.data as JobPayloads['redeem']), jobId: job.id! })));
      case JOB.revert:
        return retryTransient(() => toOutcome(() => revertCoupon(services, { ...(job.data as JobPayloads['revert']), jobId: job.id! })));
      case JOB.walletTransaction:
        return retryTransient(() => toOutcome(() => applyWalletOperation(services, job.data as JobPayloads['wallet-transaction'])));
      case JOB.noop:
        return { ok: true, value: null };
      default:
        // An unknown name is a deployment mismatch, not a client error: fail the job visibly.
        throw new Error(`unknown job name ${job.name}`);
    }
  };
}
