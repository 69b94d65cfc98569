/**
 * A redeem of a completed order as the order's report (docs/wallets.md "A redeem as the order's
 * report"), for an application that opted in (`loyalty.earn_on_redeem`): once the redeem is
 * committed, the order earns in each of the application's wallets with earning rules, as a report
 * of it would — under the same txn id (`order:<wallet>:<order_id>`), so a report of the same order
 * (before or after) and a re-run of the redeem post once between them. A revert is the order
 * cancelled: what it earned is taken back as a return takes it back.
 *
 * A campaign's `earning_multiplier` multiplies the points (the highest of the order's campaigns).
 * What the order earns on is what the customer pays: the subtotal bases less the redemption's
 * discounts on the goods, the shipping base less its shipping discounts (item bases: the lines as
 * sent; the cycles record no per-item amounts). An order sent as `pending` earns nothing here: the
 * storefront reports it when it completes. Both steps run after the use case on every run of the
 * job, re-runs included (each is idempotent), so a worker killed between the redeem's commit and
 * the earning leaves the earning to the re-run.
 */
import { orderEarns } from '../../domain/earning.js';
import { parseOrder, type ParsedOrder } from '../../domain/order.js';
import { toHundredths } from '../../domain/points.js';
import type { Campaign } from '../../domain/types.js';
import type { Services } from '../../services.js';
import { failpoint } from '../failpoint.js';
import type { JobRun } from '../job-run.js';
import { postOrderEarning, takeBackOrderEarning } from '../order-report.usecase.js';
import { creditRulesOf, customerTierMultiplier, MAX_POINTS, tierContextOf } from '../wallet-operation.usecase.js';
import { applicationAsSeen } from './apply-common.js';

type Deps = Pick<Services, 'repos' | 'applications' | 'campaigns' | 'now' | 'config'>;

/** What a job names: the order, and for a one-coupon redeem its campaign (a stacked one: the order's stack). */
interface RedeemedOrder {
  applicationId: string;
  customerId: string;
  orderId: string;
  order: unknown;
  campaignId?: string;
  configVersion?: number;
}

const isShipping = (c: Pick<Campaign, 'discountCalculatedOn' | 'discount'>) =>
  c.discountCalculatedOn === 'shipping' || c.discount.type === 'free_shipping';

/** The order as the customer pays it: the goods' and the shipping's discounts taken off their subtotals. */
export function paidOrder(order: ParsedOrder, discounts: readonly { cents: number; shipping: boolean }[]): ParsedOrder {
  const off = (shipping: boolean) => discounts.filter((d) => d.shipping === shipping).reduce((n, d) => n + d.cents, 0);
  return {
    ...order,
    sellingSubtotalCents: Math.max(0, order.sellingSubtotalCents - off(false)),
    originalSubtotalCents: Math.max(0, order.originalSubtotalCents - off(false)),
    ...(order.shippingCents !== undefined ? { shippingCents: Math.max(0, order.shippingCents - off(true)) } : {}),
  };
}

/** The order's committed redemption: its cycles' campaigns and discounts (none: not redeemed, or reverted). */
async function redeemedCycles(deps: Deps, input: RedeemedOrder) {
  if (input.campaignId) {
    const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
    const last = cycles.filter((c) => c.state !== 'refused').at(-1);
    return last?.state === 'completed' && last.customerId === input.customerId ? [last] : [];
  }
  const stacks = await deps.repos.redemptions.stacks(input.applicationId, input.orderId);
  const last = stacks.filter((s) => s.state !== 'refused').at(-1);
  return last?.state === 'completed' && last.customerId === input.customerId ? last.cycles : [];
}

/** After a redeem: the order earns in every wallet with earning rules (see the file's comment). */
export async function earnOnRedeem(deps: Deps, input: RedeemedOrder, run: Pick<JobRun, 'observe'>): Promise<void> {
  const app = await applicationAsSeen(deps, input.applicationId, input.configVersion);
  if (!app?.loyalty.earnOnRedeem) return;
  const parsed = parseOrder(input.order);
  if (!parsed.ok || parsed.order.status !== 'completed') return;
  failpoint(deps, 'redeem-before-earning');
  const [cycles, wallets, campaigns] = await Promise.all([
    redeemedCycles(deps, input),
    deps.repos.wallets.listByApplication(app.id),
    deps.campaigns.get(app),
  ]);
  if (cycles.length === 0) return; // reverted meanwhile: a revert takes back, a redeem does not earn
  const redeemed = cycles.map((c) => ({ cycle: c, campaign: campaigns.byId.get(c.campaignId) }));
  const discounts = redeemed.map(({ cycle, campaign }) => ({
    cents: cycle.discountCents,
    shipping: campaign ? isShipping(campaign) : false,
  }));
  const paid = paidOrder(parsed.order, discounts);
  // The campaigns' points multiplier: the highest of those that set one (0: no points with it); none set: 1×.
  const set = redeemed.flatMap(({ campaign }) => (campaign?.earningMultiplier != null ? [campaign.earningMultiplier] : []));
  const campaignMultiplier = set.length > 0 ? Math.max(...set) : 100;
  await Promise.all(
    wallets
      .filter((w) => !w.archivedAt && w.earningRules?.length)
      .map(async (wallet) => {
        const tierMultiplier = await customerTierMultiplier(deps, app.id, input.customerId, wallet);
        const earned = orderEarns(wallet.earningRules, paid, { campaignMultiplier, tierMultiplier });
        // Beyond what a wallet update may move: the report route refuses such an order; a redeem cannot, so it earns nothing.
        if (earned.hundredths > toHundredths(MAX_POINTS)) return;
        const rules = creditRulesOf(wallet);
        await postOrderEarning(
          deps,
          {
            applicationId: app.id,
            customerId: input.customerId,
            walletDbId: wallet.id,
            walletId: wallet.walletId,
            orderId: input.orderId,
            tiers: tierContextOf(wallet),
          },
          {
            points: earned.hundredths,
            ...(rules ? { rules } : {}),
            ...(earned.rules.some((r) => r.cap)
              ? {
                  earning: {
                    timezone: wallet.timezone,
                    rules: earned.rules.map((r) => ({ rule: r.name, hundredths: r.hundredths, cap: r.cap })),
                  },
                }
              : {}),
          },
          run,
        );
      }),
  );
}

/** After a revert: what the order earned is taken back in every wallet of the application (a void where it earned nothing). */
export async function takeBackOnRevert(
  deps: Deps,
  input: Pick<RedeemedOrder, 'applicationId' | 'customerId' | 'orderId'>,
  run: Pick<JobRun, 'observe'>,
): Promise<void> {
  const app = await deps.applications.get(input.applicationId);
  if (!app?.loyalty.earnOnRedeem) return;
  failpoint(deps, 'revert-before-taking-back');
  const wallets = await deps.repos.wallets.listByApplication(app.id);
  await Promise.all(
    wallets.map((wallet) =>
      takeBackOrderEarning(
        deps,
        {
          applicationId: app.id,
          customerId: input.customerId,
          walletDbId: wallet.id,
          walletId: wallet.walletId,
          orderId: input.orderId,
          tiers: tierContextOf(wallet),
        },
        run,
      ),
    ),
  );
}
