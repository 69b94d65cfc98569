/** Evaluation of one condition against a value (already in cents for money fields). */
import type { Condition, Scalar } from './types.js';

const NUMERIC = new Set(['gt', 'gte', 'lt', 'lte']);

/** True when `actual` satisfies `c`. A type mismatch fails (never throws). */
export function holds(c: Condition, actual: Scalar): boolean {
  const expected = c.value;
  if (NUMERIC.has(c.operator)) {
    if (typeof actual !== 'number' || typeof expected !== 'number') return false;
    switch (c.operator) {
      case 'gt':
        return actual > expected;
      case 'gte':
        return actual >= expected;
      case 'lt':
        return actual < expected;
      default:
        return actual <= expected;
    }
  }
  const list = Array.isArray(expected) ? expected : [expected];
  const eq = (v: Scalar) => (typeof v === 'string' && typeof actual === 'string' ? v.toLowerCase() === actual.toLowerCase() : v === actual);
  switch (c.operator) {
    case 'eq':
    case 'in':
      return list.some(eq);
    default:
      return !list.some(eq);
  }
}
