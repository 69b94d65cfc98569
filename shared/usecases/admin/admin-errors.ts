/** Error bodies of the admin API (outside the client contract; documented in docs/admin-api.md). */
import type Joi from 'joi';
import { DomainError } from '../../errors.js';

export const adminInvalid = (details: string) => new DomainError('invalid', 'Invalid payload', details, { code: 400 });
export const adminNotFound = (what: 'application' | 'campaign' | 'customer' | 'wallet' | 'webhook' | 'event') =>
  new DomainError('not_found', 'resource not found', `${what} not found`, { code: 404 });

/** Validates with joi; a failure is a 400 whose details name every bad field. */
export function validateInput<T>(schema: Joi.Schema<T>, input: unknown): T {
  const { value, error } = schema.validate(input, { abortEarly: false, convert: false });
  if (error) throw adminInvalid(error.details.map((d) => d.message).join('; '));
  return value as T;
}
