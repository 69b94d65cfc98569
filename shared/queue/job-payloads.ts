/**
 * PERSISTED SHAPES: the payloads of the partition queues' jobs (shared/queue/names.ts `JOB`),
 * stored in Redis with every job. A job queued by one version is run by the next during a rolling
 * deploy: add fields as optional, never rename or remove one while jobs carrying it may be queued.
 * The API prepares them (shared/usecases/apply/prepare-apply.usecase.ts,
 * shared/usecases/wallet-operation.usecase.ts); the workers run them.
 */

import type { RuleEarning } from '../domain/earning.js';
import type { CreditRules } from '../domain/point-buckets.js';
import type { TierContext } from '../domain/tiers.js';

interface ApplyPayload {
  applicationId: string;
  customerId: string;
  /** The customer's `source_id`, for its events. */
  sourceId: string;
  campaignId: string;
  bulkCodeId: string | null;
  /** `coupon_id` as sent (echoed as `couponId`). */
  couponId: string;
  /** The code as configured (echoed as `coupon_code`). */
  code: string;
  orderId: string;
  requestId: string;
  /** {@link ConfigVersion}. */
  configVersion?: ConfigVersion;
}

/**
 * The application's `configVersion` the API found the coupons under. A worker decides on that
 * configuration or a newer one, never an older one its cache still holds (a campaign created just
 * before a redeem would otherwise be "not found" until the change reached that worker). Absent in
 * jobs queued by a release before it.
 */
type ConfigVersion = number;

/** `redeem`: the order as sent too — redeem re-validates every rule against it. */
export interface RedeemInput extends ApplyPayload {
  order: unknown;
}

/** `revert`. */
export type RevertInput = ApplyPayload;

/** One entry of `coupon_details` of a stacked apply, as found by the API. */
export interface StackEntryInput {
  campaignId: string;
  bulkCodeId: string | null;
  /** `coupon_id` as sent (echoed as `couponId`). */
  couponId: string;
  /** The code as configured (echoed as `coupon_code`). */
  code: string;
}

/** `redeem-stack`: several coupons, and the automatic promotions, on one order, all or nothing (docs/stacking.md). */
export interface StackRedeemInput {
  applicationId: string;
  customerId: string;
  sourceId: string;
  orderId: string;
  requestId: string;
  order: unknown;
  /** In the request's order. */
  entries: StackEntryInput[];
  /** {@link ConfigVersion}. */
  configVersion?: ConfigVersion;
  /** {@link StackGiftCard}. */
  giftCard?: StackGiftCard;
}

/**
 * A gift card (or store credit) named beside the coupons of a stacked apply (docs/gift-cards.md):
 * redeemed after the stack, on what it leaves; reverted with it. Absent: no card.
 */
export interface StackGiftCard {
  cardId: string;
  /** `coupon_id` as sent. */
  couponId: string;
  code: string;
}

/** `revert-stack`: the revert of an order of an application that stacks: its stack, or the one coupon named. */
export interface StackRevertInput {
  applicationId: string;
  customerId: string;
  sourceId: string;
  orderId: string;
  requestId: string;
  entries: StackEntryInput[];
  /** {@link StackGiftCard}. */
  giftCard?: StackGiftCard;
}

/** `wallet-transaction`: a credit or a debit of a customer's wallet. */
export interface WalletOperationInput {
  applicationId: string;
  customerId: string;
  /** The customer's `source_id`, for its events. */
  sourceId: string;
  walletDbId: string;
  walletId: string;
  type: 'credit' | 'debit';
  /** Hundredths of a point. */
  points: number;
  description: string;
  txnId: string;
  requestId: string;
  /** `admin`: an operator's adjustment (the admin API); a wallet update otherwise. */
  origin?: 'api' | 'admin';
  /**
   * A credit's rules: its wallet's expiry and pending settings when the API accepted it (absent: the
   * wallet has none — spendable at once, never expires). Carried, so a later change of the settings
   * applies to later credits only.
   */
  rules?: CreditRules;
  /** The wallet's tiers when the API accepted it (absent: none): shared/domain/tiers.ts. */
  tiers?: TierContext;
}

/**
 * `order-report`: an order the storefront reports completed (it earns `points`) or returned (it
 * takes back what it earned): shared/usecases/order-report.usecase.ts.
 */
export interface OrderReportInput {
  applicationId: string;
  customerId: string;
  sourceId: string;
  walletDbId: string;
  walletId: string;
  orderId: string;
  status: 'completed' | 'returned';
  /** Hundredths of a point the order earns under the wallet's earning rules when it was reported (0 for a return). */
  points: number;
  requestId: string;
  /** The wallet's expiry and pending settings for the credit, as for a wallet update. */
  rules?: CreditRules;
  /** The wallet's tiers, as for a wallet update. */
  tiers?: TierContext;
  /**
   * A completed order earning under capped rules: what each rule gives it before its cap, and the
   * wallet's timezone (the periods'); the worker caps them on the customer's counters and `points`
   * is then an upper bound. Absent: `points` is what the order earns.
   */
  earning?: { timezone: string; rules: RuleEarning[] };
  /** A partial return (docs/wallets.md "Partial returns"): its id; `points` is then what its lines earn. */
  returnId?: string;
}

/** `wallet-settle`: post the transitions due on one balance (the expiry sweep: shared/usecases/settle-wallet.usecase.ts). */
export interface WalletSettleInput {
  applicationId: string;
  customerId: string;
  sourceId: string;
  walletDbId: string;
  walletId: string;
  /** The instant the sweep saw due (names the job: one settle per balance and instant). */
  due: string;
  requestId: string;
  /** The wallet's tiers when the sweep read it (absent: none — a tier the balance holds is cleared at its re-assessment). */
  tiers?: TierContext;
}

/**
 * `redeem-gift-card` / `revert-gift-card`: a gift card (or store credit) used at checkout through
 * `coupon_details` (docs/gift-cards.md): shared/usecases/gift-card-checkout.usecase.ts.
 */
export interface GiftCardApplyInput {
  applicationId: string;
  customerId: string;
  sourceId: string;
  cardId: string;
  /** `coupon_id` as sent (echoed as `couponId`). */
  couponId: string;
  /** The card's code as issued (echoed as `coupon_code`). */
  code: string;
  orderId: string;
  requestId: string;
  /** The order as sent (a redeem: the card takes at most what it owes). */
  order?: unknown;
}
