/**
 * What a cart carries when its application stacks (docs/stacking.md): the coupons its
 * `coupon_details` name, found as for one coupon, and the automatic promotions it may get; their
 * usage in one round trip. Validate, redeem and the best deal gather a stack here and compute it
 * with shared/domain/stacking.ts.
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import type { CustomerRecord } from '../data/customer.repository.js';
import type { PeriodKeys } from '../data/limit-counter.repository.js';
import type { StackCandidate } from '../domain/stacking.js';
import type { Campaign } from '../domain/types.js';
import type { Services } from '../services.js';
import { findCoupon, type FoundCoupon } from './find-coupon.js';
import { readUsage } from './limit-counters.js';

/** One campaign on the cart: a coupon an entry named (`entry` its index), or an automatic promotion (`entry` null). */
export interface CartCoupon extends FoundCoupon {
  entry: number | null;
}

/** Whether a campaign is offered to this customer (assigned campaigns: only to their customers). */
export const offeredTo = (campaign: Campaign, customer: Pick<CustomerRecord, 'id'> | null): boolean =>
  campaign.assignment !== 'assigned_users' || (!!customer && campaign.assignedCustomerIds.includes(customer.id));

/** Finds every entry's coupon (null where an entry names none), in the entries' order. */
export const findEntries = (
  deps: Pick<Services, 'campaigns' | 'repos'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion'>,
  details: readonly Record<string, unknown>[],
): Promise<(FoundCoupon | null)[]> => Promise.all(details.map((d) => findCoupon(deps, app, d)));

/** The automatic promotions a customer's cart gets, oldest first (none unless the application takes them). */
export async function automaticPromotions(
  deps: Pick<Services, 'campaigns'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'stacking'>,
  customer: Pick<CustomerRecord, 'id'> | null,
): Promise<CartCoupon[]> {
  if (!app.stacking.automaticPromotions) return [];
  const set = await deps.campaigns.get(app);
  return set.automatic
    .filter((c) => offeredTo(c, customer))
    .map((campaign) => ({ campaign, bulkCodeId: null, couponCodeId: campaign.id, code: '', entry: null }));
}

/** The stack's candidates with their usage now, read in one round trip. */
export async function withUsage(
  deps: Pick<Services, 'repos'>,
  applicationId: string,
  coupons: readonly CartCoupon[],
  customerId: string | null,
  periods: PeriodKeys,
): Promise<StackCandidate[]> {
  const campaigns = [...new Map(coupons.map((c) => [c.campaign.id, c.campaign])).values()];
  const bulkCodes = new Map<string, string>();
  for (const c of coupons) if (c.bulkCodeId && !bulkCodes.has(c.campaign.id)) bulkCodes.set(c.campaign.id, c.bulkCodeId);
  const usage = await readUsage(deps, applicationId, campaigns, customerId, periods, (id) => bulkCodes.get(id) ?? null);
  return coupons.map((c) => ({ campaign: c.campaign, usage: usage.get(c.campaign.id)! }));
}
