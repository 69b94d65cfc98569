/**
 * Gift cards at checkout (docs/gift-cards.md), for an application that opted in
 * (`gift_cards_at_checkout`): a card's code in `coupon_details` is found after the coupons (a code
 * that is a coupon stays the coupon); `STORE_CREDIT` names the customer's store credit. Validate shows what the card would take; redeem spends it
 * (queued on the customer's partition like any redeem: shared/usecases/gift-card-ledger.ts keeps
 * the card exact across partitions); revert gives the spend back. The card takes at most what the
 * cart owes (its selling subtotal) and at most its balance. Ledger txn ids derive from the order
 * and its cycle, so a re-run or a repeat posts nothing twice; a redeem after a revert spends again.
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import type { GiftCardEntryRecord, GiftCardRecord } from '../data/gift-card.repository.js';
import { amountToTake, cardRefusal, CARD_REFUSAL_MESSAGES, type CardRefusal } from '../domain/gift-cards.js';
import { fromCents, toCents } from '../domain/money.js';
import { parseOrder } from '../domain/order.js';
import { blankSavingsOrder, presentSavingsOrder } from '../domain/savings.js';
import type { Campaign } from '../domain/types.js';
import {
  couponNotFound,
  invalidPayload,
  invalidSourceId,
  noRedemption,
  orderOfAnotherCustomer,
  validationFailed,
} from '../client-errors.js';
import type { PreparedOperation } from '../queue/gateway.js';
import type { GiftCardApplyInput, StackGiftCard, StackRedeemInput, StackRevertInput } from '../queue/job-payloads.js';
import { JOB } from '../queue/names.js';
import type { Services } from '../services.js';
import { resultOf, type ApplyResult, type StackApplyResult } from './apply/apply-common.js';
import { redeemStack } from './apply/stack-redeem.usecase.js';
import { revertOrder } from './apply/revert-coupon.usecase.js';
import type { JobRun } from './job-run.js';
import type { CouponResult, Presented } from './coupon-result.js';
import { postCardEntry } from './gift-card-ledger.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** What validate and redeem add to the contract's bodies for a card: its figures, in currency units. */
export interface GiftCardFigures {
  /** What the card takes from this cart. */
  amount: number;
  /** Its balance before (validate) or right after (redeem, revert) this cart. */
  balance: number;
}

/** A redeem or revert of a card: the contract's result, and the card's figures beside (an opted-in application's body). */
export type GiftCardApplyResult = ApplyResult & { gift_card: GiftCardFigures };

/** The code that names a customer's store credit in `coupon_details` (never a card's code: those have no `_`). */
export const STORE_CREDIT_CODE = 'STORE_CREDIT';

/**
 * The card an entry of `coupon_details` names, for an application that takes cards at checkout:
 * by `coupon_code`, else by `coupon_id` (its code, or the card's id); `STORE_CREDIT` names the
 * customer's store credit (none without a customer). Null otherwise.
 */
export async function findGiftCard(
  deps: Pick<Services, 'repos'>,
  app: Pick<ApplicationRecord, 'id' | 'giftCardsAtCheckout'>,
  detail: unknown,
  customerId: string | null,
): Promise<GiftCardRecord | null> {
  if (!app.giftCardsAtCheckout || !isObject(detail)) return null;
  const code = str(detail.coupon_code);
  const id = str(detail.coupon_id);
  if ([code, id].some((c) => c.toUpperCase() === STORE_CREDIT_CODE))
    return customerId ? deps.repos.giftCards.findByCustomer(app.id, customerId) : null;
  const byCode = code ? await deps.repos.giftCards.findByCode(app.id, code) : null;
  if (byCode) return byCode;
  if (!id) return null;
  const byId = (await deps.repos.giftCards.findByCode(app.id, id)) ?? (await deps.repos.giftCards.findById(app.id, id));
  return byId?.code ? byId : null;
}

/** The only figures of a campaign a card's savings order reads: its base (the selling subtotal) and no metadata. */
const CARD_AS_CAMPAIGN = { discountCalculatedOn: 'selling_price_subtotal', metadataKeys: [] } as unknown as Campaign;

