/**
 * A wallet's tiers in the admin format (docs/wallets.md "Tiers"; points in points, multipliers as
 * factors) and a customer's tier as the admin API and the console show it. Stored on the wallet as
 * the domain's program (shared/domain/tiers.ts).
 */
import Joi from 'joi';
import { fromHundredths, toHundredths } from '../../domain/points.js';
import {
  MAX_ROLLING_MONTHS,
  TIER_PERIODS,
  tierProgress,
  type TierContext,
  type TierPeriod,
  type TierProgram,
  type TierRecord,
} from '../../domain/tiers.js';
import { adminInvalid } from '../../admin-errors.js';

/** At most this many levels per wallet. */
export const MAX_TIER_LEVELS = 10;

const levelSchema = Joi.object({
  name: Joi.string().trim().min(1).max(50).required(),
  min_points: Joi.number().min(0).max(1e9).precision(2).required(),
  earning_multiplier: Joi.number().min(0).max(100).precision(2).default(1),
});

/**
 * `{period, levels}` (a calendar month, quarter or year, assessed at its end) or `{rolling_months,
 * levels}` (the last N months, assessed at every month end); null: no tiers.
 */
export const tiersSchema = Joi.object({
  period: Joi.string().valid(...TIER_PERIODS),
  rolling_months: Joi.number().integer().min(1).max(MAX_ROLLING_MONTHS),
  levels: Joi.array().items(levelSchema).min(1).max(MAX_TIER_LEVELS).required(),
})
  .xor('period', 'rolling_months')
  .allow(null);

export interface TiersInput {
  period?: TierPeriod;
  rolling_months?: number;
  levels: { name: string; min_points: number; earning_multiplier: number }[];
}

/** The admin's tiers as the domain's program; 400 unless the first level starts at 0 and each next one needs more, with unique names. */
export function toTierProgram(v: TiersInput | null): TierProgram | null {
  if (!v) return null;
  const levels = v.levels.map((l) => ({
    name: l.name,
    minHundredths: toHundredths(l.min_points),
    multiplier: Math.round(l.earning_multiplier * 100),
  }));
  // Each refusal names its field as a Joi refusal does (`tiers.levels.2.min_points`): the console shows it beside the level.
  const refuse = (path: string, message: string) => adminInvalid(message, { [path]: message });
  if (levels[0]!.minHundredths !== 0)
    throw refuse('tiers.levels.0.min_points', '"tiers.levels[0].min_points" must be 0: every customer is at the first level');
  levels.forEach((l, i) => {
    if (i > 0 && l.minHundredths <= levels[i - 1]!.minHundredths)
      throw refuse(`tiers.levels.${i}.min_points`, `"tiers.levels[${i}].min_points" must be more than the level before it`);
    if (levels.findIndex((o) => o.name.toLowerCase() === l.name.toLowerCase()) !== i)
      throw refuse(`tiers.levels.${i}.name`, `"tiers.levels[${i}].name" is used twice`);
  });
  const basis = v.period ? { kind: 'calendar' as const, period: v.period } : { kind: 'rolling' as const, months: v.rolling_months! };
  return { basis, levels };
}

/** The domain's program in the admin format. */
export function fromTierProgram(p: TierProgram | null) {
  if (!p) return null;
  return {
    ...(p.basis.kind === 'calendar' ? { period: p.basis.period } : { rolling_months: p.basis.months }),
    levels: p.levels.map((l) => ({ name: l.name, min_points: fromHundredths(l.minHundredths), earning_multiplier: l.multiplier / 100 })),
  };
}

/**
 * A customer's tier as the admin API shows it: the level, the level held until the period ends,
 * the points earned in the window, and the next level with the points still needed (null at the top).
 */
export function presentTier(ctx: TierContext, state: TierRecord | undefined, now: Date) {
  const p = tierProgress(ctx, state, now);
  return {
    level: p.level.name,
    held_level: p.held,
    until: p.until,
    earned_points: fromHundredths(p.earnedHundredths),
    earning_multiplier: p.level.multiplier / 100,
    next_level: p.next ? { name: p.next.name, points_needed: fromHundredths(p.next.neededHundredths) } : null,
  };
}
