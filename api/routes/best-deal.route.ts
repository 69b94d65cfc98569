import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { bestDeal } from '../../shared/usecases/best-deal.usecase.js';

/** POST /coupons/best-deal (docs/best-deal.md) */
export function bestDealRoute(services: Services): RequestHandler {
  return async (req, res) => {
    res.json(await bestDeal(services, res.locals.app, { body: req.body, requestId: String(req.id) }));
  };
}