/** Validate's answer for a card: the Coupon result object, the card's amount as the discount, and `gift_card`. */
export function presentGiftCardValidation(args: {
  card: GiftCardRecord;
  order: unknown;
  sourceId: string;
  requestId: string;
  now: Date;
}): Presented {
  const { card } = args;
  const parsed = args.order === undefined || args.order === null ? null : parseOrder(args.order);
  const order = parsed?.ok ? parsed.order : null;
  const taken = amountToTake(
    { balanceCents: card.balance, status: card.status, expiresAt: card.expiresAt },
    order?.sellingSubtotalCents ?? 0,
    args.now,
  );
  const refusal: { reason: CardRefusal | 'invalid_payload'; message: string } | null =
    parsed && !parsed.ok
      ? { reason: 'invalid_payload', message: parsed.message }
      : 'refuse' in taken
        ? { reason: taken.refuse, message: CARD_REFUSAL_MESSAGES[taken.refuse] }
        : null;
  const cents = 'cents' in taken ? taken.cents : 0;
  const selling = order?.sellingSubtotalCents ?? 0;
  const body: CouponResult & { gift_card: GiftCardFigures } = {
    coupon_code: card.code ?? STORE_CREDIT_CODE,
    coupon_code_id: card.id,
    coupon_name: card.code ? 'Gift card' : 'Store credit',
    coupon_terms_and_conditions: [],
    is_applicable: !refusal,
    ...(refusal ? { message: refusal.message } : {}),
    coupon_savings: {
      order: refusal
        ? (blankSavingsOrder() as unknown as Record<string, unknown>)
        : (presentSavingsOrder({
            sourceId: args.sourceId,
            order,
            campaign: CARD_AS_CAMPAIGN,
            result: {
              totalDiscountCents: cents,
              totalCashbackCents: 0,
              totalAmountCents: Math.max(0, selling - cents),
              itemDiscountCents: (order?.items ?? []).map(() => null),
            },
            includeValidateFields: true,
          }) as unknown as Record<string, unknown>),
    },
    request_id: args.requestId,
    gift_card: { amount: fromCents(cents), balance: fromCents(card.balance) },
  };
  return { body, reason: refusal?.reason ?? null };
}

/**
 * Validate's answer for coupons with a gift card (stacking): the stack's answer, and `gift_card`:
 * what the card takes of what the stack leaves (`totalAmountCents`), at most its balance. A card
 * that cannot pay makes the answer not applicable (a redeem of them all would be refused), with
 * its message and reason when the coupons themselves apply.
 */
export function withGiftCard(presented: Presented, card: GiftCardRecord, totalAmountCents: number, now: Date): Presented {
  const taken = amountToTake({ balanceCents: card.balance, status: card.status, expiresAt: card.expiresAt }, totalAmountCents, now);
  const body = {
    ...presented.body,
    gift_card: { amount: fromCents('cents' in taken ? taken.cents : 0), balance: fromCents(card.balance) },
  };
  if (!('refuse' in taken) || !presented.body.is_applicable) return { ...presented, body };
  return {
    ...presented,
    body: {
      ...body,
      is_applicable: false,
      message: CARD_REFUSAL_MESSAGES[taken.refuse],
      coupon_savings: { order: blankSavingsOrder() as unknown as Record<string, unknown> },
    },
    reason: taken.refuse,
  };
}

/**
 * An apply of a card, API side: null unless the application takes cards at checkout and the one
 * entry names no coupon but a card (the coupon path answers everything else, as before); then the
 * documented 400s in the documented order (`checkBody`: the apply's own checks), the customer, and
 * the job.
 */
export async function prepareGiftCardApply(
  deps: Pick<Services, 'repos'>,
  app: Pick<ApplicationRecord, 'id' | 'giftCardsAtCheckout'>,
  req: { type: 'redeem' | 'revert'; body: Record<string, unknown>; requestId: string },
  checkBody: (body: Record<string, unknown>) => { order: Record<string, unknown> },
  couponFound: (detail: Record<string, unknown>) => Promise<boolean>,
): Promise<PreparedOperation | null> {
  if (!app.giftCardsAtCheckout) return null;
  const details = req.body.coupon_details;
  if (!Array.isArray(details) || details.length !== 1 || !isObject(details[0])) return null;
  const detail = details[0];
  if (await couponFound(detail)) return null;
  const sourceId = str(req.body.source_id);
  const customer = sourceId ? await deps.repos.customers.resolve(app.id, sourceId) : null;
  const card = await findGiftCard(deps, app, detail, customer?.id ?? null);
  if (!card) return null;
  const { order } = checkBody(req.body);
  if (!customer) throw invalidSourceId();
  const payload: GiftCardApplyInput = {
    applicationId: app.id,
    customerId: customer.id,
    sourceId: customer.sourceId,
    cardId: card.id,
    couponId: str(detail.coupon_id) || card.id,
    code: card.code ?? STORE_CREDIT_CODE,
    orderId: order.order_id as string,
    requestId: req.requestId,
    ...(req.type === 'redeem' ? { order } : {}),
  };
  return req.type === 'redeem'
    ? { job: { name: JOB.redeemGiftCard, customerId: customer.id, payload } }
    : { job: { name: JOB.revertGiftCard, customerId: customer.id, payload } };
}

