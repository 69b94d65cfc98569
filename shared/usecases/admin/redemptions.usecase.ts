/** Admin read of the redemption journal. */
import type { Services } from '../../services.js';
import { adminNotFound } from './admin-errors.js';
import { requireApplication } from './applications.usecase.js';
import { requireCustomer } from './customers.usecase.js';
import { pageOf, parsePageQuery, timeCursor } from './paging.js';

type Deps = Pick<Services, 'repos'>;

/**
 * A page of the journal, newest first, optionally of one customer (its `source_id` or id,
 * archived or not) and/or one campaign (archived or not).
 */
export async function listRedemptions(deps: Deps, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const q = parsePageQuery(query, ['customer', 'campaign']);
  const customerId = q.customer !== undefined ? (await requireCustomer(deps, applicationId, q.customer)).id : undefined;
  if (q.campaign !== undefined && !(await deps.repos.campaigns.findById(applicationId, q.campaign))) throw adminNotFound('campaign');
  const rows = await deps.repos.redemptions.list(applicationId, {
    ...(customerId ? { customerId } : {}),
    ...(q.campaign !== undefined ? { campaignId: q.campaign } : {}),
    ...(q.cursor !== undefined ? { before: timeCursor.decode(q.cursor) } : {}),
    limit: q.limit + 1,
  });
  const page = pageOf(rows, q.limit, (r) => timeCursor.encode(r.createdAt, r.id));
  return {
    redemptions: page.rows.map((r) => ({
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
      created_at: r.createdAt,
    })),
    next_cursor: page.next_cursor,
  };
}
