/** Contract error bodies of `POST /coupons/apply` (the contract's error bodies (openapi.yaml), docs/decisions.md#14, #17, #20a, #20b). */
import type { Reason, RefusalReason } from '../../reasons.js';
import { DomainError } from '../../errors.js';

export const invalidQueryType = () =>
  new DomainError('invalid', 'Invalid query param', 'type should be redeem or revert', { code: 400, reason: 'invalid_type' });
export const invalidPayload = (details: string, reason: Reason = 'invalid_payload') =>
  new DomainError('invalid', 'Invalid payload', details, { code: 400, reason });
export const invalidSourceId = () => invalidPayload('Invalid source_id', 'unknown_customer');
export const couponMissing = () =>
  new DomainError('invalid', 'coupon_code or coupon_id is missing', 'coupon id or coupon code is required', {
    code: 400,
    reason: 'coupon_missing',
  });
export const onlyOneCoupon = () => invalidPayload('only one coupon can be applied per request', 'only_one_coupon');
export const couponNotFound = () =>
  new DomainError('invalid', 'Invalid coupon code or coupon id', 'coupon not found, invalid coupon code or coupon id', {
    code: 400,
    reason: 'coupon_not_found',
  });
export const noRedemption = () => invalidPayload('no redemption found for this order and coupon', 'no_redemption');
export const orderOfAnotherCustomer = () =>
  invalidPayload('order_id is already redeemed with this coupon by another customer', 'order_of_another_customer');
/** docs/decisions.md#20a: a failed rule or an exhausted limit. */
export const validationFailed = (details: string, reason: RefusalReason) =>
  new DomainError('invalid', 'coupon validation failed', details, { code: 400, reason });
/** The selected-items case keeps the documented tray message as `message`. */
export const trayFailed = (tray: string) => new DomainError('invalid', tray, tray, { code: 400, reason: 'selection' });
/** A redeem's refusal by the engine (a rule or a limit), as the worker and the API answer it. */
export const refusalOf = (reason: RefusalReason, message: string): DomainError =>
  reason === 'selection' ? trayFailed(message) : validationFailed(message, reason);
