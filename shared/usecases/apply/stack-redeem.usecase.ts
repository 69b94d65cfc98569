/**
 * Several coupons on one order, redeemed all or nothing (docs/stacking.md), worker side. Written
 * like the single redeem (redeem-coupon.usecase.ts) to be re-run from any line, and with the same
 * counters' protocol, but with one commit point for every coupon: the order's stack record
 * (stack-journal.ts). Steps: the order's stacks decide (this job's own, an order redeemed already,
 * or the next stack number); the stack is computed (rules against the cart, the counters
 * arbitrate the limits); every applied coupon's counters are taken under one stack attempt; the
 * stack record commits them all; the cycles are written and the cashback credited from it; the
 * lanes are freed. An entry refused at the counters refuses the whole redeem (journaled, so that
 * overlapping runs agree); an automatic promotion refused there is left out and the stack is
 * computed again without it.
 */
import { customerTiers } from '../customer-tiers.js';
import { redemptionKey, stackKey, type CycleFields, type StackRecord } from '../../data/redemption-journal.repository.js';
import { budgetCents, budgetRefusal } from '../../domain/budget.js';
import type { DiscountResult } from '../../domain/discount.js';
import * as M from '../../domain/messages.js';
import { localParts, periodKeys } from '../../domain/periods.js';
import { stackCoupons, type StackedCoupon, type StackResult } from '../../domain/stacking.js';
import type { Campaign, UsageCounts } from '../../domain/types.js';
import type { DomainError } from '../../errors.js';
import type { StackRedeemInput } from '../../queue/job-payloads.js';
import type { Services } from '../../services.js';
import { couponNotFound, orderOfAnotherCustomer, refusalOf } from '../../client-errors.js';
import type { JobRun } from '../job-run.js';
import { changeOfCycle, countersFor, newStackAttempt, reserveAll, resultsCounter, undoAll } from '../limit-counters.js';
import { automaticPromotions, withUsage, type CartCoupon } from '../stack.js';
import { applicationAsSeen, MAX_ROUNDS, type StackApplyResult } from './apply-common.js';
import { budgetLeftAt, refusalAt } from './redeem-coupon.usecase.js';
import { clearStackLanes, stackResult, writeStackCycles } from './stack-journal.js';
import { failpoint } from '../failpoint.js';

const ZERO_USAGE: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

/** What an order's stack records decide before anything is counted (see {@link decideRedeem} for one coupon). */
export type StackDecision = { done: StackRecord; own: boolean } | { refuse: DomainError } | { cycle: number };

export function decideStack(input: Pick<StackRedeemInput, 'customerId'>, stacks: StackRecord[], jobId: string): StackDecision {
  const own = stacks.find((s) => s.redeemJobId === jobId);
  if (own?.state === 'refused') return { refuse: refusalOf(own.refusal!.reason, own.refusal!.message) };
  if (own) return { done: own, own: true };
  const latest = stacks.at(-1);
  if (latest?.state === 'completed') {
    if (latest.customerId !== input.customerId) return { refuse: orderOfAnotherCustomer() };
    return { done: latest, own: false }; // the order is redeemed already (docs/decisions.md#17)
  }
  return { cycle: (latest?.cycle ?? 0) + 1 };
}

/** The first entry (in the request's order) the stack left out, with why. */
const firstRefusedEntry = (coupons: readonly CartCoupon[], stack: StackResult) =>
  coupons.flatMap((c, i) => (c.entry !== null && stack.coupons[i]!.refusal ? [stack.coupons[i]!.refusal!] : []))[0];

/** The coupons of a stacked redeem: the entries as the API found them, then the automatic promotions not excluded. */
async function cartOf(deps: Pick<Services, 'applications' | 'campaigns'>, input: StackRedeemInput, excluded: ReadonlySet<string>) {
  const app = await applicationAsSeen(deps, input.applicationId, input.configVersion);
  if (!app) throw couponNotFound();
  const set = await deps.campaigns.get(app);
  const entries = input.entries.map((e, entry): CartCoupon => {
    const campaign = set.byId.get(e.campaignId);
    if (!campaign) throw couponNotFound();
    return { campaign, bulkCodeId: e.bulkCodeId, couponCodeId: e.bulkCodeId ?? campaign.id, code: e.code, entry };
  });
  const automatic = (await automaticPromotions(deps, app, { id: input.customerId })).filter((c) => !excluded.has(c.campaign.id));
  return { app, coupons: [...entries, ...automatic] };
}

