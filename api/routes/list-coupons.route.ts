import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { listCoupons } from '../../shared/usecases/list-coupons.usecase.js';
import { sendList } from '../json-body.js';

/** POST /coupons/list/all — the items most coupons echo alike are serialized once (api/json-body.ts). */
export function listCouponsRoute(services: Services): RequestHandler {
  return async (req, res) => {
    sendList(res, await listCoupons(services, res.locals.app, { body: req.body, requestId: String(req.id) }), [
      'coupon_savings',
      'order',
      'items',
    ]);
  };
}
