/**
 * The backtest's replay (shared/domain/backtest.ts), pure: recorded carts in, figures out — limits
 * and budgets on counters of its own, the moment each ran out, reverts given back, periods that
 * start again, what changes against the record, and a draft against nothing.
 */
import { expect } from 'chai';
import { BacktestReplay, CHANGED_LISTED, type RecordedOutcome, type ReplayCart } from '../../shared/domain/backtest.js';
import type { Campaign } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';
import { makeOrder } from '../fixtures/records.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const LIVE = makeCampaign({ id: 'live' });

/** A recorded redeem of a 1,000.00 order by `customer`, applied by the live campaign (10%: 100.00) or refused for `refused`. */
function order(minute: number, customer: string, refused?: string): ReplayCart {
  const outcome: RecordedOutcome = refused ? { cp: 'live', ok: false, r: refused } : { cp: 'live', ok: true, d: 10_000, cb: 0, b: 100_000 };
  return {
    at: at(minute),
    kind: 'r',
    customerId: customer,
    order: makeOrder(),
    codes: ['TEST10'],
    orderId: `o-${minute}`,
    outcomes: [outcome],
  };
}
const revert = (minute: number, ofMinute: number): ReplayCart => ({
  at: at(minute),
  kind: 'u',
  customerId: null,
  order: null,
  codes: [],
  orderId: `o-${ofMinute}`,
  outcomes: [{ cp: 'live', ok: true, d: 10_000, cb: 0 }],
});

function replay(campaign: Campaign, carts: ReplayCart[], live: Campaign | null = LIVE) {
  const r = new BacktestReplay(campaign, 'UTC', live);
  for (const c of carts) r.step(c);
  return r.figures();
}

