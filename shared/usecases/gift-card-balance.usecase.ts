/**
 * GET /gift-cards/{code} (docs/gift-cards.md): what a gift card holds, for the storefront's "check
 * your balance" page — its balance in the application's currency, whether it can pay now, and
 * until when. An unknown code is 404 (so is a store credit's id: it has no code).
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import { cardRefusal, CARD_REFUSAL_MESSAGES } from '../domain/gift-cards.js';
import { fromCents } from '../domain/money.js';
import { giftCardNotFound } from '../client-errors.js';
import type { Services } from '../services.js';

export async function readGiftCardBalance(
  deps: Pick<Services, 'repos' | 'now'>,
  app: Pick<ApplicationRecord, 'id' | 'currency'>,
  req: { code: string; requestId: string },
) {
  const card = await deps.repos.giftCards.findByCode(app.id, req.code);
  if (!card?.code) throw giftCardNotFound();
  const refused = cardRefusal({ balanceCents: card.balance, status: card.status, expiresAt: card.expiresAt }, deps.now());
  return {
    code: card.code,
    balance: fromCents(card.balance),
    currency: app.currency,
    status: card.status,
    expires_at: card.expiresAt,
    can_pay: !refused,
    ...(refused ? { message: CARD_REFUSAL_MESSAGES[refused] } : {}),
    request_id: req.requestId,
  };
}
