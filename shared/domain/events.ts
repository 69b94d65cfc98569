/**
 * Events sent to webhook endpoints (docs/events.md): their types, their ids and their bodies.
 * Pure: an event's id is derived from the change that caused it, so recording the same change
 * twice (a re-run of its job) yields the same id and the outbox keeps one copy.
 */
import { createHash } from 'node:crypto';
import type { Reason } from '../reasons.js';

export const EVENT_TYPES = [
  'redemption.completed',
  'redemption.reverted',
  'redemption.refused',
  'wallet.transaction.completed',
  'wallet.points.pending',
  'wallet.points.available',
  'wallet.points.expired',
  'wallet.points.cancelled',
  'wallet.tier.changed',
  'campaign.budget_spent',
  // A gift card's (or store credit's) balance moved at checkout: a redeem spent it, a revert gave it back (docs/gift-cards.md).
  'gift_card.debited',
  'gift_card.credited',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What an endpoint subscribes to: event types, or `*` for every type. */
export const ALL_EVENTS = '*';

/** A signed test event sent to one endpoint on request (`POST …/webhooks/:id/ping`); never recorded as a change. */
export const PING_EVENT = 'webhook.ping';

/** Whether an endpoint receives events of `type`: those it subscribes to, and always its pings. */
export const subscribes = (eventTypes: readonly string[], type: string): boolean =>
  type === PING_EVENT || eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);

/**
 * The body of a ping: the envelope of every event (docs/events.md) with `type` `webhook.ping`,
 * `sequence` 1 (it is alone in its stream) and `data.webhook_id`.
 */
export function renderPing(p: { id: string; applicationId: string; webhookId: string; requestId: string; createdAt: Date }): string {
  return JSON.stringify({
    id: p.id,
    object: 'event',
    type: PING_EVENT,
    created: p.createdAt.toISOString(),
    application_id: p.applicationId,
    request_id: p.requestId,
    sequence: 1,
    data: { webhook_id: p.webhookId },
  });
}

/**
 * The stable id of the event a change causes: `evt_` and 32 hex digits of
 * SHA-256(application, type, change key). Change keys (one change, one key):
 * - a redemption cycle: `redemption:<campaign>:<order>:<cycle>` (completed, then reverted);
 * - a refused redeem: `refusal:<job id>` (each refused request is its own change);
 * - a ledger entry: `txn:<txn id>` (unique per application);
 * - a budget share reached: `budget:<campaign>:<share>` (once per campaign and share);
 * - a gift card's entry: `gift_card:<card>:<txn id>` (its txn id is unique per card).
 */
export function eventIdOf(applicationId: string, type: EventType, changeKey: string): string {
  return `evt_${createHash('sha256').update(`${applicationId}\n${type}\n${changeKey}`).digest('hex').slice(0, 32)}`;
}

/** The customer every event is about: the client's `source_id` and the service's id. */
interface CustomerRef {
  source_id: string;
  customer_id: string;
}

/** `redemption.completed` and `redemption.reverted`. Amounts in the application's currency. */
export interface RedemptionEventData extends CustomerRef {
  order_id: string;
  campaign_id: string;
  coupon_id: string;
  coupon_code: string;
  /** `<campaign>:<order>:<cycle>`: the same for the completion and the revert of one cycle. */
  redemption_id: string;
  /** 1 for an order's first redemption with this campaign, +1 after each revert. */
  cycle: number;
  status: 'completed' | 'reverted';
  discount: number;
  cashback: number;
  currency: string;
}

/** `redemption.refused`: a redeem the worker refused (a limit, a rule, another customer's order). */
export interface RefusalEventData extends CustomerRef {
  order_id: string;
  campaign_id: string;
  coupon_id: string;
  coupon_code: string;
  /** Why, from the catalogue of shared/reasons.ts (`total_limit`, `cart_rule`, `order_of_another_customer`, …). */
  reason: Reason;
  /** The `message` and `details` the client was answered. */
  message: string;
  details: string;
}

/** `wallet.transaction.completed`: a ledger entry applied to a balance. Points in units. */
export interface WalletEventData extends CustomerRef {
  wallet_id: string;
  txn_id: string;
  type: 'credit' | 'debit';
  /**
   * `api` (a wallet update), `admin` (an operator's adjustment), `cashback` (a redeem's credit), `cashback_revert` (its revert's debit),
   * `order` (what a reported order earned), `order_return` (taken back when it was returned).
   */
  origin: 'api' | 'admin' | 'cashback' | 'cashback_revert' | 'order' | 'order_return';
  points: number;
  previous_loyalty_points: number;
  loyalty_points: number;
  description: string;
  /** The order of a cashback entry; null for a wallet update. */
  order_id: string | null;
}

