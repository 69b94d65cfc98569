/** The admin API's points settings (docs/wallets.md): a wallet's expiry and pending period, a cashback campaign's pending period. */
import Joi from 'joi';
import type { PendingRule } from '../../domain/point-buckets.js';

/**
 * `points_expiry` (docs/wallets.md): a fixed time after the points become spendable (`after`, with
 * `amount` and `unit`), or the end of a calendar period (`end_of`, with `period`). Written with
 * `when` rather than alternatives, so a refusal names the field and the bound (`"points_expiry.amount"
 * must be greater than or equal to 1`), not "does not match any of the allowed types".
 */
export const expirySchema = Joi.object({
  kind: Joi.string().valid('after', 'end_of').required(),
  amount: Joi.when('kind', { is: 'after', then: Joi.number().integer().min(1).max(3650).required(), otherwise: Joi.forbidden() }),
  unit: Joi.when('kind', { is: 'after', then: Joi.string().valid('days', 'months').required(), otherwise: Joi.forbidden() }),
  period: Joi.when('kind', { is: 'end_of', then: Joi.string().valid('month', 'quarter', 'year').required(), otherwise: Joi.forbidden() }),
}).allow(null);
/** `pending` (docs/wallets.md): credits wait N days, or until an instant (ISO 8601), before they can be spent. */
export const pendingSchema = Joi.object({
  days: Joi.number().integer().min(1).max(3650),
  until: Joi.string().isoDate(),
})
  .xor('days', 'until')
  .allow(null);

/** The pending rule as stored (an `until` as a normalised ISO instant). */
export const pendingRuleOf = (v: { days?: number; until?: string } | null | undefined): PendingRule =>
  !v ? null : v.until !== undefined ? { until: new Date(v.until).toISOString() } : { days: v.days! };
