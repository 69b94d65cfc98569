/**
 * Webhook events and deliveries in a promotion manager's words. Keyed by the spec's enums, so an
 * event type the spec adds fails the type check until it has its words (and a place in the form).
 */
import type { Schemas } from '@coupons/client';

/** An event type an endpoint can subscribe to (`*`: all of them). */
export type EventType = Exclude<NonNullable<Schemas['AdminWebhookInput']['event_types']>[number], '*'>;

/** What happened, as the webhooks page names each event type, in the order the form offers them. */
export const EVENT_WORDS: Record<EventType, string> = {
  'redemption.completed': 'A coupon was redeemed',
  'redemption.reverted': 'A redemption was reverted',
  'redemption.refused': 'A redemption was refused',
  'wallet.transaction.completed': 'Points were credited or debited',
  'wallet.points.pending': 'Points were credited as pending',
  'wallet.points.available': 'Pending points became spendable',
  'wallet.points.expired': 'Points expired',
  'wallet.points.cancelled': 'Pending points were cancelled',
  'wallet.tier.changed': "A customer's tier went up or down",
  'campaign.budget_spent': 'A campaign spent a set share of its budget',
  'gift_card.debited': 'A gift card or store credit paid for an order',
  'gift_card.credited': 'A gift card or store credit payment was given back',
};
export const EVENT_TYPES = Object.keys(EVENT_WORDS) as EventType[];

/** An event type in words (a ping, or a type this console does not know yet: as it is). */
export const eventInWords = (type: string): string =>
  type === 'webhook.ping' ? 'Test ping' : ((EVENT_WORDS as Record<string, string>)[type] ?? type);

/** What an endpoint's subscription covers, in words. */
export const subscriptionInWords = (types: readonly string[]): string =>
  types.includes('*') ? 'Every event' : types.map(eventInWords).join('; ');

/** A delivery's state. */
export const DELIVERY_STATUS_WORDS: Record<Schemas['AdminDelivery']['status'], string> = {
  pending: 'waiting to be sent',
  succeeded: 'delivered',
  dead: 'given up',
  cancelled: 'cancelled',
};

/** Why an endpoint is switched off. */
export const disabledInWords = (reason: string | null | undefined): string =>
  reason === 'gone' ? 'switched off: the receiver answered that it is gone (410)' : 'switched off by a person';
