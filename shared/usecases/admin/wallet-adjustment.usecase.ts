/**
 * An operator's manual adjustment of a customer's points (docs/admin-api.md#adjusting-points): a
 * credit or a debit with a reason. It is queued on the customer's partition and applied by the
 * worker like every wallet operation — serialised with the customer's other operations, once per
 * operation key, a debit above the balance refused — and recorded in the ledger with origin
 * `admin` and the reason as its description (its event too).
 */
import Joi from 'joi';
import { hasAtMostTwoDecimals } from '../../domain/points.js';
import type { JobAnswer, PreparedOperation } from '../../queue/gateway.js';
import type { WalletOperationInput } from '../../queue/job-payloads.js';
import { JOB } from '../../queue/names.js';
import type { Services } from '../../services.js';
import { adminConflict, adminInvalid } from '../../admin-errors.js';
import { foundOr404, validateInput } from './admin-input.js';
import { walletOperationInput } from '../wallet-operation.usecase.js';
import { requireCustomer } from './customers.usecase.js';
import { operationIdOf, type Operation } from '../idempotency.js';
import type { ChangeState } from './audit.usecase.js';

const MAX_POINTS = 1e9;

const adjustmentSchema = Joi.object({
  type: Joi.string().valid('credit', 'debit').required(),
  points: Joi.number().greater(0).max(MAX_POINTS).required(),
  reason: Joi.string().trim().min(1).max(500).required(),
});

/** Checks an adjustment and makes the wallet job that applies it (`txnId`: its ledger id, from the operation key). */
export async function prepareAdjustment(
  deps: Pick<Services, 'repos'>,
  req: { applicationId: string; customer: string; walletId: string; body: unknown; txnId: string; requestId: string },
): Promise<WalletOperationInput> {
  const v = validateInput(adjustmentSchema, req.body) as { type: 'credit' | 'debit'; points: number; reason: string };
  if (!hasAtMostTwoDecimals(v.points)) {
    const details = '"points" must have at most 2 decimals';
    throw adminInvalid(details, { points: details });
  }
  const customer = await requireCustomer(deps, req.applicationId, req.customer);
  if (customer.archivedAt) throw adminConflict('the customer is archived: unarchive it to adjust its points', 'customer');
  const wallet = await foundOr404(deps.repos.wallets.findByWalletId(req.applicationId, req.walletId), 'wallet');
  return walletOperationInput(req, customer, wallet, { type: v.type, points: v.points, description: v.reason, origin: 'admin' });
}

/** An adjustment's request: the customer already found (by the service's id), the wallet and body as sent. */
export interface AdjustmentRequest {
  applicationId: string;
  customerId: string;
  walletId: string;
  body: unknown;
  requestId: string;
}

/** The operation of an adjustment: its wallet job, whose ledger id derives from the operation key. */
export async function prepareAdjustmentJob(
  deps: Pick<Services, 'repos'>,
  req: AdjustmentRequest,
  op: Operation,
): Promise<PreparedOperation> {
  const txnId = operationIdOf(req.applicationId, op.operationKey);
  const payload = await prepareAdjustment(deps, { ...req, customer: req.customerId, txnId });
  return { job: { name: JOB.walletTransaction, customerId: payload.customerId, payload } };
}

/** What an adjustment's audit entry records: what was asked, and the ledger id it gets (which settles an entry left pending). */
export const adjustmentRecord = (req: AdjustmentRequest, op: Operation) => ({
  ...(req.body as object),
  wallet_id: req.walletId,
  txn_id: operationIdOf(req.applicationId, op.operationKey),
});

/** How an adjustment came out, for its audit entry: a refusal, or an answer of "not applied", leaves none. */
export const adjustmentState = (answer: JobAnswer): ChangeState =>
  answer.answered ? (answer.outcome.ok ? 'made' : 'refused') : answer.standing === 'not_applied' ? 'refused' : 'may_apply';