/** A stacked coupon's amounts as one coupon's result (what a budget counts and checks). */
const resultOfStacked = (c: StackedCoupon): DiscountResult => ({
  totalDiscountCents: c.discountCents,
  totalCashbackCents: c.cashbackCents,
  totalAmountCents: 0,
  itemDiscountCents: c.itemDiscountCents,
  ...(c.freeGifts ? { freeGifts: c.freeGifts } : {}),
});

/** What a stacked coupon counts in its campaign's budget. */
const budgetOf = (c: StackedCoupon): number => budgetCents(resultOfStacked(c));

/** Worker side of a stacked redeem (see the file's header). */
export async function redeemStack(
  deps: Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now' | 'config'>,
  input: StackRedeemInput,
  run: JobRun,
): Promise<StackApplyResult> {
  const excluded = new Set<string>();
  const answer = (stack: StackRecord) =>
    stackResult(
      stack,
      { orderId: input.orderId, requestId: input.requestId, first: { couponId: input.entries[0]!.couponId, code: input.entries[0]!.code } },
      'completed',
    );
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { app, coupons } = await cartOf(deps, input, excluded);
    const now = deps.now();
    const periods = periodKeys(now, app.timezone);
    const tiers = await customerTiers(
      deps,
      app.id,
      input.customerId,
      coupons.map((c) => c.campaign),
    );
    const common = { now, timezone: app.timezone, customerKnown: true, order: input.order, ...(tiers ? { customerTiers: tiers } : {}) };
    // The rules against the cart (the counters arbitrate the limits), then one read of the order's
    // stack records and of its cycles with the coupons that apply.
    const stack = stackCoupons({ ...common, candidates: coupons.map((c) => ({ campaign: c.campaign, usage: ZERO_USAGE })) });
    const applied = stack.tried.filter((i) => stack.coupons[i]!.position !== null);
    const journal = await deps.repos.redemptions.orderJournal(
      app.id,
      input.orderId,
      applied.map((i) => coupons[i]!.campaign.id),
    );
    const d = decideStack(input, journal.stacks, run.jobId);
    if ('refuse' in d) throw d.refuse;
    if ('done' in d) {
      if (d.own && d.done.state === 'completed') {
        // A re-run: finish what the first run may not have.
        await writeStackCycles(deps, d.done, null);
        await clearStackLanes(deps, d.done, d.done.attempt, 1, run.lane);
      }
      return answer(d.done);
    }
    const n = d.cycle;
    if (firstRefusedEntry(coupons, stack)) {
      // A rule refuses an entry: the refusal validate gives, limits first (docs/decisions.md#20a) — read the real usage.
      const real = stackCoupons({ ...common, candidates: await withUsage(deps, app.id, coupons, input.customerId, periods) });
      const refused = firstRefusedEntry(coupons, real) ?? firstRefusedEntry(coupons, stack)!;
      throw refusalOf(refused.reason, refused.message);
    }
    // Each applied coupon's cycle: its campaign's next for this order; one it counts in already refuses.
    const cycleLists = applied.map((i) => journal.cycles.get(coupons[i]!.campaign.id)!);
    for (const cycles of cycleLists) {
      const live = cycles.filter((c) => c.state === 'completed').at(-1);
      if (live && live.customerId !== input.customerId) throw orderOfAnotherCustomer();
      if (live) throw refusalOf('stacking_duplicate', M.STACKING_DUPLICATE);
    }
    const key = stackKey(app.id, input.orderId, n);
    // Each coupon's counters: its limits' and its campaign's results of this local day and hour (docs/results.md).
    const hour = deps.config.resultsCounters ? localParts(now, app.timezone).hour : undefined;
    const countersOf = (c: (typeof coupons)[number]) => [
      ...countersFor(c.campaign, app.id, input.customerId, c.bulkCodeId),
      ...(hour !== undefined ? [resultsCounter(c.campaign, app.id, periods.day)] : []),
    ];
    const attempt = newStackAttempt(n);
    const fields: CycleFields[] = applied.map((i, k) => {
      const c = coupons[i]!;
      const amounts = stack.coupons[i]!;
      const cycle = (cycleLists[k]!.at(-1)?.cycle ?? 0) + 1;
      return {
        applicationId: app.id,
        campaignId: c.campaign.id,
        customerId: input.customerId,
        couponCodeId: c.bulkCodeId,
        orderId: input.orderId,
        cycle,
        key: redemptionKey(c.campaign.id, input.orderId, cycle),
        couponId: c.entry !== null ? input.entries[c.entry]!.couponId : c.campaign.id,
        code: c.code,
        discountCents: amounts.discountCents,
        cashbackCents: amounts.cashbackCents,
        ...(c.campaign.budget ? { budgetCents: budgetOf(amounts) } : {}),
        ...(stack.order?.sellingSubtotalCents ? { basketCents: stack.order.sellingSubtotalCents } : {}),
        ...(hour !== undefined ? { hour } : {}),
        ...(amounts.freeGifts?.length ? { gifts: amounts.freeGifts } : {}),
        cashbackWallet: c.campaign.discount.kind === 'cashback' ? (c.campaign.discount.walletId ?? null) : null,
        periods,
        counters: countersOf(c).map((s) => s.id),
        refusal: null,
        redeemJobId: run.jobId,
        stack: key,
      };
    });
    const taken = await Promise.all(
      applied.map((i, k) => reserveAll(deps, countersOf(coupons[i]!), { ...changeOfCycle(fields[k]!, attempt, 1), lane: run.lane })),
    );
    const undo = () => Promise.all(taken.map((t) => undoAll(deps, t.changed, run.lane, t.entry)));
    const record = {
      state: 'completed' as const,
      applicationId: app.id,
      customerId: input.customerId,
      orderId: input.orderId,
      cycle: n,
      cycles: fields as unknown as Record<string, unknown>[],
      refusal: null,
      redeemJobId: run.jobId,
      revertJobId: null,
      attempt,
      revertAttempt: null,
    };
    if (taken.some((t) => t.refused.length > 0)) {
      await undo();
      let entryRefusal: { reason: NonNullable<CycleFields['refusal']>['reason']; message: string } | null = null;
      for (const [k, t] of taken.entries()) {
        const coupon = coupons[applied[k]!]!;
        const asked = stack.coupons[applied[k]!]!;
        const found = t.refused.length > 0 ? refusalAt(coupon.campaign as Campaign, t.refused, periods, resultOfStacked(asked)) : null;
        // In a stack a budget is never cut (the coupons after it were computed on what it took): cap refuses too.
        const r = found && 'capTo' in found ? budgetRefusal(budgetLeftAt(coupon.campaign as Campaign, t.refused, periods)) : found;
        if (!r) continue; // not refused, or freed meanwhile
        if (coupon.entry === null)
          excluded.add(coupon.campaign.id); // an automatic promotion sold out: left out
        else entryRefusal ??= { reason: r.reason, message: r.message };
      }
      if (!entryRefusal) continue; // computed again without the promotions that sold out (or freed meanwhile)
      // Journaled, so that a run of this job overlapping this one (a lost lock) reaches the same answer.
      if (await deps.repos.redemptions.commitStack(key, attempt, { ...record, state: 'refused', cycles: [], refusal: entryRefusal }))
        throw refusalOf(entryRefusal.reason, entryRefusal.message);
      continue; // the stack was written meanwhile: follow it
    }
    failpoint(deps, 'stack-after-reserve');
    if (!(await deps.repos.redemptions.commitStack(key, attempt, record))) {
      await undo(); // written meanwhile (a re-run, a repeat) or this attempt abandoned by a settle: follow the journal
      continue;
    }
    failpoint(deps, 'stack-after-commit');
    const committed: StackRecord = { ...record, key, cycles: fields };
    await writeStackCycles(deps, committed, run);
    failpoint(deps, 'stack-after-cycles');
    await clearStackLanes(deps, committed, attempt, 1, run.lane);
    return answer(committed);
  }
  throw new Error(`stacked redeem made no progress for order ${input.orderId}`);
}
