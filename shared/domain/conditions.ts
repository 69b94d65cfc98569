/**
 * Evaluation of conditions (cart conditions, selected-items validations, product validations,
 * selector property tests). Values for money fields are already in cents on both sides.
 */
import type { Condition, Scalar } from './types.js';

/** Strings compare case-insensitively (docs/campaigns.md): `UPI` and `upi` are one payment mode. */
function same(a: Scalar, b: Scalar): boolean {
  return typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function compare(operator: 'gt' | 'gte' | 'lt' | 'lte', actual: number, expected: number): boolean {
  switch (operator) {
    case 'gt':
      return actual > expected;
    case 'gte':
      return actual >= expected;
    case 'lt':
      return actual < expected;
    case 'lte':
      return actual <= expected;
  }
}

/**
 * True when `actual` satisfies `c`.
 *
 * - `gt`/`gte`/`lt`/`lte` need numbers on both sides; anything else fails (a type mismatch is a
 *   failed rule, never an exception).
 * - `eq`/`in` hold when `actual` equals the value or one of the values; `neq`/`nin` when it
 *   equals none. A scalar value and a one-element list mean the same.
 */
export function holds(c: Condition, actual: Scalar): boolean {
  const expected = c.value;
  switch (c.operator) {
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return typeof actual === 'number' && typeof expected === 'number' && compare(c.operator, actual, expected);
    case 'eq':
    case 'in':
      return (Array.isArray(expected) ? expected : [expected]).some((v) => same(v, actual));
    case 'neq':
    case 'nin':
      return !(Array.isArray(expected) ? expected : [expected]).some((v) => same(v, actual));
    default:
      return false; // an operator this engine does not know never holds
  }
}

/**
 * The first condition, in configured order, that fails (list rule 5):
 * - a field that has a value is tested with {@link holds};
 * - a field with no value (`undefined`: not sent, or metadata dropped for a wrong type) fails
 *   when it is mandatory, and is skipped when it is optional.
 *
 * @param valueOf - the value of a field, or undefined when it was not sent
 * @param isMandatory - whether a missing field fails its condition
 * @returns the failing condition, or undefined when all hold (AND)
 */
export function firstFailing(
  conditions: readonly Condition[],
  valueOf: (field: string) => Scalar | undefined,
  isMandatory: (field: string) => boolean,
): Condition | undefined {
  return conditions.find((c) => !conditionHolds(c, valueOf(c.field), isMandatory));
}

/**
 * One condition against its field's value: {@link holds} when the field has a value; when it has
 * none (`undefined`), it fails if the field is mandatory and passes (is skipped) if optional.
 */
export function conditionHolds(c: Condition, value: Scalar | undefined, isMandatory: (field: string) => boolean): boolean {
  return value === undefined ? !isMandatory(c.field) : holds(c, value);
}
