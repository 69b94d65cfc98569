/**
 * GET /gift-cards/{code} and GET /customers/{source_id}/store-credit (docs/gift-cards.md): what a
 * gift card or a customer's store credit holds, for the storefront's "check your balance" page —
 * its balance in the application's currency, whether it can pay now, and until when. An unknown
 * code is 404 (so is a store credit's id: it has no code); so are an unknown customer and a
 * customer without store credit.
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import type { GiftCardRecord } from '../data/gift-card.repository.js';
import { cardRefusal, CARD_REFUSAL_MESSAGES } from '../domain/gift-cards.js';
import { fromCents } from '../domain/money.js';
import { customerNotFound, giftCardNotFound, storeCreditNotFound } from '../client-errors.js';
import type { Services } from '../services.js';

export async function readGiftCardBalance(
  deps: Pick<Services, 'repos' | 'now'>,
  app: Pick<ApplicationRecord, 'id' | 'currency'>,
  req: { code: string; requestId: string },
) {
  const card = await deps.repos.giftCards.findByCode(app.id, req.code);
  if (!card?.code) throw giftCardNotFound();
  return { code: card.code, ...balanceOf(card, app, deps.now()), request_id: req.requestId };
}

/** A customer's store credit (`source_id`: the client's id or the service's, as the wallet routes take it). */
export async function readStoreCreditBalance(
  deps: Pick<Services, 'repos' | 'now'>,
  app: Pick<ApplicationRecord, 'id' | 'currency'>,
  req: { sourceId: string; requestId: string },
) {
  const customer = await deps.repos.customers.resolve(app.id, req.sourceId);
  if (!customer) throw customerNotFound();
  const credit = await deps.repos.giftCards.findByCustomer(app.id, customer.id);
  if (!credit) throw storeCreditNotFound();
  return { source_id: customer.sourceId, ...balanceOf(credit, app, deps.now()), request_id: req.requestId };
}

/** What a card holds and whether it can pay now (with the refusal's message when it cannot). */
function balanceOf(card: GiftCardRecord, app: Pick<ApplicationRecord, 'currency'>, now: Date) {
  const refused = cardRefusal({ balanceCents: card.balance, status: card.status, expiresAt: card.expiresAt }, now);
  return {
    balance: fromCents(card.balance),
    currency: app.currency,
    status: card.status,
    expires_at: card.expiresAt,
    can_pay: !refused,
    ...(refused ? { message: CARD_REFUSAL_MESSAGES[refused] } : {}),
  };
}
