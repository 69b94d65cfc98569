import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { readGiftCardBalance } from '../../shared/usecases/gift-card-balance.usecase.js';

/** GET /gift-cards/{code}: a gift card's balance, for the storefront (docs/gift-cards.md). */
export function readGiftCardRoute(services: Services): RequestHandler {
  return async (req, res) => {
    res.json(await readGiftCardBalance(services, res.locals.app, { code: String(req.params.code), requestId: String(req.id) }));
  };
}