describe('backtest replay', () => {
  it('when a total limit is replayed as it was, then the same orders are redeemed and it runs out at the same order', () => {
    const live = makeCampaign({ id: 'live', limits: { total: 2 } });
    const f = replay(live, [order(1, 'a'), order(2, 'b'), order(3, 'c', 'total_limit')], live);
    expect(f.backtest).to.include({ orders: 2, discountCents: 20_000, basketCents: 200_000, customers: 2 });
    expect(f.actual).to.deep.equal({ orders: 2, discountCents: 20_000, cashbackCents: 0, basketCents: 200_000, customers: 2 });
    expect(f.limits).to.deep.equal([{ what: 'redemptions', period: 'total', limit: 2, ranOutAt: at(2), actualRanOutAt: at(2) }]);
    expect(f.refusalsByReason).to.deep.equal({ total_limit: 1 });
    expect(f.changed).to.deep.equal({ gained: 0, lost: 0, differentAmount: 0, carts: [] });
  });

  it('when the limit is lowered, then the orders past it are lost and listed, and it runs out earlier', () => {
    const f = replay(
      makeCampaign({ id: 'live', limits: { total: 1 } }),
      [order(1, 'a'), order(2, 'b')],
      makeCampaign({ id: 'live', limits: { total: 2 } }),
    );
    expect(f.backtest.orders).to.equal(1);
    expect(f.changed.lost).to.equal(1);
    expect(f.changed.carts).to.deep.equal([
      {
        at: at(2),
        customerId: 'b',
        orderId: 'o-2',
        actual: { applied: true, discountCents: 10_000, reason: null },
        backtest: { applied: false, discountCents: 0, reason: 'total_limit' },
      },
    ]);
    expect(f.limits[0]).to.deep.include({ ranOutAt: at(1), actualRanOutAt: at(2) });
  });

  it('when an order is reverted, then its unit is given back to a later order and it leaves the figures', () => {
    const live = makeCampaign({ id: 'live', limits: { total: 1 } });
    const f = replay(live, [order(1, 'a'), revert(2, 1), order(3, 'b')], live);
    expect(f.replayed).to.deep.equal({ orders: 2, checks: 0, lists: 0, reverts: 1 });
    expect(f.backtest).to.include({ orders: 1, discountCents: 10_000 });
    expect(f.actual).to.include({ orders: 1, discountCents: 10_000 });
    expect(f.changed.carts).to.deep.equal([]);
  });

  it('when a per-customer limit is replayed, then each customer is counted on their own', () => {
    const f = replay(makeCampaign({ id: 'live', limits: { perCustomer: 1 } }), [order(1, 'a'), order(2, 'a'), order(3, 'b')]);
    expect(f.backtest.orders).to.equal(2);
    expect(f.refusalsByReason).to.deep.equal({ per_user_limit: 1 });
    expect(f.limits).to.deep.equal([]); // a customer's limit is not the campaign's to run out
  });

  it('when a per-day limit runs out, then the next day starts again from zero', () => {
    const day = 24 * 60;
    const live = makeCampaign({ id: 'live', limits: { perDay: 1 } });
    const f = replay(live, [order(1, 'a'), order(2, 'b', 'per_day_limit'), order(day + 1, 'c')], live);
    expect(f.backtest.orders).to.equal(2);
    expect(f.limits).to.deep.equal([{ what: 'redemptions', period: 'per_day', limit: 1, ranOutAt: at(1), actualRanOutAt: at(1) }]);
  });

  it('when a money budget with cap runs short, then the last order gets what is left and the budget runs out there', () => {
    const budget = {
      totalCents: 25_000,
      perDayCents: null,
      perWeekCents: null,
      perMonthCents: null,
      perCustomerCents: null,
      whenExceeded: 'cap' as const,
      notifyAt: [],
    };
    const f = replay(makeCampaign({ id: 'draft', budget }), [order(1, 'a'), order(2, 'b'), order(3, 'c'), order(4, 'd')], null);
    expect(f.actual).to.equal(null);
    expect(f.backtest).to.include({ orders: 3, discountCents: 25_000 });
    expect(f.limits).to.deep.equal([{ what: 'budget', period: 'total', limit: 25_000, ranOutAt: at(3), actualRanOutAt: null }]);
    expect(f.refusalsByReason).to.deep.equal({ budget_exhausted: 1 });
    // A draft changes every order it applies to (nothing happened without it).
    expect(f.changed).to.include({ gained: 3, differentAmount: 0, lost: 0 });
  });

  it('when validates and lists are replayed, then they are checked on the counters as they stand and take nothing', () => {
    const live = makeCampaign({ id: 'live', limits: { total: 1 } });
    const check = (minute: number): ReplayCart => ({ ...order(minute, 'x'), kind: 'v' });
    const list = (minute: number): ReplayCart => ({ ...order(minute, 'x'), kind: 'l', codes: [], outcomes: [] });
    const f = replay(live, [check(1), list(2), order(3, 'a'), check(4), list(5)], live);
    expect(f.replayed).to.deep.equal({ orders: 1, checks: 2, lists: 2, reverts: 0 });
    expect(f.backtest).to.include({ orders: 1, checksValid: 1, listsShown: 1 });
  });

  it("when a bulk campaign's codes were named second in stacked carts, then each cart counts the code it named of it, not its first code", () => {
    const bulk = makeCampaign({ id: 'live', codeType: 'bulk', bulkCodeUsageLimit: 1 });
    // Two carts, each naming another campaign's code first and a different code of the bulk
    // campaign second; their outcomes in another order than their codes.
    const stacked = (minute: number, code: string): ReplayCart => ({
      ...order(minute, `c-${minute}`),
      codes: ['OTHER10', code],
      outcomes: [
        { cp: 'live', ok: true, d: 10_000, cb: 0, b: 100_000, k: code },
        { cp: 'other', ok: true, d: 500, cb: 0, b: 100_000, k: 'OTHER10' },
      ],
    });
    const f = replay(bulk, [stacked(1, 'BULK-A'), stacked(2, 'BULK-B')], bulk);
    // Counted against its first code (OTHER10), the second cart would find that code used up.
    expect(f.backtest).to.include({ orders: 2 });
    expect(f.refusalsByReason).to.deep.equal({});
    // And a third naming BULK-A again is refused: that code was used once, its limit.
    const g = replay(bulk, [stacked(1, 'BULK-A'), stacked(2, 'BULK-B'), stacked(3, 'BULK-A')], bulk);
    expect(g.backtest).to.include({ orders: 2 });
    expect(Object.values(g.refusalsByReason)).to.deep.equal([1]);
  });

  it('when more orders change than are listed, then all are counted and the first are listed', () => {
    const carts = Array.from({ length: CHANGED_LISTED + 5 }, (_, i) => order(i, `c${i}`, 'min_order_value'));
    const f = replay(LIVE, carts);
    expect(f.changed.gained).to.equal(CHANGED_LISTED + 5);
    expect(f.changed.carts).to.have.length(CHANGED_LISTED);
    expect(f.changed.carts[0]!.at).to.deep.equal(at(0));
  });
});
