/** Contract error bodies of list and validate (the contract's error bodies (openapi.yaml), docs/decisions.md#12, #14). */
import { DomainError } from '../errors.js';

export const invalidSourceIdLV = () =>
  new DomainError('invalid', 'invalid_payload', 'invalid source_id', { code: 400, reason: 'unknown_customer' });
export const validateCouponNotFound = (reason: 'coupon_missing' | 'coupon_not_found' = 'coupon_not_found') =>
  new DomainError('invalid', 'coupon validation failed', 'coupon not found, invalid coupon code or coupon id', { code: 400, reason });
export const loginRequired = () =>
  new DomainError('invalid', 'Invalid source_id', 'please login/signup to redeem the coupon code', { code: 400, reason: 'login_required' });
export const onlyOneCouponLV = () =>
  new DomainError('invalid', 'Invalid payload', 'only one coupon can be applied per request', { code: 400, reason: 'only_one_coupon' });
export const bodyNotObject = () => new DomainError('invalid', 'Invalid payload', 'the request body should be a JSON object', { code: 400 });
