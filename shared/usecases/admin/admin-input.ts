/** How the admin use cases read their input: joi validation into the admin API's 400, and lookups into its 404. */
import type Joi from 'joi';
import { adminInvalid, adminNotFound, type AdminResource } from '../../admin-errors.js';

/** What `lookup` found, or the 404 naming `what`. */
export async function foundOr404<T>(lookup: Promise<T | null>, what: AdminResource): Promise<T> {
  const found = await lookup;
  if (found === null) throw adminNotFound(what);
  return found;
}

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
