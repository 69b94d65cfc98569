import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { listCoupons } from '../../shared/usecases/list-coupons.usecase.js';
import { sendList } from '../json-body.js';
import { setListReasons } from '../reason-headers.js';

/** POST /coupons/list/all — the items most coupons echo alike are serialized once (api/json-body.ts). */
export function listCouponsRoute(services: Services): RequestHandler {
  return async (req, res) => {
    const listed = await listCoupons(services, res.locals.app, { body: req.body, requestId: String(req.id) });
    setListReasons(
      res,
      listed.map((p) => ({ id: p.body.coupon_code_id, reason: p.reason })),
    );
    sendList(
      res,
      listed.map((p) => p.body),
      ['coupon_savings', 'order', 'items'],
    );
  };
}
