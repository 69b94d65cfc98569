/** Error bodies of the admin API (outside the client contract; documented in docs/admin-api.md). */
import type Joi from 'joi';
import { DomainError } from '../../errors.js';

export const adminInvalid = (details: string, fields?: Record<string, string>) =>
  new DomainError('invalid', 'Invalid payload', details, { code: 400, ...(fields ? { fields } : {}) });
export const adminNotFound = (
  what: 'application' | 'campaign' | 'customer' | 'wallet' | 'webhook' | 'event' | 'operator' | 'token' | 'session',
) => new DomainError('not_found', 'resource not found', `${what} not found`, { code: 404 });
/** What `lookup` found, or the 404 naming `what`. */
export async function foundOr404<T>(lookup: Promise<T | null>, what: Parameters<typeof adminNotFound>[0]): Promise<T> {
  const found = await lookup;
  if (found === null) throw adminNotFound(what);
  return found;
}
/** Good credentials that may not do this: an operator's role, or an application it is not given (docs/admin-api.md#operators). */
export const adminForbidden = (details: string) => new DomainError('forbidden', 'Forbidden', details, { code: 403 });
/** The API process has no job queues (a queued admin change cannot be made). */
export const queuesNotConnected = () =>
  new DomainError('unavailable', 'Service Unavailable', 'the queues are not connected', { code: 503 });
/** A duplicate id or code, or a delete or archive that what depends on the resource refuses. */
export const adminConflict = (details: string, field?: string) =>
  new DomainError('conflict', 'conflict', details, { code: 409, ...(field ? { fields: { [field]: details } } : {}) });

/**
 * Validates with joi; a failure is a 400 whose details name every bad field. JSON bodies are taken
 * as typed (no conversion); a query string carries every value as text, so `query` converts
 * (`limit=20` is the number 20).
 */
export function validateInput<T>(schema: Joi.Schema<T>, input: unknown, opts: { query?: boolean } = {}): T {
  const { value, error } = schema.validate(input, { abortEarly: false, convert: opts.query ?? false });
  if (error) throw adminInvalid(error.details.map((d) => d.message).join('; '), fieldsOf(error.details));
  return value as T;
}

/**
 * Each bad input by its path (`discount.value`, `codes.3`: array items by index) — the first
 * problem of each — so a form can say it beside the field (docs/admin-api.md#errors).
 */
function fieldsOf(details: Joi.ValidationErrorItem[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const d of details) {
    const path = d.path.length > 0 ? d.path.join('.') : '(body)';
    fields[path] ??= d.message;
  }
  return fields;
}
