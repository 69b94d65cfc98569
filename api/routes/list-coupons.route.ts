import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { listCoupons } from '../../shared/usecases/list-coupons.usecase.js';

/** POST /coupons/list/all */
export function listCouponsRoute(services: Services): RequestHandler {
  return async (req, res) => {
    res.json(await listCoupons(services, res.locals.app, { body: req.body, requestId: String(req.id) }));
  };
}
