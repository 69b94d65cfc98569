/** Contract error bodies of list and validate (the contract's error bodies (openapi.yaml), docs/decisions.md#12, #14). */
import { DomainError } from '../errors.js';

export const invalidSourceIdLV = () => new DomainError('invalid', 'invalid_payload', 'invalid source_id', { code: 400 });
export const validateCouponNotFound = () =>
  new DomainError('invalid', 'coupon validation failed', 'coupon not found, invalid coupon code or coupon id', { code: 400 });
export const loginRequired = () =>
  new DomainError('invalid', 'Invalid source_id', 'please login/signup to redeem the coupon code', { code: 400 });
export const onlyOneCouponLV = () =>
  new DomainError('invalid', 'Invalid payload', 'only one coupon can be applied per request', { code: 400 });
export const bodyNotObject = () => new DomainError('invalid', 'Invalid payload', 'the request body should be a JSON object', { code: 400 });