export const spendTxnId = (orderId: string, cycle: number) => `spend:${orderId}:${cycle}`;
export const refundTxnId = (orderId: string, cycle: number) => `refund:${orderId}:${cycle}`;

/** An order's latest spend on a card and whether it was given back. */
function latestSpend(entries: GiftCardEntryRecord[]) {
  const spend = entries.filter((e) => e.kind === 'spend').at(-1) ?? null;
  const refunded = !!spend && entries.some((e) => e.kind === 'refund' && e.cycle === spend.cycle);
  return { spend, refunded };
}

type Deps = Pick<Services, 'repos' | 'now' | 'config'>;

const figuresOf = (entry: GiftCardEntryRecord): GiftCardFigures => ({
  amount: fromCents(Math.abs(entry.amount)),
  balance: fromCents(entry.after),
});

/**
 * Spends the card on an order that owes `owedCents`: the order's cycle (the latest spend not given
 * back is this order's — a repeat or a re-run posts it again under the same txnId, which only rolls
 * it forward), then the spend, at most what it owes and at most the balance.
 */
async function spendOnOrder(deps: Deps, input: Omit<GiftCardApplyInput, 'order'>, owedCents: number) {
  const { spend, refunded } = latestSpend(await deps.repos.giftCards.orderEntries(input.applicationId, input.cardId, input.orderId));
  if (spend && !refunded && spend.customerId !== input.customerId) throw orderOfAnotherCustomer();
  const cycle = !spend ? 1 : refunded ? spend.cycle! + 1 : spend.cycle!;
  const posted = await postCardEntry(deps, {
    applicationId: input.applicationId,
    cardId: input.cardId,
    txnId: spendTxnId(input.orderId, cycle),
    op: { kind: 'spend', owedCents, orderId: input.orderId, cycle, customerId: input.customerId },
    description: `order ${input.orderId}`,
  });
  // Two customers' redeems of one order id at once: the first one's spend is not the second's.
  if (posted.state === 'applied' && posted.entry.customerId !== input.customerId) throw orderOfAnotherCustomer();
  return posted;
}

/** Gives back the order's latest spend on the card, once (its refund's txnId derives from the spend's cycle); null: never spent. */
async function refundOnOrder(deps: Deps, input: Omit<GiftCardApplyInput, 'order'>) {
  const { spend } = latestSpend(await deps.repos.giftCards.orderEntries(input.applicationId, input.cardId, input.orderId));
  if (!spend || spend.customerId !== input.customerId) return null;
  return postCardEntry(deps, {
    applicationId: input.applicationId,
    cardId: input.cardId,
    txnId: refundTxnId(input.orderId, spend.cycle!),
    op: { kind: 'refund', cents: -spend.amount, orderId: input.orderId, cycle: spend.cycle!, customerId: input.customerId },
    description: `order ${input.orderId} reverted`,
  });
}

/** Redeem of a card alone, worker side: it takes at most the order's selling subtotal; refused when it cannot pay. */
export async function redeemGiftCard(deps: Deps, input: GiftCardApplyInput): Promise<GiftCardApplyResult> {
  const parsed = parseOrder(input.order);
  if (!parsed.ok) throw invalidPayload(parsed.message);
  const posted = await spendOnOrder(deps, input, parsed.order.sellingSubtotalCents);
  if (posted.state === 'no_card') throw couponNotFound();
  if (posted.state === 'refused') throw validationFailed(CARD_REFUSAL_MESSAGES[posted.reason], posted.reason);
  return { ...resultOf(input, 'completed'), gift_card: figuresOf(posted.entry) };
}

/** Revert of a card alone, worker side: gives back the order's latest spend, once. */
export async function revertGiftCard(deps: Deps, input: GiftCardApplyInput): Promise<GiftCardApplyResult> {
  const posted = await refundOnOrder(deps, input);
  if (!posted || posted.state !== 'applied') throw noRedemption();
  return { ...resultOf(input, 'reverted'), gift_card: figuresOf(posted.entry) };
}

/**
 * The entries of a stacked request (docs/stacking.md) with a gift card among them: the card taken
 * out (at most one per request), the coupon entries and what was found for each left. An
 * application that takes no cards: everything left as it is.
 */
