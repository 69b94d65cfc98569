/**
 * Tiers end to end (docs/wallets.md "Tiers"), on a real API, worker and expiry sweep with a clock
 * the test moves (`services.now`, read by every part of this process): tiers set through the admin
 * API, credits, orders and returns through the client routes, the upgrade at once, the tier kept
 * until the period after ends, the re-assessment posted by the sweep (and its downgrade), the
 * Wallet-Tier header, the tier's points multiplier and the wallet.tier.changed events.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { until as poll } from '../support/poll.js';
import { call, startTestApi, type TestApi } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { makeOrder } from '../fixtures/records.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';

/** How long a test waits for the sweep's settle job (EXPIRY_SWEEP_MS is 100 here): a failure's deadline, not a measured bound. */
const SETTLE_DEADLINE_MS = 30_000;

const LEVELS = [
  { name: 'Member', min_points: 0 },
  { name: 'Silver', min_points: 1000, earning_multiplier: 1.25 },
  { name: 'Gold', min_points: 5000, earning_multiplier: 1.5 },
];

describe('wallets: tiers', function () {
  this.timeout(60_000);
  let api: TestApi;
  let clock = Date.parse('2026-03-10T10:00:00Z');
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', EXPIRY_SWEEP_MS: '100' });
    api.services.now = () => new Date(clock);
  });
  after(async () => {
    await api.close();
  });
  const { admin, client, newApp, must } = adminHelpers(() => api);
  const basic = (app: AdminApp) => `Basic ${Buffer.from(`${app.api_key}:${app.secret}`).toString('base64')}`;

  async function shop(tiers: Record<string, unknown>, wallet: Record<string, unknown> = {}) {
    const app = await newApp({ name: 'Shop', timezone: 'Europe/Berlin', currency: 'EUR' });
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', timezone: 'Europe/Berlin', tiers, ...wallet });
    await must('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    return app;
  }
  const op = async (app: AdminApp, type: 'credit' | 'debit', points: number) => {
    const res = await call(api.url, 'PUT', '/wallets/customer/c1/transactions/loyalty', { auth: basic(app), body: { type, points } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };
  const read = (app: AdminApp) => call(api.url, 'GET', '/wallets/customer/c1', { auth: basic(app) });
  const ledger = (app: AdminApp) => must('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger?limit=100`);
  const tierEvents = async (app: AdminApp) =>
    ((await must('GET', `/applications/${app.id}/events?type=wallet.tier.changed`)).events as any[])
      .sort((a, b) => a.sequence - b.sequence)
      .map((e) => e.data);
  const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>) => poll(what, probe, SETTLE_DEADLINE_MS);
  const order = (order_id: string, subtotal: number, status = 'completed') => ({
    order_id,
    status,
    selling_price_subtotal: subtotal,
    original_price_subtotal: subtotal,
    items: [{ product_id: 'p1', selling_price: subtotal, original_price: subtotal, quantity: 1 }],
  });
  const report = async (app: AdminApp, o: unknown) => {
    const res = await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order: o });
    expect(res.status, res.text).to.equal(200);
    return res.body as { points: number };
  };

  it('when a customer earns past a level, then the tier rises at once, spending does not lower it, and the header, ledger and event say so', async () => {
    clock = Date.parse('2026-03-10T10:00:00Z');
    const app = await shop({ period: 'year', levels: LEVELS });
    const [wallet] = (await must('GET', `/applications/${app.id}/wallets`)).wallets;
    expect(wallet.tiers).to.deep.equal({
      period: 'year',
      levels: [
        { name: 'Member', min_points: 0, earning_multiplier: 1 },
        { name: 'Silver', min_points: 1000, earning_multiplier: 1.25 },
        { name: 'Gold', min_points: 5000, earning_multiplier: 1.5 },
      ],
    });
    await op(app, 'credit', 400);
    expect((await read(app)).headers.get('wallet-tier')).to.equal(
      'loyalty;tier="Member";multiplier=1;kept-until="2026-12-31T23:00:00.000Z";earned=400;next="Silver";needed=600',
    );
    await op(app, 'credit', 800);
    await op(app, 'debit', 1100);
    const r = await read(app);
    expect(r.body, 'the documented body is unchanged').to.deep.equal([
      {
        wallet_id: 'loyalty',
        wallet_name: 'Loyalty points',
        currency: 'EUR',
        singular_unit_name: 'point',
        plural_unit_name: 'points',
        timezone: 'Europe/Berlin',
        loyalty_points: 100,
      },
    ]);
    expect(r.headers.get('wallet-tier'), 'spent points still count as earned').to.equal(
      'loyalty;tier="Silver";multiplier=1.25;kept-until="2026-12-31T23:00:00.000Z";earned=1200;next="Gold";needed=3800',
    );
    const l = await ledger(app);
    assertMatchesSpec('get', '/admin/applications/{app}/customers/{customer}/wallets/{wallet_id}/ledger', 200, l);
    expect(l.tier).to.deep.equal({
      level: 'Silver',
      held_level: 'Member',
      until: '2026-12-31T23:00:00.000Z',
      earned_points: 1200,
      earning_multiplier: 1.25,
      next_level: { name: 'Gold', points_needed: 3800 },
    });
    const events = await until('the tier event', async () => {
      const es = await tierEvents(app);
      return es.length > 0 && es;
    });
    expect(events).to.have.length(1);
    expect(events[0]).to.include({
      source_id: 'c1',
      wallet_id: 'loyalty',
      previous_tier: 'Member',
      tier: 'Silver',
      reason: 'earned',
      kept_until: '2026-12-31T23:00:00.000Z',
    });
    expect(events[0].txn_id, 'the credit that reached it').to.equal(l.entries[1].txn_id);
  });

  it("when orders are reported, then the tier's multiplier applies, and a return that takes back what reached a level takes the level back", async () => {
    clock = Date.parse('2026-05-02T10:00:00Z');
    const app = await shop({ period: 'year', levels: LEVELS }, { earning_rules: [{ name: 'Base', points: 1, per: 1 }] });
    expect((await report(app, order('o-1', 1000))).points, 'Member: 1x').to.equal(1000);
    expect((await report(app, order('o-2', 100))).points, 'Silver now: 1.25x').to.equal(125);
    const explained = await must('POST', `/applications/${app.id}/wallets/loyalty/earning/explain`, {
      order: order('x', 100),
      customer: 'c1',
    });
    expect([explained.tier_multiplier, explained.points], "explain values the order at the customer's tier").to.deep.equal([1.25, 125]);
    await report(app, order('o-1', 1000, 'returned'));
    const l = await ledger(app);
    expect([l.tier.level, l.tier.earned_points], 'o-1 came back: 125 earned this year').to.deep.equal(['Member', 125]);
    const events = await until('two tier events', async () => {
      const es = await tierEvents(app);
      return es.length === 2 && es;
    });
    expect(events.map((e) => [e.previous_tier, e.tier, e.reason])).to.deep.equal([
      ['Member', 'Silver', 'earned'],
      ['Silver', 'Member', 'taken_back'],
    ]);
  });

  it('when a period ends, then the sweep re-assesses the customer once: the tier is kept through the next period, then lowered on what it earned', async () => {
    clock = Date.parse('2026-06-01T10:00:00Z');
    const app = await shop({ period: 'year', levels: LEVELS });
    await op(app, 'credit', 5200);
    expect((await ledger(app)).tier.level).to.equal('Gold');
    // 00:00:30 on 1 January 2027 in Berlin: the sweep posts the re-assessment of 2026.
    clock = Date.parse('2026-12-31T23:00:30Z');
    const l2027 = await until('the 2026 re-assessment', async () => {
      const l = await ledger(app);
      return l.entries.some((e: any) => e.type === 'tier' && e.state === 'applied') && l;
    });
    const reassessed = l2027.entries.filter((e: any) => e.type === 'tier');
    expect(reassessed.map((e: any) => [e.txn_id.replace(/:[0-9a-f]{24}:/, ':w:'), e.points, e.before, e.after, e.origin])).to.deep.equal([
      ['tier:w:2026-12-31T23:00:00.000Z', 0, 5200, 5200, 'time'],
    ]);
    expect(l2027.tier).to.deep.include({ level: 'Gold', held_level: 'Gold', until: '2027-12-31T23:00:00.000Z', earned_points: 0 });
    await op(app, 'credit', 1500); // 2027 earns Silver's worth only
    clock = Date.parse('2027-12-31T23:00:30Z');
    const l2028 = await until('the 2027 re-assessment', async () => {
      const l = await ledger(app);
      return l.entries.filter((e: any) => e.type === 'tier' && e.state === 'applied').length === 2 && l;
    });
    expect(l2028.tier).to.deep.include({ level: 'Silver', held_level: 'Silver', until: '2028-12-31T23:00:00.000Z' });
    const events = await until('the downgrade event', async () => {
      const es = await tierEvents(app);
      return es.length === 2 && es;
    });
    expect(events.map((e) => [e.previous_tier, e.tier, e.reason, e.kept_until])).to.deep.equal([
      ['Member', 'Gold', 'earned', '2026-12-31T23:00:00.000Z'],
      ['Gold', 'Silver', 'reassessed', '2028-12-31T23:00:00.000Z'],
    ]);
    // Later sweeps find nothing more due until the end of 2028: no entry is posted twice.
    await new Promise((r) => setTimeout(r, 400));
    expect((await ledger(app)).entries.filter((e: any) => e.type === 'tier')).to.have.length(2);
    expect((await verifyApplication(api.services, app.id)).discrepancies, 'the verifier finds the ledger whole').to.deep.equal([]);
  });

  it("when a balance's tier counts more than its entries did, then the verifier reports the month with both figures and the tier against its last entry", async () => {
    clock = Date.parse('2026-05-02T10:00:00Z');
    const app = await shop({ period: 'year', levels: LEVELS }, { earning_rules: [{ name: 'Base', points: 1, per: 1 }] });
    await report(app, order('o-1', 1000));
    await report(app, order('o-2', 100));
    await report(app, order('o-1', 1000, 'returned'));
    clock = Date.parse('2026-06-02T10:00:00Z');
    await op(app, 'credit', 40);
    expect((await verifyApplication(api.services, app.id)).discrepancies, 'May: 1000 + 125 - 1000; June: 40').to.deep.equal([]);
    const Balance = api.services.db.models.WalletBalance.collection;
    const planted = await Balance.findOneAndUpdate(
      { application: new Types.ObjectId(app.id), 'tier.earned.month': '2026-05' },
      { $inc: { 'tier.earned.$.hundredths': 300 } },
    );
    expect(planted, 'the balance with a tier').to.not.equal(null);
    const found = (await verifyApplication(api.services, app.id)).discrepancies;
    expect(found.map((d) => [d.kind, d.expected, d.found])).to.deep.equal([
      ['tier_mismatch', 'Member', 'Member'],
      ['tier_mismatch', 12500, 12800],
    ]);
    expect(found[1]!.message).to.equal('the tier counts 12800 earned in 2026-05, its ledger 12500 (hundredths)');
    expect(found[1]!.documents[0]).to.deep.equal({ collection: 'wallet_balances', id: planted!._id });
  });

  it('when an operation comes after a period ended but before the sweep, then the re-assessment is posted first, before its entry', async () => {
    clock = Date.parse('2026-01-20T10:00:00Z');
    const app = await shop({ rolling_months: 1, levels: LEVELS });
    await op(app, 'credit', 1000);
    clock = Date.parse('2026-03-05T10:00:00Z');
    await op(app, 'credit', 10);
    const l = await ledger(app);
    expect(l.entries.map((e: any) => e.type)).to.deep.equal(['credit', 'tier', 'tier', 'credit']);
    expect(l.tier).to.deep.include({ level: 'Member', held_level: 'Member', earned_points: 10 });
    expect(
      (await verifyApplication(api.services, app.id)).discrepancies,
      "January's points, dropped with its window, are not compared",
    ).to.deep.equal([]);
  });

  it('when a campaign is for Gold members, then a Member is refused with its message and reason, and the same customer at Gold is not', async () => {
    clock = Date.parse('2026-04-01T10:00:00Z');
    const app = await shop({ period: 'year', levels: LEVELS });
    const campaign = {
      name: 'Gold ten',
      code: 'GOLD10',
      discount: { kind: 'discount', type: 'percentage', value: 10 },
      tiers: { wallet_id: 'loyalty', levels: ['Gold'] },
    };
    const created = await must('POST', `/applications/${app.id}/campaigns`, campaign);
    expect(created.tiers).to.deep.equal({ wallet_id: 'loyalty', levels: ['Gold'] });
    const unknownLevel = await admin('POST', `/applications/${app.id}/campaigns`, {
      ...campaign,
      code: 'X1',
      tiers: { wallet_id: 'loyalty', levels: ['Diamond'] },
    });
    expect([unknownLevel.status, unknownLevel.body.fields?.['tiers.levels']]).to.deep.equal([
      400,
      '"tiers.levels" names levels the wallet does not have: Diamond',
    ]);
    const body = { source_id: 'c1', coupon_details: [{ coupon_code: 'GOLD10' }], order: makeOrder() };
    const before = await call(api.url, 'POST', '/coupons/validate', { auth: basic(app), body });
    expect([before.status, before.body.is_applicable, before.body.message, before.headers.get('coupon-reason')]).to.deep.equal([
      200,
      false,
      'coupon is for Gold members only',
      'tier_rule',
    ]);
    const visitor = await call(api.url, 'POST', '/coupons/validate', { auth: basic(app), body: { ...body, source_id: undefined } });
    expect(visitor.body.is_applicable, 'a visitor has no tier').to.equal(false);
    const refused = await call(api.url, 'POST', '/coupons/apply?type=redeem', { auth: basic(app), body });
    expect([refused.status, refused.headers.get('coupon-reason')]).to.deep.equal([400, 'tier_rule']);
    await op(app, 'credit', 5000);
    const after = await call(api.url, 'POST', '/coupons/validate', { auth: basic(app), body });
    expect(after.body.is_applicable, JSON.stringify(after.body)).to.equal(true);
    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', { auth: basic(app), body });
    expect(redeemed.status, redeemed.text).to.equal(200);
    const listed = await call(api.url, 'POST', '/coupons/list/all', { auth: basic(app), body: { source_id: 'c1' } });
    expect(listed.body.find((c: any) => c.coupon_code === 'GOLD10')?.is_applicable).to.equal(true);
  });

  it('when tiers are sent wrong, then the admin API refuses them naming the field', async () => {
    const app = await shop({ period: 'month', levels: LEVELS });
    const cases: [unknown, string][] = [
      [{ period: 'year', levels: [{ name: 'A', min_points: 10 }] }, 'must be 0'],
      [
        {
          period: 'year',
          levels: [
            { name: 'A', min_points: 0 },
            { name: 'B', min_points: 0 },
          ],
        },
        'more than the level before it',
      ],
      [
        {
          period: 'year',
          levels: [
            { name: 'A', min_points: 0 },
            { name: 'a', min_points: 5 },
          ],
        },
        'used twice',
      ],
      [{ period: 'year', rolling_months: 3, levels: [{ name: 'A', min_points: 0 }] }, 'period'],
      [{ period: 'week', levels: [{ name: 'A', min_points: 0 }] }, 'tiers.period'],
      [{ rolling_months: 25, levels: [{ name: 'A', min_points: 0 }] }, 'tiers.rolling_months'],
    ];
    for (const [tiers, text] of cases) {
      const res = await admin('PATCH', `/applications/${app.id}/wallets/loyalty`, { tiers });
      expect(res.status, JSON.stringify(tiers)).to.equal(400);
      expect(res.text, JSON.stringify(tiers)).to.contain(text);
    }
    const named = await admin('PATCH', `/applications/${app.id}/wallets/loyalty`, {
      tiers: {
        period: 'year',
        levels: [
          { name: 'A', min_points: 0 },
          { name: 'B', min_points: 5 },
          { name: 'C', min_points: 5 },
        ],
      },
    });
    expect(Object.keys(named.body.fields), 'the level is named, for the console to show it beside the level').to.deep.equal([
      'tiers.levels.2.min_points',
    ]);
    const cleared = await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { tiers: null });
    expect(cleared.tiers).to.equal(null);
  });
});
