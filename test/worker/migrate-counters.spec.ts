import { expect } from 'chai';
import { Types } from 'mongoose';
import { migrateCounters } from '../../shared/usecases/migrate-counters.usecase.js';
import { createCampaign, createCustomers, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/**
 * Counters written by the earlier release (`usage_counters` with `holders`, journal cycles naming
 * scopes) keep working after the upgrade: the migration converts them, settles cycles a crash
 * left half-done, and redeem/revert carry on from the converted counts.
 */
describe('migrating legacy usage counters', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());
  beforeEach(async () => {
    app = await createTestApplication(api.services);
  });

  const legacyCounters = () => api.services.db.connection.collection('usage_counters');
  const journal = () => api.services.db.connection.collection('redemptions');
  const redeem = (sourceId: string, code: string, order: Record<string, unknown>, type = 'redeem') =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_id: code, coupon_code: code }], order },
    });

  /** A cycle as the earlier release wrote it. */
  const legacyCycle = (campaign: string, customer: string, orderId: string, state: string, scopes: string[]) => ({
    _id: `${campaign}:${orderId}:1` as unknown as Types.ObjectId,
    application: new Types.ObjectId(app.id),
    campaign: new Types.ObjectId(campaign),
    couponCode: null,
    customer: new Types.ObjectId(customer),
    orderId,
    cycle: 1,
    key: `${campaign}:${orderId}:1`,
    state,
    couponId: 'LEGACY',
    code: 'LEGACY',
    discountCents: 100,
    cashbackCents: 0,
    cashbackWallet: null,
    periods: { day: '2026-11-23', week: '2026-W48', month: '2026-11' },
    scopes,
    scopeLimits: scopes.map(() => 3),
    refusal: null,
    redeemJobId: `legacy-${orderId}`,
    revertJobId: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  });

  it('when legacy counters and half-done cycles exist, then they convert exactly and limits carry on', async () => {
    const [cust] = await createCustomers(api.services, app.id, ['legacy-1']);
    const c = await createCampaign(api.services, app.id, { code: 'LEGACY', limits: { total: 3, perCustomer: 3 } });
    // A campaign of the earlier release: no key scheme stored (its redemptions are keyed by order id).
    await api.services.db.models.Campaign.updateOne({ _id: c.id }, { $unset: { redemptionKeys: 1 } });
    await api.services.repos.applications.bumpConfigVersion(app.id);
    const key = (o: string) => `${c.id}:${o}:1`;
    const scopes = ['total', `customer:${cust!.id}`];
    // Completed a and b; c pending and counted in both (completes); d pending, counted in total
    // only (refused); e reverting, still counted (reverted).
    await journal().insertMany([
      legacyCycle(c.id, cust!.id, 'a', 'completed', scopes),
      legacyCycle(c.id, cust!.id, 'b', 'completed', scopes),
      legacyCycle(c.id, cust!.id, 'c', 'pending', scopes),
      legacyCycle(c.id, cust!.id, 'd', 'pending', scopes),
      legacyCycle(c.id, cust!.id, 'e', 'reverting', scopes),
    ]);
    const base = { application: new Types.ObjectId(app.id), campaign: new Types.ObjectId(c.id) };
    await legacyCounters().insertMany([
      { ...base, scope: 'total', count: 5, holders: ['a', 'b', 'c', 'd', 'e'].map(key) },
      { ...base, scope: `customer:${cust!.id}`, count: 4, holders: ['a', 'b', 'c', 'e'].map(key) },
    ]);

    const first = await migrateCounters(api.services);
    expect(first.legacyDocuments).to.be.at.least(2);
    expect(await usageOf(api.services, app.id, c.id, 'total')).to.equal(3);
    expect(await usageOf(api.services, app.id, c.id, `customer:${cust!.id}`)).to.equal(3);
    const states = Object.fromEntries((await journal().find({ campaign: base.campaign }).toArray()).map((d) => [d.orderId, d.state]));
    expect(states).to.deep.equal({ a: 'completed', b: 'completed', c: 'completed', d: 'refused', e: 'reverted' });
    expect(await legacyCounters().countDocuments({ campaign: base.campaign })).to.equal(0);
    // A second run finds nothing left to do and changes nothing.
    expect(await migrateCounters(api.services)).to.deep.equal({ counters: 0, legacyDocuments: 0 });
    expect(await usageOf(api.services, app.id, c.id, 'total')).to.equal(3);

    // The limit holds: full. Reverting a legacy cycle frees its slot; a new redeem takes it.
    expect((await redeem('legacy-1', 'LEGACY', makeOrder())).body.details).to.equal('coupon code redemption total_limit exceeded');
    const revert = await redeem('legacy-1', 'LEGACY', makeOrder({ order_id: 'a' }), 'revert');
    expect(revert.body.status).to.equal('reverted');
    expect(await usageOf(api.services, app.id, c.id, 'total')).to.equal(2);
    expect(await usageOf(api.services, app.id, c.id, `customer:${cust!.id}`)).to.equal(2);
    expect((await redeem('legacy-1', 'LEGACY', makeOrder())).status).to.equal(200);
    expect(await usageOf(api.services, app.id, c.id, 'total')).to.equal(3);
  });
});
