import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { validateCoupon } from '../../shared/usecases/validate-coupon.usecase.js';
import { setListReasons, setReason } from '../reason-headers.js';

/** POST /coupons/validate */
export function validateCouponRoute(services: Services): RequestHandler {
  return async (req, res) => {
    const { body, reason, reasons } = await validateCoupon(services, res.locals.app, { body: req.body, requestId: String(req.id) });
    setReason(res, reason);
    if (reasons) setListReasons(res, reasons); // several coupons: each one left out (docs/stacking.md)
    res.json(body);
  };
}
