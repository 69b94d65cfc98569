/**
 * The exactness verifier on money budgets (shared/usecases/verify-exactness.usecase.ts): a budgeted
 * campaign's counters hold `amt`, the cents its completed cycles gave away (their `budgetCents`)
 * plus the lanes' unsettled amounts. Real redeems and a revert leave no discrepancy; a wrong `amt`
 * planted on the campaign's or a customer's counter is reported with the recount; a lane whose
 * take did not commit, with its cents in `amt`, is in flight, not a discrepancy.
 */
import { expect } from 'chai';
import mongoose from 'mongoose';
import type { Campaign } from '../../shared/domain/types.js';
import { verifyApplication, type Discrepancy, type VerifyReport } from '../../shared/usecases/verify-exactness.usecase.js';
import { createCampaign, createCustomers, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, useTestApi, type TestApplication } from '../support/context.js';

describe('the exactness verifier on money budgets', function () {
  this.timeout(120_000);
  const api = useTestApi();
  const models = () => api().services.db.models;
  const verify = (app: TestApplication) => verifyApplication(api().services, app.id, { recheckMs: 0, eventGraceMs: 0 });
  const only = (r: VerifyReport, kind: Discrepancy['kind']) => {
    const found = r.discrepancies.filter((d) => d.kind === kind);
    expect(found, JSON.stringify(r.discrepancies)).to.have.length(1);
    return found[0]!;
  };

  /** A campaign of 10% off with a total and a per-customer budget: three redeems of 100.00 (10% of a 1000 cart), one reverted — 200.00 spent, 100.00 of it by c1. */
  async function budgeted(): Promise<{ app: TestApplication; campaign: Campaign; customerCounter: string }> {
    const { services } = api();
    const app = await createTestApplication(services);
    const [c1] = await createCustomers(services, app.id, ['c1', 'c2']);
    const campaign = await createCampaign(services, app.id, {
      code: 'SPEND',
      budget: {
        totalCents: 100_000,
        perDayCents: null,
        perWeekCents: null,
        perMonthCents: null,
        perCustomerCents: 50_000,
        whenExceeded: 'refuse',
        notifyAt: [],
      },
    });
    const apply = async (type: 'redeem' | 'revert', order: Record<string, unknown>, sourceId: string) => {
      const res = await call(api().url, 'POST', `/coupons/apply?type=${type}`, {
        auth: app.auth,
        body: { source_id: sourceId, coupon_details: [{ coupon_code: 'SPEND' }], order },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    };
    const reverted = makeOrder();
    await apply('redeem', makeOrder(), 'c1'); // 10% of 1000: 100.00
    await apply('redeem', reverted, 'c1');
    await apply('redeem', makeOrder(), 'c2');
    await apply('revert', reverted, 'c1');
    return { app, campaign, customerCounter: `${campaign.id}:u:${c1!.id}` };
  }

  it('when a budgeted campaign was redeemed and reverted, then amt agrees with the journal and nothing is reported', async () => {
    const { app, campaign, customerCounter } = await budgeted();
    const report = await verify(app);
    expect(report.discrepancies).to.deep.equal([]);
    expect(report.inFlightCount).to.equal(0);
    // The check is not vacuous: the counters hold the amounts the journal's completed cycles carry.
    const counter = await models().LimitCounter.collection.findOne({ _id: campaign.id as never });
    const customer = await models().LimitCounter.collection.findOne({ _id: customerCounter as never });
    expect([counter?.amt, customer?.amt]).to.deep.equal([20_000, 10_000]);
  });

  it("when the campaign counter's amt is off by one cent, then the counter is reported with the journal's sum", async () => {
    const { app, campaign } = await budgeted();
    await models().LimitCounter.collection.updateOne({ _id: campaign.id as never }, { $inc: { amt: 1 } });
    const d = only(await verify(app), 'counter_mismatch');
    expect(d.documents).to.deep.equal([{ collection: 'limit_counters', id: campaign.id }]);
    expect(d).to.include({ expected: 20_000, found: 20_001 });
    expect(d.message).to.match(/^amt \(cents spent\) is 20001/);
  });

  it("when the campaign counter's amount of the day is off by one cent, then the day is reported", async () => {
    const { app, campaign } = await budgeted();
    const counters = models().LimitCounter.collection;
    const before = await counters.findOne({ _id: campaign.id as never });
    expect(before?.d?.a, 'the day counts the money too').to.equal(20_000);
    await counters.updateOne({ _id: campaign.id as never }, { $inc: { 'd.a': 1 } });
    const d = only(await verify(app), 'counter_mismatch');
    expect(d).to.include({ expected: 20_000, found: 20_001 });
    expect(d.message).to.match(/^day \d{4}-\d{2}-\d{2} amount \(cents\) is 20001/);
  });

  it('when more money was given away than the budget allows (or it was lowered since), then each cap passed is reported with its recount', async () => {
    const { app, campaign, customerCounter } = await budgeted();
    // 200.00 given away in all and today, 100.00 of it to each customer: caps one cent below each.
    await models().Campaign.collection.updateOne(
      { _id: new mongoose.Types.ObjectId(campaign.id) },
      { $set: { 'budget.totalCents': 19_999, 'budget.perDayCents': 19_999, 'budget.perCustomerCents': 9_999 } },
    );
    const over = (await verify(app)).discrepancies.filter((d) => d.kind === 'limit_exceeded');
    expect(
      over.map((d) => [d.message.split(':')[0]!.replace(/^budget of (day|customer) .*/, 'budget of $1'), d.expected, d.found]).sort(),
    ).to.deep.equal(
      [
        ['budget in total', 19_999, 20_000],
        ['budget of day', 19_999, 20_000],
        ['budget of customer', 9_999, 10_000],
        ['budget of customer', 9_999, 10_000],
      ].sort(),
    );
    expect(over.find((d) => d.message.startsWith('budget in total'))!.documents).to.deep.equal([
      { collection: 'campaigns', id: campaign.id },
      { collection: 'limit_counters', id: campaign.id },
    ]);
    // Each customer's own counter is named: c1's among them.
    expect(over.flatMap((d) => d.documents.map((x) => x.id))).to.include(customerCounter);
    // At the caps exactly, nothing is passed.
    await models().Campaign.collection.updateOne(
      { _id: new mongoose.Types.ObjectId(campaign.id) },
      { $set: { 'budget.totalCents': 20_000, 'budget.perDayCents': 20_000, 'budget.perCustomerCents': 10_000 } },
    );
    expect((await verify(app)).discrepancies).to.deep.equal([]);
  });

  it("when a customer counter's amt is missing, then that counter is reported", async () => {
    const { app, customerCounter } = await budgeted();
    await models().LimitCounter.collection.updateOne({ _id: customerCounter as never }, { $unset: { amt: '' } });
    const d = only(await verify(app), 'counter_mismatch');
    expect(d.documents).to.deep.equal([{ collection: 'limit_counters', id: customerCounter }]);
    expect(d).to.include({ expected: 10_000, found: 0 });
  });

  it('when a lane holds a take of 7.50 that did not commit and amt holds it, then it is in flight, not a discrepancy; without it in amt, it is reported', async () => {
    const { app, campaign } = await budgeted();
    const counters = models().LimitCounter.collection;
    await counters.updateOne(
      { _id: campaign.id as never },
      { $set: { 'lanes.p4_02': 'BBBBBBBB/+750/2026-01-05/crashed:1' }, $inc: { total: 1, amt: 750 } },
    );
    const inFlight = await verify(app);
    expect(inFlight.discrepancies).to.deep.equal([]);
    expect(inFlight.inFlightCount).to.equal(1);
    await counters.updateOne({ _id: campaign.id as never }, { $inc: { amt: -750 } });
    const d = only(await verify(app), 'counter_mismatch');
    expect(d).to.include({ expected: 20_750, found: 20_000 });
    expect(d.documents.map((x) => x.id)).to.deep.equal([campaign.id, `${campaign.id}:crashed:1`]);
  });
});