export async function giftCardEntries<F>(
  deps: Pick<Services, 'repos'>,
  app: Pick<ApplicationRecord, 'id' | 'giftCardsAtCheckout'>,
  details: Record<string, unknown>[],
  found: (F | null)[],
  customerId: string | null,
): Promise<{ card: StackGiftCard | null; coupons: Record<string, unknown>[]; found: (F | null)[] }> {
  const none = { card: null, coupons: details, found };
  if (!app.giftCardsAtCheckout) return none;
  const cards = await Promise.all(details.map((d, i) => (found[i] ? null : findGiftCard(deps, app, d, customerId))));
  const at = cards.flatMap((c, i) => (c ? [i] : []));
  if (at.length === 0) return none;
  if (at.length > 1) throw invalidPayload('only one gift card can be applied per request');
  const i = at[0]!;
  const card = cards[i]!;
  return {
    card: { cardId: card.id, couponId: str(details[i]!.coupon_id) || card.id, code: card.code ?? STORE_CREDIT_CODE },
    coupons: details.filter((_, k) => k !== i),
    found: found.filter((_, k) => k !== i),
  };
}

/** A card's input for an order of a stacked apply. */
const cardInputOf = (input: StackRedeemInput | StackRevertInput, card: StackGiftCard): Omit<GiftCardApplyInput, 'order'> => ({
  applicationId: input.applicationId,
  customerId: input.customerId,
  sourceId: input.sourceId,
  cardId: card.cardId,
  couponId: card.couponId,
  code: card.code,
  orderId: input.orderId,
  requestId: input.requestId,
});

/** The card's figures when it moved nothing: what it takes 0, its balance now. */
async function untouched(deps: Deps, input: Omit<GiftCardApplyInput, 'order'>): Promise<GiftCardFigures> {
  const card = await deps.repos.giftCards.findById(input.applicationId, input.cardId);
  return { amount: 0, balance: fromCents(card?.balance ?? 0) };
}

/**
 * A stacked redeem with a gift card, worker side: the card applies last, on what the stack leaves
 * (`max(0, selling subtotal - every coupon's discount)`), at most its balance. A card that cannot pay
 * refuses the whole redeem before anything is redeemed; one emptied or disabled by another cart
 * between that check and its spend takes nothing (`gift_card.amount` 0: the storefront collects the
 * rest) — the stack is redeemed either way, all or nothing as always.
 */
export async function redeemStackWithCard(
  deps: Deps & Parameters<typeof redeemStack>[0],
  input: StackRedeemInput,
  run: JobRun,
): Promise<StackApplyResult | (StackApplyResult & { gift_card: GiftCardFigures })> {
  if (!input.giftCard) return redeemStack(deps, input, run);
  const cardInput = cardInputOf(input, input.giftCard);
  const { spend, refunded } = latestSpend(await deps.repos.giftCards.orderEntries(input.applicationId, cardInput.cardId, input.orderId));
  if (!spend || refunded) {
    // Not spent on this order yet: a card that cannot pay refuses before the coupons are redeemed.
    const card = await deps.repos.giftCards.findById(input.applicationId, cardInput.cardId);
    if (!card) throw couponNotFound();
    const refused = cardRefusal({ balanceCents: card.balance, status: card.status, expiresAt: card.expiresAt }, deps.now());
    if (refused) throw validationFailed(CARD_REFUSAL_MESSAGES[refused], refused);
  }
  const result = await redeemStack(deps, input, run);
  const parsed = parseOrder(input.order);
  const selling = parsed.ok ? parsed.order.sellingSubtotalCents : 0;
  const owed = Math.max(0, selling - result.coupons.reduce((sum, c) => sum + toCents(c.discount), 0));
  const posted = await spendOnOrder(deps, cardInput, owed);
  return { ...result, gift_card: posted.state === 'applied' ? figuresOf(posted.entry) : await untouched(deps, cardInput) };
}

/** The revert of a stacked order with a gift card: the stack's revert, then the card's spend given back (if it was spent). */
export async function revertStackWithCard(
  deps: Deps & Parameters<typeof revertOrder>[0],
  input: StackRevertInput,
  run: JobRun,
): Promise<ApplyResult | StackApplyResult | ((ApplyResult | StackApplyResult) & { gift_card: GiftCardFigures })> {
  if (!input.giftCard) return revertOrder(deps, input, run);
  const result = await revertOrder(deps, input, run);
  const cardInput = cardInputOf(input, input.giftCard);
  const posted = await refundOnOrder(deps, cardInput);
  return { ...result, gift_card: posted?.state === 'applied' ? figuresOf(posted.entry) : await untouched(deps, cardInput) };
}
