/**
 * Money budgets (docs/budgets.md) through the admin API and the client routes of a running API and
 * worker: the format's round trip and its 400s, a budget that refuses or caps at its edge, a
 * revert giving its amount back, the customer's share, usage's spent and left, the week's and the
 * month's caps across their boundaries in the application's timezone (a clock moved through
 * TEST_CLOCK_FILE), and the granted amounts beside the contract's redeem body.
 */
import { expect } from 'chai';
import { testClock } from '../support/test-clock.js';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { startTestApi, type TestApi } from '../support/context.js';

const FLAT_10 = { kind: 'discount', type: 'flat', value: 10 };

describe('money budgets', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: AdminApp;
  // The service's clock: the machine's, but where a test moves it.
  const clock = testClock();
  before(async () => {
    api = await startTestApi(clock.env);
    app = await newApp({ name: `Budgets ${process.pid}`, timezone: 'Asia/Kolkata', currency: 'INR' });
    await must('POST', `/applications/${app.id}/customers`, { customers: ['b-1', 'b-2', 'b-3'].map((source_id) => ({ source_id })) });
  });
  after(async () => {
    await api?.close();
    clock.remove();
  });
  const { admin, client, newApp, must } = adminHelpers(() => api);
  let seq = 0;
  const code = () => `BUDGET${process.pid}X${++seq}`;
  const campaigns = () => `/applications/${app.id}/campaigns`;

  async function create(body: Record<string, unknown>) {
    const res = await admin('POST', campaigns(), { name: 'Budgeted', discount: FLAT_10, code: code(), ...body });
    expect(res.status, res.text).to.equal(201);
    assertMatchesSpec('POST', '/admin/applications/{app}/campaigns', 201, res.body);
    return res.body as { id: string; code: string; budget: Record<string, unknown> | null };
  }
  const entry = (c: { code: string }) => [{ coupon_code: c.code }];
  const validate = (c: { code: string }, order = makeOrder(), source_id = 'b-1') =>
    client(app, 'POST', '/coupons/validate', { source_id, coupon_details: entry(c), order });
  const apply = (type: 'redeem' | 'revert', c: { code: string }, order: Record<string, unknown>, source_id = 'b-1') =>
    client(app, 'POST', `/coupons/apply?type=${type}`, { source_id, coupon_details: entry(c), order });
  const usage = async (c: { id: string }) => {
    const res = await admin('GET', `${campaigns()}/${c.id}/usage`);
    expect(res.status, res.text).to.equal(200);
    assertMatchesSpec('GET', '/admin/applications/{app}/campaigns/{campaign}/usage', 200, res.body);
    return res.body.budget;
  };

  describe('format', () => {
    it('when a budget is sent, then it comes back with every key, and a campaign without one has budget null', async () => {
      const made = await create({ budget: { total: 500, per_day: 100, notify_at: [80, 50] } });
      expect(made.budget).to.deep.equal({
        total: 500,
        per_day: 100,
        per_week: null,
        per_month: null,
        per_customer: null,
        when_exceeded: 'refuse',
        notify_at: [50, 80],
      });
      expect((await create({})).budget).to.equal(null);
    });

    it('when a budget field is wrong, then 400 names it', async () => {
      for (const [budget, field] of [
        [{ total: -5 }, 'budget.total'],
        [{ when_exceeded: 'maybe' }, 'budget.when_exceeded'],
        [{ notify_at: [0] }, 'budget.notify_at.0'],
        [{ per_hour: 5 }, 'budget.per_hour'],
      ] as const) {
        const res = await admin('POST', campaigns(), { name: 'Bad', discount: FLAT_10, code: code(), budget });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.fields, res.text).to.have.property(field);
      }
    });
  });

  describe('when_exceeded: refuse', () => {
    it('when the discount would pass what is left, then validate says so, redeem refuses, and a revert gives the amount back', async () => {
      const c = await create({ budget: { total: 25 } });
      const first = makeOrder();
      expect((await apply('redeem', c, first)).status).to.equal(200);
      expect((await apply('redeem', c, makeOrder(), 'b-2')).status).to.equal(200);
      expect(await usage(c)).to.deep.include({ total: { budget: 25, spent: 20, left: 5 }, share_spent: 80 });

      const refused = await validate(c, makeOrder(), 'b-3');
      expect(refused.status).to.equal(200);
      expect(refused.body.is_applicable).to.equal(false);
      expect(refused.body.message).to.equal('coupon code redemption budget exceeded');
      expect(refused.headers.get('coupon-reason')).to.equal('budget_exhausted');
      const redeem = await apply('redeem', c, makeOrder(), 'b-3');
      expect(redeem.status).to.equal(400);
      expect(redeem.body).to.deep.include({ message: 'coupon validation failed', details: 'coupon code redemption budget exceeded' });
      expect(redeem.headers.get('coupon-reason')).to.equal('budget_exhausted');

      expect((await apply('revert', c, first)).status).to.equal(200);
      expect((await usage(c)).total).to.deep.equal({ budget: 25, spent: 10, left: 15 });
      expect((await apply('redeem', c, makeOrder(), 'b-3')).status).to.equal(200);
      expect((await usage(c)).total).to.deep.equal({ budget: 25, spent: 20, left: 5 });
    });

    it("when a customer's share is spent, then that customer is refused and the others are not", async () => {
      const c = await create({ budget: { per_customer: 15 } });
      expect((await apply('redeem', c, makeOrder(), 'b-1')).status).to.equal(200);
      const mine = await apply('redeem', c, makeOrder(), 'b-1');
      expect(mine.status).to.equal(400);
      expect(mine.body.details).to.equal('coupon code redemption per_user_budget exceeded');
      expect(mine.headers.get('coupon-reason')).to.equal('per_user_budget');
      expect((await apply('redeem', c, makeOrder(), 'b-2')).status).to.equal(200);
    });
  });

  describe('when_exceeded: cap', () => {
    it('when less is left than the discount, then validate and redeem grant what is left, and then nothing is', async () => {
      const c = await create({ budget: { total: 25, when_exceeded: 'cap' } });
      const granted = async (order: Record<string, unknown>, source: string) => {
        const res = await apply('redeem', c, order, source);
        expect(res.status, res.text).to.equal(200);
        expect(Object.keys(res.body)).to.deep.equal(['status', 'couponId', 'orderId', 'coupon_code', 'request_id']);
        expect(res.headers.get('coupon-cashback')).to.equal('0.00');
        return res.headers.get('coupon-discount');
      };
      expect(await granted(makeOrder(), 'b-1')).to.equal('10.00');
      expect(await granted(makeOrder(), 'b-2')).to.equal('10.00');
      const order = makeOrder();
      const shown = await validate(c, order, 'b-3');
      expect(shown.body.is_applicable).to.equal(true);
      expect(shown.body.coupon_savings.order.total_discount).to.equal(5);
      expect(await granted(order, 'b-3')).to.equal('5.00');
      expect(await usage(c)).to.deep.include({ total: { budget: 25, spent: 25, left: 0 }, share_spent: 100 });
      const none = await apply('redeem', c, makeOrder(), 'b-1');
      expect(none.status).to.equal(400);
      expect(none.headers.get('coupon-reason')).to.equal('budget_exhausted');
    });

    it('when a campaign has no budget, then a redeem answers no granted headers', async () => {
      const c = await create({});
      const res = await apply('redeem', c, makeOrder());
      expect(res.status).to.equal(200);
      expect(res.headers.get('coupon-discount')).to.equal(null);
    });
  });

  it('when a stacked coupon cannot be paid by its budget, then validate leaves it out and names why, and redeem refuses the order', async () => {
    const stacking = await newApp({ name: `Budgets stacked ${process.pid}`, timezone: 'Asia/Kolkata', currency: 'INR' });
    await must('PATCH', `/applications/${stacking.id}`, { stacking: { max_coupons: 2 } });
    await must('POST', `/applications/${stacking.id}/customers`, { customers: [{ source_id: 's-1' }] });
    const make = async (body: Record<string, unknown>) => {
      const res = await admin('POST', `/applications/${stacking.id}/campaigns`, {
        name: 'Stacked',
        discount: FLAT_10,
        code: code(),
        ...body,
      });
      expect(res.status, res.text).to.equal(201);
      return res.body as { code: string };
    };
    const tight = await make({ budget: { total: 5, when_exceeded: 'cap' } });
    const open = await make({});
    const body = (order: Record<string, unknown>) => ({
      source_id: 's-1',
      coupon_details: [{ coupon_code: open.code }, { coupon_code: tight.code }],
      order,
    });
    const shown = await client(stacking, 'POST', '/coupons/validate', body(makeOrder()));
    expect(shown.status, shown.text).to.equal(200);
    expect(shown.body.is_applicable).to.equal(false);
    const left = shown.body.stack.coupons.find((c: { coupon_code: string }) => c.coupon_code === tight.code);
    expect(left).to.include({ is_applicable: false, message: 'coupon code redemption budget exceeded', discount: 0 });
    expect(shown.headers.get('coupon-reasons')).to.match(/=budget_exhausted$/);
    const redeem = await client(stacking, 'POST', '/coupons/apply?type=redeem', body(makeOrder()));
    expect(redeem.status).to.equal(400);
    expect(redeem.headers.get('coupon-reason')).to.equal('budget_exhausted');
  });

  it("when the day's budget is spent, then the usage shows the day's period and the refusal names the budget", async () => {
    const c = await create({ discount: { kind: 'discount', type: 'percentage', value: 10 }, budget: { per_day: 150 } });
    // 10% of a 1000 selling subtotal: 100 each; the second would pass 150.
    expect((await apply('redeem', c, makeOrder())).status).to.equal(200);
    const second = await apply('redeem', c, makeOrder(), 'b-2');
    expect(second.status).to.equal(400);
    expect(second.headers.get('coupon-reason')).to.equal('budget_exhausted');
    const day = (await usage(c)).per_day;
    expect(day).to.include({ budget: 150, spent: 100, left: 50 });
    expect(day.period).to.match(/^\d{4}-\d{2}-\d{2}$/);
  });

  describe("a week's and a month's budget (Asia/Kolkata, UTC+05:30)", () => {
    const clockAt = clock.at;
    afterEach(() => clock.ahead(0));
    const PCT_10 = { kind: 'discount', type: 'percentage', value: 10 };

    it("when the week's budget is spent, then it refuses until Monday in the application's timezone, and the new week starts fresh", async () => {
      clockAt('2027-03-13T23:00:00+05:30'); // a Saturday of ISO week 2027-W10
      const c = await create({ discount: PCT_10, budget: { per_week: 200 } });
      // 10% of a 1000 selling subtotal: 100 each; two spend the week's 200.
      expect((await apply('redeem', c, makeOrder(), 'b-1')).status).to.equal(200);
      expect((await apply('redeem', c, makeOrder(), 'b-2')).status).to.equal(200);
      expect((await usage(c)).per_week).to.deep.equal({ budget: 200, spent: 200, left: 0, period: '2027-W10' });

      const refusedBy = async (when: string) => {
        const shown = await validate(c, makeOrder(), 'b-3');
        expect(shown.status, when).to.equal(200);
        expect(shown.body.is_applicable, when).to.equal(false);
        expect(shown.body.message, when).to.equal('coupon code redemption budget exceeded');
        expect(shown.headers.get('coupon-reason'), when).to.equal('budget_exhausted');
        const redeem = await apply('redeem', c, makeOrder(), 'b-3');
        expect(redeem.status, when).to.equal(400);
        expect(redeem.body, when).to.deep.include({
          message: 'coupon validation failed',
          details: 'coupon code redemption budget exceeded',
        });
        expect(redeem.headers.get('coupon-reason'), when).to.equal('budget_exhausted');
      };
      await refusedBy('Saturday');
      // Sunday is a new day but the same ISO week (weeks start on Monday).
      clockAt('2027-03-14T00:30:00+05:30');
      await refusedBy('Sunday');
      expect((await usage(c)).per_week).to.deep.equal({ budget: 200, spent: 200, left: 0, period: '2027-W10' });

      // 00:30 on Monday in Kolkata is still Sunday 19:00 in UTC: only the application's timezone starts the week.
      clockAt('2027-03-15T00:30:00+05:30');
      expect((await usage(c)).per_week).to.deep.equal({ budget: 200, spent: 0, left: 200, period: '2027-W11' });
      const fresh = await validate(c, makeOrder(), 'b-3');
      expect(fresh.body.is_applicable, fresh.text).to.equal(true);
      expect(fresh.body.coupon_savings.order.total_discount).to.equal(100);
      expect((await apply('redeem', c, makeOrder(), 'b-3')).status).to.equal(200);
      expect(await usage(c)).to.deep.include({
        total: { budget: null, spent: 300, left: null },
        per_week: { budget: 200, spent: 100, left: 100, period: '2027-W11' },
      });
    });

    it("when the month's budget is spent with cap, then the last redeem gets what is left, and the 1st in the application's timezone starts fresh", async () => {
      clockAt('2027-04-30T23:00:00+05:30'); // the last day of April, a Friday
      const c = await create({ discount: PCT_10, budget: { per_month: 150, when_exceeded: 'cap' } });
      const granted = async (source: string) => {
        const res = await apply('redeem', c, makeOrder(), source);
        expect(res.status, res.text).to.equal(200);
        return res.headers.get('coupon-discount');
      };
      expect(await granted('b-1')).to.equal('100.00');
      const shown = await validate(c, makeOrder(), 'b-2');
      expect(shown.body.is_applicable).to.equal(true);
      expect(shown.body.coupon_savings.order.total_discount).to.equal(50);
      expect(await granted('b-2')).to.equal('50.00');
      expect((await usage(c)).per_month).to.deep.equal({ budget: 150, spent: 150, left: 0, period: '2027-04' });
      const none = await apply('redeem', c, makeOrder(), 'b-3');
      expect(none.status).to.equal(400);
      expect(none.body).to.deep.include({ message: 'coupon validation failed', details: 'coupon code redemption budget exceeded' });
      expect(none.headers.get('coupon-reason')).to.equal('budget_exhausted');

      // 00:30 on 1 May in Kolkata is still 30 April 19:00 in UTC: only the application's timezone starts the month.
      clockAt('2027-05-01T00:30:00+05:30');
      expect((await usage(c)).per_month).to.deep.equal({ budget: 150, spent: 0, left: 150, period: '2027-05' });
      expect(await granted('b-3')).to.equal('100.00');
      expect(await usage(c)).to.deep.include({
        total: { budget: null, spent: 250, left: null },
        per_month: { budget: 150, spent: 100, left: 50, period: '2027-05' },
      });
    });
  });
});
