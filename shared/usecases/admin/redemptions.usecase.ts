/** Admin read of the redemption journal. */
import type { Services } from '../../services.js';
import { adminNotFound } from './admin-errors.js';
import { requireApplication } from './applications.usecase.js';

type Deps = Pick<Services, 'repos'>;

export async function listRedemptions(deps: Deps, applicationId: string, query: { customer?: string; limit: number }) {
  await requireApplication(deps, applicationId);
  let customerId: string | undefined;
  if (query.customer) {
    const c = await deps.repos.customers.resolve(applicationId, query.customer);
    if (!c) throw adminNotFound('customer');
    customerId = c.id;
  }
  const rows = await deps.repos.redemptions.list(applicationId, { customerId, limit: query.limit });
  return {
    redemptions: rows.map((r) => ({
      id: r.id,
      campaign_id: r.campaignId,
      customer_id: r.customerId,
      order_id: r.orderId,
      cycle: r.cycle,
      state: r.state,
      coupon_code: r.code,
      discount: r.discountCents / 100,
      cashback: r.cashbackCents / 100,
      periods: r.periods,
      refusal: r.refusal,
    })),
  };
}
