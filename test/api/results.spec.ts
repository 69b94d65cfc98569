/**
 * Campaign results (docs/results.md) through real redeems, refusals and a revert: the totals, the
 * series by day and by hour, the limits' burn, the CSV export, the application's view; the results
 * counters checked by the exactness verifier (a planted cent is found; a change in flight is left
 * out of the results and not reported); the query's documented 400s.
 */
import { expect } from 'chai';
import { resultsCounterId } from '../../shared/data/limit-counter.repository.js';
import { hourKey, periodKeys } from '../../shared/domain/periods.js';
import { laneEntry } from '../../shared/usecases/limit-counters.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, settle, type AdminApp } from '../support/admin.js';
import { useTestApi } from '../support/context.js';

describe('admin API: campaign results', function () {
  this.timeout(60_000);
  const api = useTestApi();
  const { admin, client, newApp, must } = adminHelpers(api);
  let app: AdminApp;
  let campaign: { id: string };
  let refusedReason: string;
  let validateReason: string;
  const results = (query = '') => must('GET', `/applications/${app.id}/campaigns/${campaign.id}/results${query}`);
  const sum = (rows: Record<string, number>[], field: string) => rows.reduce((s, r) => s + r[field]!, 0);

  before(async () => {
    app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: ['c1', 'c2', 'c3', 'c4'].map((source_id) => ({ source_id })) });
    campaign = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Fifty off',
      code: 'FIFTY',
      discount: { kind: 'discount', type: 'flat', value: 50 },
      limits: { total: 3 },
    });
    await settle();
    const apply = (type: 'redeem' | 'revert', sourceId: string, order: ReturnType<typeof makeOrder>) =>
      client(app, 'POST', `/coupons/apply?type=${type}`, { source_id: sourceId, coupon_details: [{ coupon_code: 'FIFTY' }], order });
    const first = makeOrder();
    for (const [who, order] of [
      ['c1', first],
      ['c2', makeOrder()],
      ['c1', makeOrder()],
    ] as const)
      expect((await apply('redeem', who, order)).status).to.equal(200);
    const refused = await apply('redeem', 'c3', makeOrder());
    expect(refused.status).to.equal(400);
    refusedReason = refused.headers.get('coupon-reason')!;
    const validated = await client(app, 'POST', '/coupons/validate', {
      source_id: 'c4',
      coupon_details: [{ coupon_code: 'FIFTY' }],
      order: makeOrder(),
    });
    validateReason = validated.headers.get('coupon-reason')!;
    expect(validateReason, validated.text).to.be.a('string');
    expect((await apply('revert', 'c1', first)).status).to.equal(200);
    await api().services.tally.flush();
  });

  it('when a campaign was redeemed three times, refused twice and reverted once, then its totals count each, in money of the currency', async () => {
    const r = await results();
    expect(r).to.include({ campaign_id: campaign.id, name: 'Fifty off', timezone: 'Asia/Kolkata', currency: 'INR', bucket: 'day' });
    expect(r.totals).to.deep.equal({
      redemptions: 2,
      reverts: 1,
      discount: 100,
      cashback: 0,
      basket: 2000,
      average_discount: 50,
      budget_spent: 0,
      new_customers: 2,
      refusals: 2,
      customers: 2,
    });
    const reasons: Record<string, number> = {};
    for (const reason of [refusedReason, validateReason]) reasons[reason] = (reasons[reason] ?? 0) + 1;
    expect(r.refusals_by_reason).to.deep.equal(reasons);
  });

  it('when read by day and by hour, then every bucket of the range is a row and the rows add up to the totals', async () => {
    const byDay = await results();
    const today = periodKeys(new Date(byDay.as_of), app.timezone).day;
    expect(byDay.to).to.equal(today);
    expect(byDay.series).to.have.length(30);
    expect(byDay.series.at(-1).period).to.equal(today);
    const byHour = await results(`?bucket=hour&from=${byDay.series.at(-2).period}&to=${today}`);
    expect(byHour.series).to.have.length(48);
    expect(byHour.series.map((s: { period: string }) => s.period)).to.include(hourKey(new Date(byDay.as_of), app.timezone));
    for (const series of [byDay.series, byHour.series])
      for (const field of ['redemptions', 'reverts', 'discount', 'basket', 'new_customers', 'refusals'])
        expect(sum(series, field), field).to.equal(byDay.totals[field]);
  });

  it('when the campaign has a total limit, then its burn says what is used and left, the pace of the last day and when it runs out', async () => {
    const r = await results();
    expect(r.limits).to.have.length(1);
    const [total] = r.limits;
    expect(total).to.include({ what: 'redemptions', period: 'total', limit: 3, used: 2, left: 1 });
    // Two redemptions in the last 24 hours: 1/12 an hour, so the one left goes in 12 hours.
    expect(total.per_hour).to.equal(0.08);
    const hours = (Date.parse(total.runs_out_at) - Date.parse(r.as_of)) / 3_600_000;
    expect(hours).to.be.closeTo(12, 0.01);
  });

  it('when exported as CSV, then a file of the same series is sent, one line per bucket under a header', async () => {
    const json = await results();
    const res = await admin('GET', `/applications/${app.id}/campaigns/${campaign.id}/results?format=csv`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    expect(res.headers.get('content-disposition')).to.match(
      /^attachment; filename="?Fifty-off-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}-day\.csv"?$/,
    );
    const lines = res.text.trim().split('\n');
    expect(lines[0]).to.equal('period,redemptions,reverts,discount,cashback,basket,average_discount,budget_spent,new_customers,refusals');
    expect(lines).to.have.length(31);
    const last = json.series.at(-1);
    expect(lines.at(-1)).to.equal(
      [
        last.period,
        last.redemptions,
        last.reverts,
        last.discount,
        last.cashback,
        last.basket,
        last.average_discount ?? '',
        last.budget_spent,
        last.new_customers,
        last.refusals,
      ].join(','),
    );
  });

  it("when the application's results are read, then they add up every campaign and list each campaign's totals", async () => {
    const other = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Never used',
      code: 'IDLE',
      discount: { kind: 'discount', type: 'flat', value: 1 },
    });
    const r = await must('GET', `/applications/${app.id}/results`);
    expect(r.totals).to.include({ redemptions: 2, reverts: 1, discount: 100, refusals: 2 });
    expect(r.campaigns.map((c: { campaign_id: string }) => c.campaign_id)).to.deep.equal([campaign.id, other.id]);
    expect(r.campaigns[0]).to.include({ name: 'Fifty off', redemptions: 2, customers: 2 });
    expect(r.campaigns[1]).to.include({ name: 'Never used', redemptions: 0, refusals: 0 });
  });

  it('when a change is in flight on a results counter, then the results leave it out and the verifier reports it in flight, not as a discrepancy', async () => {
    const before = await results();
    const beforeByHour = await results('?bucket=hour');
    const now = new Date();
    const periods = periodKeys(now, app.timezone);
    const hour = Number(hourKey(now, app.timezone).slice(11));
    const id = resultsCounterId(campaign.id, periods.day);
    const entry = laneEntry({
      attempt: 'notcommitted',
      step: 1,
      periods,
      key: `${campaign.id}:someorder:1`,
      tally: { discount: 5000, cashback: 0, basket: 100_000, hour },
    });
    // As a take leaves it: the day's figures and the hour's, and the lane.
    const h = `h${String(hour).padStart(2, '0')}`;
    const inc = { total: 1, disc: 5000, bsk: 100_000, [`${h}.n`]: 1, [`${h}.d`]: 5000, [`${h}.b`]: 100_000 };
    const counters = api().services.db.models.LimitCounter.collection;
    await counters.updateOne({ _id: id as never }, { $set: { 'lanes.p16_15': entry }, $inc: inc }, { upsert: true });
    try {
      expect((await results()).totals).to.deep.equal(before.totals);
      const byHour = await results('?bucket=hour');
      expect(byHour.totals).to.deep.equal(beforeByHour.totals);
      const report = await verifyApplication(api().services, app.id, { recheckMs: 0, eventGraceMs: 0 });
      expect(report.discrepancies).to.deep.equal([]);
      expect(report.inFlightCount).to.equal(1);
    } finally {
      await counters.updateOne(
        { _id: id as never },
        { $unset: { 'lanes.p16_15': '' }, $inc: Object.fromEntries(Object.entries(inc).map(([k, v]) => [k, -v])) },
      );
    }
  });

  it("when a results counter's discount is off by one cent, then the verifier reports it with the journal's sum", async () => {
    expect((await verifyApplication(api().services, app.id, { recheckMs: 0, eventGraceMs: 0 })).discrepancies).to.deep.equal([]);
    const counters = api().services.db.models.LimitCounter.collection;
    const doc = await counters.findOne({ _id: { $gte: `${campaign.id}:r:`, $lt: `${campaign.id}:r;` } as never, disc: { $gt: 0 } });
    expect(doc, 'a results counter with a discount').to.not.equal(null);
    await counters.updateOne({ _id: doc!._id }, { $inc: { disc: 1 } });
    try {
      const report = await verifyApplication(api().services, app.id, { recheckMs: 0, eventGraceMs: 0 });
      expect(report.discrepancies).to.have.length(1);
      expect(report.discrepancies[0]).to.include({ kind: 'counter_mismatch', expected: doc!.disc, found: doc!.disc + 1 });
      expect(report.discrepancies[0]!.documents).to.deep.equal([{ collection: 'limit_counters', id: doc!._id }]);
    } finally {
      await counters.updateOne({ _id: doc!._id }, { $inc: { disc: -1 } });
    }
  });

  for (const [query, field] of [
    ['?from=2026-13-01', 'from'],
    ['?from=2026-02-30', 'from'],
    ['?from=2026-05-02&to=2026-05-01', 'from'],
    ['?bucket=hour&from=2026-01-01&to=2026-02-01', 'to'],
    ['?from=2025-01-01&to=2026-01-02', 'to'],
    ['?bucket=week', 'bucket'],
    ['?format=xml', 'format'],
    ['?colour=blue', 'colour'],
  ])
    it(`when results are asked with ${query}, then 400 names ${field}`, async () => {
      const res = await admin('GET', `/applications/${app.id}/campaigns/${campaign.id}/results${query}`);
      expect(res.status, res.text).to.equal(400);
      expect(Object.keys(res.body.fields)).to.deep.equal([field]);
    });

  it('when the campaign or the application is unknown, then 404', async () => {
    expect((await admin('GET', `/applications/${app.id}/campaigns/0123456789abcdef01234567/results`)).status).to.equal(404);
    expect((await admin('GET', `/applications/${app.id}/campaigns/nope/results`)).status).to.equal(404);
    expect((await admin('GET', '/applications/0123456789abcdef01234567/results')).status).to.equal(404);
  });
});
