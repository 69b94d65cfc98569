import { expect } from 'chai';
import type { RedemptionRecord } from '../../shared/data/redemption-journal.repository.js';
import type { RedeemInput } from '../../shared/queue/job-payloads.js';
import { decideRedeem } from '../../shared/usecases/apply/redeem-coupon.usecase.js';

const input: RedeemInput = {
  applicationId: 'app',
  customerId: 'me',
  sourceId: 'c1',
  campaignId: 'camp',
  bulkCodeId: null,
  couponId: 'SAVE',
  code: 'SAVE',
  orderId: 'o1',
  requestId: 'r1',
  order: {},
};
const cycle = (n: number, state: RedemptionRecord['state'], over: Partial<RedemptionRecord> = {}): RedemptionRecord => ({
  id: `camp:x:${n}`,
  applicationId: 'app',
  campaignId: 'camp',
  customerId: 'me',
  couponCodeId: null,
  orderId: 'o1',
  cycle: n,
  key: `camp:x:${n}`,
  state,
  couponId: 'SAVE',
  code: 'SAVE',
  discountCents: 100,
  cashbackCents: 0,
  cashbackWallet: null,
  periods: { day: '2026-11-25', week: '2026-W48', month: '2026-11' },
  counters: [],
  refusal: state === 'refused' ? { reason: 'total_limit', message: 'coupon code redemption total_limit exceeded' } : null,
  redeemJobId: `job-${n}`,
  revertJobId: null,
  stack: null,
  createdAt: new Date(0),
  ...over,
});
const completed = { done: { status: 'completed', couponId: 'SAVE', orderId: 'o1', coupon_code: 'SAVE', request_id: 'r1' } };

describe("redeem: what the order's cycles decide (decideRedeem, pure)", () => {
  const rows: [string, RedemptionRecord[], string, (d: ReturnType<typeof decideRedeem>) => void][] = [
    ['no cycle yet', [], 'job-1', (d) => expect(d).to.deep.equal({ cycle: 1 })],
    [
      'this job committed cycle 1 (a re-run)',
      [cycle(1, 'completed')],
      'job-1',
      (d) => expect(d).to.deep.include({ ...completed, own: cycle(1, 'completed') }),
    ],
    [
      'another job completed it (a repeat: docs/decisions.md#17)',
      [cycle(1, 'completed')],
      'job-2',
      (d) => expect(d).to.deep.equal({ ...completed, own: null }),
    ],
    ['it was reverted', [cycle(1, 'reverted')], 'job-2', (d) => expect(d).to.deep.equal({ cycle: 2 })],
    ['another job was refused on it', [cycle(1, 'refused')], 'job-2', (d) => expect(d).to.deep.equal({ cycle: 2 })],
    [
      'another customer redeemed the order',
      [cycle(1, 'completed', { customerId: 'other' })],
      'job-2',
      (d) => expect((d as { refuse: Error }).refuse.message).to.equal('Invalid payload'),
    ],
    [
      'another customer redeemed and reverted it',
      [cycle(1, 'reverted', { customerId: 'other' })],
      'job-2',
      (d) => expect(d).to.deep.equal({ cycle: 2 }),
    ],
  ];
  for (const [what, cycles, jobId, check] of rows)
    it(`when ${what}, then the decision follows`, () => check(decideRedeem(input, cycles, jobId)));

  it("when this job's own refusal is journaled, then the same refusal is given again", () => {
    const d = decideRedeem(input, [cycle(1, 'refused', { redeemJobId: 'job-1' })], 'job-1') as {
      refuse: { message: string; details: string };
    };
    expect([d.refuse.message, d.refuse.details]).to.deep.equal(['coupon validation failed', 'coupon code redemption total_limit exceeded']);
  });
});
