/**
 * How a worker runs a job of an operation (redeem, revert, wallet update), and what the run tells
 * of what it commits — from which the worker records the operation's events (docs/events.md).
 */
import type { RedemptionRecord } from '../data/redemption-journal.repository.js';
import type { Posting } from './wallet-ledger.js';

/** How a worker runs a job: its id (a re-run finds its own work) and its lane (the partition). */
export interface JobRun {
  jobId: string;
  lane: string;
  /**
   * Told what this run commits, when it commits it (the worker records the change's events from
   * it without reading the journals back). A run that finds its work done and returns early
   * tells nothing: the journals say it.
   */
  observe?: (committed: Committed) => void;
}

/** What a run committed (see {@link JobRun.observe}). */
export type Committed =
  /** A cycle this run committed `completed` (redeem) or `reverted` (revert). */
  | { kind: 'cycle'; state: 'completed' | 'reverted'; cycle: CommittedCycle }
  /** What this run posted to the ledger under `txnId`; null: nothing (no wallet, never credited, voided). */
  | { kind: 'ledger'; txnId: string; posted: Posting | null };
export type CommittedCycle = Pick<
  RedemptionRecord,
  | 'key'
  | 'orderId'
  | 'campaignId'
  | 'couponId'
  | 'code'
  | 'cycle'
  | 'discountCents'
  | 'cashbackCents'
  | 'cashbackWallet'
  | 'budgetCents'
  | 'basketCents'
  | 'applicationId'
  | 'customerId'
  | 'counters'
  | 'hour'
>;
