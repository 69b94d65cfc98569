import { expect } from 'chai';
import type { LimitCounterDoc } from '../../shared/data/limit-counter.schema.js';
import { reasonOf } from '../../shared/errors.js';
import { soldOutDecision, type SoldOutFacts } from '../../shared/usecases/apply/sold-out.usecase.js';
import { makeCampaign } from '../fixtures/campaign.js';
import { makeOrder } from '../fixtures/records.js';
import { evaluateCoupon } from '../../shared/domain/engine.js';

const NOW = new Date('2026-11-26T12:00:00Z'); // 2026-11-26, ISO week 2026-W48, in UTC
const counter = (id: string, over: Partial<LimitCounterDoc> = {}): [string, LimitCounterDoc] => [
  id,
  { _id: id, kind: 'campaign', total: 0, ...over } as LimitCounterDoc,
];
const facts = (over: Partial<SoldOutFacts>): SoldOutFacts => ({
  campaign: makeCampaign({ id: 'camp', limits: { total: 5 } }),
  now: NOW,
  timezone: 'UTC',
  input: { customerId: 'me', bulkCodeId: null },
  counters: new Map([counter('camp', { total: 5 })]),
  journaled: false,
  ...over,
});
const reason = (d: ReturnType<typeof soldOutDecision>) => (d.refuse ? reasonOf(d.refuse) : null);

describe('sold-out refusal: what the API may answer without the queue', () => {
  it('when the total limit is reached and nothing is in flight, then the total_limit refusal, and the campaign stays hinted', () => {
    const d = soldOutDecision(facts({}));
    expect(reason(d)).to.equal('total_limit');
    expect(d.refuse!.details).to.equal('coupon code redemption total_limit exceeded');
    expect(d.soldOut).to.equal(true);
  });

  it('when a change is in flight on a counter (a redeem or a revert holds a lane), then no refusal: the queue decides', () => {
    const d = soldOutDecision(facts({ counters: new Map([counter('camp', { total: 5, lanes: { p64_03: 'a/-/2026-11-26/x:1' } })]) }));
    expect(d.refuse).to.equal(null);
    expect(d.soldOut).to.equal(true);
  });

  it('when the order already has a cycle, then no refusal (a repeat answers 200; another customer’s order its own refusal)', () => {
    expect(soldOutDecision(facts({ journaled: true })).refuse).to.equal(null);
  });

  it('when the limit is not reached (a revert freed a slot, or the limit was raised), then no refusal and the hint is dropped', () => {
    const d = soldOutDecision(facts({ counters: new Map([counter('camp', { total: 4 })]) }));
    expect(d).to.deep.equal({ refuse: null, soldOut: false });
    expect(soldOutDecision(facts({ counters: new Map() })).soldOut).to.equal(false);
  });

  it('when only the per-day limit is reached, then per_day_limit today, and nothing on a count of another day', () => {
    const campaign = makeCampaign({ id: 'camp', limits: { perDay: 3 } });
    expect(
      reason(soldOutDecision(facts({ campaign, counters: new Map([counter('camp', { total: 9, d: { k: '2026-11-26', n: 3 } })]) }))),
    ).to.equal('per_day_limit');
    const yesterday = soldOutDecision(
      facts({ campaign, counters: new Map([counter('camp', { total: 9, d: { k: '2026-11-25', n: 3 } })]) }),
    );
    expect(yesterday).to.deep.equal({ refuse: null, soldOut: false });
  });

  it('when the customer’s own limit is reached but not the campaign’s, then per_user_limit and the hint is dropped', () => {
    const campaign = makeCampaign({ id: 'camp', limits: { total: 100, perCustomer: 1 } });
    const d = soldOutDecision(
      facts({ campaign, counters: new Map([counter('camp', { total: 7 }), counter('camp:u:me', { kind: 'customer', total: 1 })]) }),
    );
    expect(reason(d)).to.equal('per_user_limit');
    expect(d.soldOut).to.equal(false);
  });

  it('when the campaign is outside its validity period, then no refusal here (the worker answers not_available, as it would)', () => {
    const campaign = makeCampaign({ id: 'camp', limits: { total: 5 }, validUntil: new Date('2026-01-01T00:00:00Z') });
    const d = soldOutDecision(facts({ campaign }));
    expect(d.refuse).to.equal(null);
    expect(d.soldOut).to.equal(true);
  });

  it('when the limit is reached and the cart also fails a cart rule, then the limit’s refusal: the one the worker’s evaluation of that cart gives first', () => {
    const campaign = makeCampaign({
      id: 'camp',
      limits: { total: 5 },
      cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 1_000_000 }],
    });
    const d = soldOutDecision(facts({ campaign }));
    expect(reason(d)).to.equal('total_limit');
    const usage = { total: 5, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };
    const worker = evaluateCoupon({ now: NOW, timezone: 'UTC', campaign, usage, customerKnown: true, order: makeOrder() });
    expect(worker.applicable ? null : [worker.reason, worker.message]).to.deep.equal(['total_limit', d.refuse!.details]);
  });
});