/**
 * `wallet.points.pending` (a credit that waits before it can be spent), `wallet.points.available`
 * (it can be spent now), `wallet.points.expired` (points left the balance at their expiry) and
 * `wallet.points.cancelled` (a pending credit taken back by a revert). Points in units;
 * `loyalty_points` is the spendable balance (it moves for `available` and `expired` only).
 */
export interface WalletPointsEventData extends CustomerRef {
  wallet_id: string;
  txn_id: string;
  points: number;
  previous_loyalty_points: number;
  loyalty_points: number;
  /** When the points become (or became) spendable; null once they were spendable at credit time. */
  available_at: string | null;
  /** When the points expire (expired); null: never. */
  expires_at: string | null;
  description: string;
  /** The order of a cashback; null otherwise. */
  order_id: string | null;
}

/**
 * `campaign.budget_spent`: a campaign's total money budget (docs/budgets.md) reached one of its
 * `notify_at` shares, or was used up (`share` 100, `exhausted` true: spent to the cent, or a
 * redeem refused or cut because too little was left). Once per campaign and share; the customer is
 * the one whose redeem got it there. Amounts in the application's currency.
 */
export interface BudgetEventData extends CustomerRef {
  campaign_id: string;
  share: number;
  exhausted: boolean;
  spent: number;
  budget: number;
  currency: string;
}

/**
 * `wallet.tier.changed` (docs/wallets.md "Tiers"): the customer's tier in a wallet went up (a credit
 * reached a level) or down (a return took back what reached it, or a re-assessment at a period's
 * end). `txn_id`: the ledger entry that changed it (`tier:<wallet>:<period end>` for a re-assessment).
 */
export interface TierEventData extends CustomerRef {
  wallet_id: string;
  txn_id: string;
  /** The level before; null when the wallet had no tiers for the customer before. */
  previous_tier: string | null;
  /** The level now; null when the wallet's tiers were removed. */
  tier: string | null;
  /** `earned` (a credit), `taken_back` (a return or revert), `reassessed` (a period ended). */
  reason: 'earned' | 'taken_back' | 'reassessed';
  /** The new tier is kept at least until this instant (the current assessment period's end); null with no tier. */
  kept_until: string | null;
}

/**
 * `gift_card.debited` (a redeem spent from the card) and `gift_card.credited` (its revert gave the
 * spend back). Amounts in the application's currency.
 */
export interface GiftCardEventData extends CustomerRef {
  gift_card_id: string;
  /** The card's code; null for store credit (named `STORE_CREDIT` at checkout). */
  code: string | null;
  kind: 'gift_card' | 'store_credit';
  order_id: string;
  /** `<card id>:<order ref>:<cycle>`: the same for a spend and the revert that gives it back. */
  redemption_id: string;
  /** 1 for an order's first spend on this card, +1 after each revert. */
  cycle: number;
  /** The card's ledger entry (`spend:<order>:<cycle>`, `refund:<order>:<cycle>`). */
  txn_id: string;
  amount: number;
  previous_balance: number;
  balance: number;
  currency: string;
}

export type EventData =
  RedemptionEventData | RefusalEventData | WalletEventData | WalletPointsEventData | TierEventData | BudgetEventData | GiftCardEventData;

/** One recorded event, as stored in the outbox and sent. */
export interface EventRecord {
  id: string;
  applicationId: string;
  customerId: string;
  type: EventType;
  /** Per application and customer, increasing in the order the changes were applied (gaps possible). */
  sequence: number;
  requestId: string;
  createdAt: Date;
  data: EventData;
}

/** The event as receivers get it (and the admin API shows it): docs/events.md, openapi.yaml `WebhookEvent`. */
export function eventEnvelope(e: EventRecord) {
  return {
    id: e.id,
    object: 'event' as const,
    type: e.type,
    created: e.createdAt.toISOString(),
    application_id: e.applicationId,
    request_id: e.requestId,
    sequence: e.sequence,
    data: e.data,
  };
}

/** The body POSTed to endpoints. The same bytes on every attempt and every endpoint. */
export const renderEvent = (e: EventRecord): string => JSON.stringify(eventEnvelope(e));

/** The event a body was rendered from (`renderEvent(eventOfBody(b)) === b`). */
export function eventOfBody(body: string): EventRecord {
  const e = JSON.parse(body) as ReturnType<typeof eventEnvelope>;
  return {
    id: e.id,
    applicationId: e.application_id,
    customerId: e.data.customer_id,
    type: e.type,
    sequence: e.sequence,
    requestId: e.request_id,
    createdAt: new Date(e.created),
    data: e.data,
  };
}
