import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { readGiftCardBalance, readStoreCreditBalance } from '../../shared/usecases/gift-card-balance.usecase.js';

/** GET /gift-cards/{code}: a gift card's balance, for the storefront (docs/gift-cards.md). */
export function readGiftCardRoute(services: Services): RequestHandler {
  return async (req, res) => {
    res.json(await readGiftCardBalance(services, res.locals.app, { code: String(req.params.code), requestId: String(req.id) }));
  };
}

/** GET /customers/{source_id}/store-credit: a customer's store credit, for the storefront (docs/gift-cards.md). */
export function readStoreCreditRoute(services: Services): RequestHandler {
  return async (req, res) => {
    res.json(await readStoreCreditBalance(services, res.locals.app, { sourceId: String(req.params.sourceId), requestId: String(req.id) }));
  };
}
