/** Contract error bodies of the wallet routes (the contract's error bodies (openapi.yaml), docs/decisions.md#10, #21, #22). */
import { DomainError } from '../errors.js';

export const customerNotFound = () =>
  new DomainError('not_found', 'resource not found', 'customer not found', { code: 404, reason: 'customer_not_found' });
export const walletNotFound = () =>
  new DomainError('not_found', 'resource not found', 'wallet not found', { code: 404, reason: 'wallet_not_found' });
export const typeMissing = () =>
  new DomainError('invalid', 'type field is required', 'type field is required', { code: 401, key: 'type', reason: 'type_missing' });
export const payloadEmpty = () =>
  new DomainError('invalid', 'Invalid payload', 'The payload cannot be empty', { code: 400, key: 'invalid_payload' });
export const invalidField = (key: string, details: string) => new DomainError('invalid', 'Invalid payload', details, { code: 400, key });
export const insufficientPoints = (balance: number, requested: number) =>
  new DomainError('invalid', 'insufficient points', `balance is ${balance}, requested ${requested}`, {
    code: 400,
    key: 'points',
    reason: 'insufficient_points',
  });
