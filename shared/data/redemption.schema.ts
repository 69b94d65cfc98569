import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';
import type { FreeGiftLine } from '../domain/discount.js';
import type { PeriodKeys } from '../domain/periods.js';
import type { RefusalReason } from '../reasons.js';

/** The states of a stored redemption cycle. */
export const REDEMPTION_STATES = ['completed', 'refused', 'reverted'] as const;
export type RedemptionState = (typeof REDEMPTION_STATES)[number];

/** What a stack record holds (see `stk`). */
export interface StackRecordFields {
  state: RedemptionState;
  applicationId: string;
  customerId: string;
  orderId: string;
  /** n of its `_id`: 1 for the order's first stack, +1 after each revert or refusal. */
  cycle: number;
  /** The cycles' fields, in the order they were computed (`key`s of the redemptions). */
  cycles: Record<string, unknown>[];
  refusal: { reason: RefusalReason; message: string } | null;
  redeemJobId: string;
  revertJobId: string | null;
  /** The attempt that committed it (its cycles are written under it), and the one that reverted it. */
  attempt: string;
  revertAttempt: string | null;
}

const fields = {
  /** `<campaign>:<order ref>:<cycle>` (= `key`): every lookup of a redemption goes by `_id`. */
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  campaign: { type: Schema.Types.ObjectId, required: true },
  couponCode: { type: Schema.Types.ObjectId, default: null },
  customer: { type: Schema.Types.ObjectId, required: true },
  orderId: { type: String, required: true },
  /** 1 for the first redemption of this order with this campaign, +1 after each revert. */
  cycle: { type: Number, required: true },
  key: { type: String, required: true },
  state: { type: String, enum: REDEMPTION_STATES },
  /** The contract fields of the request, echoed in the result. */
  couponId: { type: String, default: '' },
  code: { type: String, default: '' },
  discountCents: { type: Number, default: 0 },
  cashbackCents: { type: Number, default: 0 },
  /** What it counts in its campaign's money budget (docs/budgets.md), in cents; absent: 0 (no budget). */
  budgetCents: typed<number | undefined>()({ type: Number }),
  /** The selling subtotal of the order it was used on, in cents (docs/results.md); absent: 0 (none sent, or before results were counted). */
  basketCents: typed<number | undefined>()({ type: Number }),
  /** The local hour (0-23) it was made in, the hour of its campaign's results it counts in (docs/results.md); absent: not counted there. */
  hour: typed<number | undefined>()({ type: Number }),
  /** The free gifts it gave (docs/campaigns.md "Free gift"); absent: none. */
  gifts: typed<FreeGiftLine[] | undefined>()({ type: Schema.Types.Mixed }),
  /** Period keys of the moment of redemption: a revert frees these, not today's. */
  periods: typed<PeriodKeys>()({ day: String, week: String, month: String }),
  /** Ids of the limit counters this redemption counts in (limit-counter.schema.ts). */
  counters: typed<string[]>()({ type: [String], default: undefined }),
  refusal: typed<{ reason: RefusalReason; message: string } | null>()({ type: Schema.Types.Mixed, default: null }),
  cashbackWallet: { type: String, default: null },
  /** The job that wrote this cycle / that reverted it: a re-run of either finds its own work. */
  redeemJobId: { type: String, default: '' },
  revertJobId: { type: String, default: null },
  /** A cycle redeemed with others on one order: the key of its stack record (below); null alone. */
  stack: { type: String, default: null },
  /**
   * A stack record (docs/stacking.md), `_id` `stack:<application>:<order ref>:<n>`: the commit point of
   * several cycles redeemed together, and their fields, so that any run can write them. It has no
   * top-level `state` or `application`, so readers of cycles never see it.
   */
  stk: typed<StackRecordFields | undefined>()({ type: Schema.Types.Mixed }),
  /** Attempts settled on this cycle: `c` committed, `x` abandoned. */
  att: typed<Record<string, 'c' | 'x'> | undefined>()({ type: Schema.Types.Mixed }),
} as const;
const options = { collection: 'redemptions', timestamps: true, versionKey: false } as const;

/**
 * The journal of one redemption of a campaign for one order (a "cycle"; a redeem after a revert
 * starts the next cycle, docs/decisions.md#17). It is also the commit point of the counters' protocol
 * (shared/usecases/limit-counters.ts): the attempt that writes the state `completed` (or, for a
 * revert, moves it to `reverted`) is recorded `c` in `att`; an attempt settled as abandoned is
 * recorded `x`, after which it can never commit. Both are single-document updates.
 *
 * A document with `att` only (no `state`) marks abandoned attempts of a cycle not written yet;
 * readers skip it and the next commit of that cycle fills it in.
 */
export type RedemptionDoc = DocOf<typeof fields, typeof options>;

export const redemptionSchema = new Schema<RedemptionDoc>(fields, options);
// Serves the admin redemption listing of a customer, newest first.
redemptionSchema.index({ application: 1, customer: 1, createdAt: -1 });
// Serves the application's whole listing and its date ranges, newest first (a state or campaign
// filter reads along it); without it the listing would sort every redemption of the application.
redemptionSchema.index({ application: 1, createdAt: -1 });
// Serves the search by the beginning of an order id (the console's "Order number" search): an exact
// order is found by its cycles' `_id`s, a prefix needs the ids themselves in order.
redemptionSchema.index({ application: 1, orderId: 1 });
