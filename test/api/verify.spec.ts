/**
 * The exactness verifier (shared/usecases/verify-exactness.usecase.ts, docs/operations.md
 * "Verifying exactness"): a database made by real redeems, reverts, stacked redeems, cashback,
 * credits, debits and expiring points has no discrepancy; each defect planted in it is reported
 * with the documents involved, by the use case, the admin API, `npm run admin -- verify` and
 * `npm run verify` (exit 3).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { eventIdOf } from '../../shared/domain/events.js';
import type { Campaign } from '../../shared/domain/types.js';
import { verifyApplication, type Discrepancy, type VerifyReport } from '../../shared/usecases/verify-exactness.usecase.js';
import { nodeArgsFor } from '../../scripts/service-build.js';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, TEST_ADMIN_TOKEN, testMongoUri, useTestApi, type TestApplication } from '../support/context.js';

const exec = promisify(execFile);
const DAY_MS = 86_400_000;

describe('the exactness verifier', function () {
  this.timeout(120_000);
  const api = useTestApi();
  afterEach(() => {
    api().services.now = () => new Date();
  });

  interface Shop {
    app: TestApplication;
    limited: Campaign;
    cash: Campaign;
    /** Orders redeemed with LIMITED and still completed. */
    orders: string[];
    walletDbId: string;
  }

  const post = (app: TestApplication, path: string, body: unknown) => call(api().url, 'POST', path, { auth: app.auth, body });
  async function apply(app: TestApplication, type: 'redeem' | 'revert', codes: string[], order: Record<string, unknown>, sourceId = 'c1') {
    const res = await post(app, `/coupons/apply?type=${type}`, {
      source_id: sourceId,
      coupon_details: codes.map((c) => ({ coupon_code: c })),
      order,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res;
  }
  async function wallet(app: TestApplication, type: 'credit' | 'debit', points: number, sourceId = 'c1') {
    const res = await call(api().url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, {
      auth: app.auth,
      body: { type, points },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  /** An application with a webhook endpoint, limited and cashback campaigns (and two that stack, S1 and S2), and a few redeems, a revert, credits and a debit. */
  async function shop(opts: { stacking?: boolean } = {}): Promise<Shop> {
    const { services } = api();
    const app = await createTestApplication(services);
    if (opts.stacking)
      await services.repos.applications.update(app.id, { stacking: { maxCoupons: 3, automaticPromotions: false } } as never);
    await createCustomers(services, app.id, ['c1', 'c2', 'c3']);
    const w = await createWallet(services, app.id, 'loyalty');
    await services.repos.wallets.update(app.id, w.id, { pointsExpiry: { kind: 'after', amount: 1, unit: 'days' } });
    await services.repos.webhookEndpoints.create(app.id, {
      url: 'https://93.184.216.34/hooks',
      eventTypes: ['redemption.completed'],
      description: '',
      secret: 'whsec_verify',
    });
    const limited = await createCampaign(services, app.id, { code: 'LIMITED', limits: { total: 10, perDay: 6, perCustomer: 3 } });
    const cash = await createCampaign(services, app.id, {
      code: 'CASH',
      limits: { total: 100 },
      discount: { kind: 'cashback', type: 'flat', value: 2500, maxCents: null, walletId: 'loyalty' },
    });
    if (opts.stacking) {
      await createCampaign(services, app.id, { code: 'S1', limits: { total: 50, perCustomer: 5 } });
      await createCampaign(services, app.id, {
        code: 'S2',
        limits: { perDay: 50 },
        discount: { kind: 'cashback', type: 'flat', value: 1000, maxCents: null, walletId: 'loyalty' },
      });
    }
    const orders: string[] = [];
    for (const sourceId of ['c1', 'c2', 'c2']) {
      const order = makeOrder();
      await apply(app, 'redeem', ['LIMITED'], order, sourceId);
      orders.push(order.order_id);
    }
    const reverted = makeOrder();
    await apply(app, 'redeem', ['LIMITED'], reverted, 'c3');
    await apply(app, 'revert', ['LIMITED'], reverted, 'c3');
    await apply(app, 'redeem', ['LIMITED'], reverted, 'c3'); // the order's second cycle
    orders.push(reverted.order_id);
    await apply(app, 'redeem', ['CASH'], makeOrder());
    await wallet(app, 'credit', 10);
    await wallet(app, 'debit', 3);
    return { app, limited, cash, orders, walletDbId: w.id };
  }

  const verify = (app: TestApplication) => verifyApplication(api().services, app.id, { recheckMs: 0, eventGraceMs: 0 });
  const kinds = (r: VerifyReport) => r.discrepancies.map((d) => d.kind);
  const docs = (d: Discrepancy | undefined) => d?.documents.map((x) => `${x.collection}/${x.id}`) ?? [];
  const only = (r: VerifyReport, kind: Discrepancy['kind']) => {
    const found = r.discrepancies.filter((d) => d.kind === kind);
    expect(found, JSON.stringify(r.discrepancies)).to.have.length(1);
    return found[0]!;
  };
  const models = () => api().services.db.models;
  /** The `_id` of an order's cycle of a campaign (read from the journal: the key hashes the order). */
  async function cycleOf(campaignId: string, orderId: string, cycle = 1): Promise<string> {
    const d = await models().Redemption.findOne({ campaign: campaignId, orderId, cycle }).lean<{ _id: string }>();
    return d!._id;
  }

  it('when a database holds redeems, reverts, stacked redeems, cashback, credits, debits and expired points, then it has no discrepancy', async () => {
    const s = await shop({ stacking: true });
    const { services } = api();
    const kept = makeOrder();
    await apply(s.app, 'redeem', ['S1', 'S2'], kept);
    const back = makeOrder();
    await apply(s.app, 'redeem', ['S1', 'S2', 'CASH'], back, 'c2');
    await apply(s.app, 'revert', ['S1'], back, 'c2');
    await wallet(s.app, 'credit', 40, 'c3');
    await wallet(s.app, 'debit', 15, 'c3');
    // Two days on: the credits expire; the next operation posts their `expired` entries first.
    const later = Date.now() + 2 * DAY_MS;
    services.now = () => new Date(later + (Date.now() % 1000));
    await wallet(s.app, 'credit', 7, 'c3');
    await wallet(s.app, 'credit', 1, 'c1');
    const expired = await models().WalletTransaction.countDocuments({ application: s.app.id, type: 'expired' });
    expect(expired, 'expired entries').to.be.at.least(2);

    const report = await verify(s.app);
    expect(report.discrepancies).to.deep.equal([]);
    expect(report.discrepancyCount).to.equal(0);
    expect(report.checked.campaigns).to.equal(4);
    expect(report.checked.cycles).to.equal(5 + 2 + 2 + 2); // LIMITED 5 cycles; CASH, S1 and S2 2 each
    expect(report.checked.balances).to.equal(3);
    expect(report.checked.events, 'completed and reverted cycles looked up').to.be.at.least(report.checked.cycles);
    expect(report.eventsSkipped).to.equal(null);
    expect(report.inFlightCount).to.equal(0);

    // The admin API answers the same report; any role reads it.
    const res = await call(api().url, 'GET', `/admin/applications/${s.app.id}/verify?recheck_ms=0&event_grace_ms=0`, {
      headers: ADMIN_HEADERS,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ application_id: s.app.id, ok: true, discrepancy_count: 0 });
    expect(res.body.checked).to.deep.equal(report.checked);
    const bad = await call(api().url, 'GET', `/admin/applications/${s.app.id}/verify?recheck_ms=soon`, { headers: ADMIN_HEADERS });
    expect(bad.status).to.equal(400);
  });

  it('when a counter is off by one, then the counter is reported with the recount', async () => {
    const s = await shop();
    await models().LimitCounter.collection.updateOne({ _id: s.limited.id as never }, { $inc: { total: 1 } });
    const d = only(await verify(s.app), 'counter_mismatch');
    expect(docs(d)).to.deep.equal([`limit_counters/${s.limited.id}`]);
    expect(d).to.include({ expected: 4, found: 5 });
  });

  it('when a lane names a change that was never journaled and the count does not hold it, then the counter is reported with the lane', async () => {
    const s = await shop();
    const customer = (await services().repos.customers.findBySourceIds(s.app.id, ['c1']))[0]!;
    const counterId = `${s.limited.id}:u:${customer.id}`;
    await models().LimitCounter.collection.updateOne(
      { _id: counterId as never },
      { $set: { 'lanes.p4_01': 'AAAAAAAA/+/2026-01-05/nowhere:1' } },
    );
    const report = await verify(s.app);
    const d = only(report, 'counter_mismatch');
    expect(docs(d)).to.deep.equal([`limit_counters/${counterId}`, `redemptions/${s.limited.id}:nowhere:1`]);
    expect(d).to.include({ expected: 2, found: 1 });
    expect(report.inFlight.map((f) => f.document.id)).to.deep.equal([counterId]);
  });

  it('when a lane holds a take that did not commit and the count holds it, then it is in flight, not a discrepancy', async () => {
    const s = await shop();
    await models().LimitCounter.collection.updateOne(
      { _id: s.limited.id as never },
      { $set: { 'lanes.p4_02': 'BBBBBBBB/+/2026-01-05/crashed:1' }, $inc: { total: 1 } },
    );
    const report = await verify(s.app);
    expect(report.discrepancies).to.deep.equal([]);
    expect(report.inFlightCount).to.equal(1);
    expect(report.inFlight[0]!.detail).to.match(/not in the journal yet/);
  });

  it('when a balance is off, then the balance and its last entry are reported', async () => {
    const s = await shop();
    const customer = (await services().repos.customers.findBySourceIds(s.app.id, ['c1']))[0]!;
    const balanceId = `${s.app.id}:${customer.id}:${s.walletDbId}`;
    const balance = await models().WalletBalance.collection.findOneAndUpdate({ _id: balanceId as never }, { $inc: { points: 100 } });
    const d = only(await verify(s.app), 'balance_mismatch');
    expect(docs(d)).to.deep.equal([`wallet_balances/${balanceId}`, `wallet_transactions/${balanceId}:${balance!.version - 1}`]);
    expect(d).to.include({ expected: balance!.points, found: balance!.points + 100 });
  });

  it('when a ledger entry is removed, then its slot is reported', async () => {
    const s = await shop();
    const customer = (await services().repos.customers.findBySourceIds(s.app.id, ['c1']))[0]!;
    const balanceId = `${s.app.id}:${customer.id}:${s.walletDbId}`;
    await models().WalletTransaction.collection.deleteOne({ _id: `${balanceId}:1` as never });
    const d = only(await verify(s.app), 'ledger_gap');
    expect(docs(d)).to.deep.equal([`wallet_transactions/${balanceId}:1`, `wallet_balances/${balanceId}`]);
  });

  it('when an order has a second completed cycle, then both cycles are reported', async () => {
    const s = await shop();
    const first = await cycleOf(s.limited.id, s.orders[0]!);
    const copy = (await models().Redemption.collection.findOne({ _id: first as never }))!;
    const second = first.replace(/:1$/, ':2');
    await models().Redemption.collection.insertOne({ ...copy, _id: second as never, cycle: 2, key: second, att: {} });
    const report = await verify(s.app);
    expect(docs(only(report, 'order_redeemed_twice'))).to.deep.equal([`redemptions/${first}`, `redemptions/${second}`]);
    expect(kinds(report)).to.include('counter_mismatch'); // the copy names the counters too
  });

  it('when a redemption of an application with an endpoint has no event, then the cycle and the event id are reported', async () => {
    const s = await shop();
    const cycle = await cycleOf(s.limited.id, s.orders[1]!);
    const eventId = eventIdOf(s.app.id, 'redemption.completed', `redemption:${cycle}`);
    expect((await models().Event.collection.deleteOne({ _id: eventId as never })).deletedCount).to.equal(1);
    expect(docs(only(await verify(s.app), 'event_missing'))).to.deep.equal([`redemptions/${cycle}`, `events/${eventId}`]);
  });

  it('when the recount is above the limit, then the campaign and its counter are reported as exceeded or lowered since', async () => {
    const s = await shop();
    await services().repos.campaigns.update(s.app.id, s.limited.id, { limits: { total: 3, perDay: 6, perCustomer: 1 } });
    const report = await verify(s.app);
    const over = report.discrepancies.filter((d) => d.kind === 'limit_exceeded');
    const customer = (await services().repos.customers.findBySourceIds(s.app.id, ['c2']))[0]!;
    expect(over.map((d) => [docs(d), d.expected, d.found])).to.deep.equal([
      [[`campaigns/${s.limited.id}`, `limit_counters/${s.limited.id}`], 3, 4],
      [[`campaigns/${s.limited.id}`, `limit_counters/${s.limited.id}:u:${customer.id}`], 1, 2],
    ]);
    expect(over[0]!.message).to.match(/lowered since/);
    expect(report.discrepancyCount).to.equal(2);
  });

  describe('from the command line', () => {
    /** Runs a script; resolves with its exit code and output whatever the code. */
    const run = async (script: string, args: string[], env: Record<string, string>) => {
      try {
        const { stdout, stderr } = await exec('node', [...nodeArgsFor(script), ...args], { env: { ...process.env, ...env } });
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };

    it('when a counter is off, then `admin verify` and `npm run verify` print it with its id and exit 3; a clean application exits 0', async () => {
      const bad = await shop();
      const good = await shop();
      await models().LimitCounter.collection.updateOne({ _id: bad.cash.id as never }, { $inc: { total: -1 } });
      const admin = { COUPONS_URL: api().url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN, MONGODB_URI: '', REDIS_URL: '' };
      const direct = { MONGODB_URI: testMongoUri(), REDIS_URL: '' };
      for (const [script, args, env] of [
        ['scripts/admin.ts', ['verify', '--application'], admin],
        ['scripts/verify.ts', ['--recheck-ms', '0', '--event-grace-ms', '0', '--application'], direct],
      ] as const) {
        const failed = await run(script, [...args, bad.app.id], env);
        expect(failed.code, `${script}: ${failed.stderr}`).to.equal(3);
        const lines = failed.stdout.trim().split('\n');
        expect(lines[0]).to.match(new RegExp(`^${bad.app.id}: 1 discrepancy — 2 campaigns, 6 cycles`));
        expect(lines[1]).to.equal(
          `  counter_mismatch: total is 0, the journal's completed redemptions say 1 (expected 1, found 0) — limit_counters/${bad.cash.id}`,
        );
        const passed = await run(script, [...args, good.app.id], env);
        expect(passed.code, `${script}: ${passed.stderr}`).to.equal(0);
        expect(passed.stdout).to.match(new RegExp(`^${good.app.id}: ok — `));
      }
    });
  });

  const services = () => api().services;
});
