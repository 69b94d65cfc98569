import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/**
 * Database commands per operation, counted with the driver's command monitoring over a real API
 * and worker in this process (they share the monitored connection). Pinned so that a regression
 * fails CI; docs/benchmarks.md has the before/after table. Caches are warm (a first request of
 * each kind runs before counting) and never re-checked during the test (CACHE_CHECK_MS).
 */
describe('database round trips per operation', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: TestApplication;
  const IGNORED = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo', 'getMore']);

  before(async () => {
    api = await startTestApi({ CACHE_CHECK_MS: '60000' });
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['warm', 'first', 'again', 'cash', 'wallet', 'wallet2']);
    await createWallet(api.services, app.id, 'loyalty');
    await createCampaign(api.services, app.id, { code: 'FLASH', limits: { total: 1000, perCustomer: 5, perDay: 500 } });
    await createCampaign(api.services, app.id, {
      code: 'CASHBACK',
      limits: { total: 1000 },
      discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: null, walletId: 'loyalty' },
    });
    // Warm every cache on both sides (credentials, campaigns, applications, wallets).
    for (const code of ['FLASH', 'CASHBACK']) expect((await redeem('warm', code)).status).to.equal(200);
    expect((await credit('warm')).status).to.equal(200);
  });
  after(() => api.close());

  const redeem = (sourceId: string, code: string, order = makeOrder(), type = 'redeem') =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_id: code, coupon_code: code }], order },
    });
  const credit = (sourceId: string) =>
    call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points: 5 } });

  /** The commands the operation sent, by name (in order). */
  async function commandsOf(run: () => Promise<{ status: number }>): Promise<string[]> {
    const client = api.services.db.connection.getClient();
    const seen: string[] = [];
    const onStart = (e: CommandStartedEvent) => {
      if (!IGNORED.has(e.commandName)) seen.push(`${e.commandName}:${String(e.command[e.commandName])}`);
    };
    client.on('commandStarted', onStart);
    try {
      expect((await run()).status).to.equal(200);
    } finally {
      client.off('commandStarted', onStart);
    }
    return seen;
  }

  const report = (name: string, cmds: string[]) => {
    if (process.env.ROUND_TRIPS_PRINT) process.stdout.write(`      ${name}: ${cmds.length} ${JSON.stringify(cmds)}\n`);
    return cmds;
  };

  // The customer (API); both counters taken at once; the commit; both lanes freed at once.
  const REDEEM = [
    'find:customers',
    'update:limit_counters',
    'update:limit_counters',
    'update:redemptions',
    'update:limit_counters',
    'update:limit_counters',
  ];

  it('when a first-time customer redeems a coupon with total, per-customer and per-day limits, then 6 commands', async () => {
    expect(report('redeem (first-time customer)', await commandsOf(() => redeem('first', 'FLASH')))).to.deep.equal(REDEEM);
  });

  it('when a returning customer redeems again, then the same 6 commands', async () => {
    expect((await redeem('again', 'FLASH')).status).to.equal(200);
    expect(report('redeem (returning customer)', await commandsOf(() => redeem('again', 'FLASH')))).to.deep.equal(REDEEM);
  });

  it('when a redemption is reverted, then 7 commands', async () => {
    const order = makeOrder();
    expect((await redeem('again', 'FLASH', order)).status).to.equal(200);
    expect(report('revert', await commandsOf(() => redeem('again', 'FLASH', order, 'revert')))).to.deep.equal([
      'find:customers',
      'find:redemptions',
      'update:limit_counters',
      'update:limit_counters',
      'update:redemptions',
      'update:limit_counters',
      'update:limit_counters',
    ]);
  });

  it('when a cashback coupon is redeemed by a customer without a balance yet, then 8 commands', async () => {
    expect(report('redeem (cashback)', await commandsOf(() => redeem('cash', 'CASHBACK')))).to.have.members([
      'find:customers',
      'update:limit_counters',
      'update:redemptions',
      // In parallel: the cashback credit (balance created on first use) and freeing the lane.
      'find:wallet_balances',
      'findAndModify:wallet_balances',
      'insert:wallet_transactions',
      'update:wallet_balances',
      'update:limit_counters',
    ]);
  });

  it('when a customer is credited for the first time and again, then 6 and 5 commands', async () => {
    const LEDGER = ['insert:wallet_transactions', 'update:wallet_balances'];
    expect(report('wallet credit (first)', await commandsOf(() => credit('wallet')))).to.have.ordered.members([
      'find:customers',
      'find:wallets',
      'find:wallet_balances',
      'findAndModify:wallet_balances',
      ...LEDGER,
    ]);
    expect(report('wallet credit (again)', await commandsOf(() => credit('wallet')))).to.have.ordered.members([
      'find:customers',
      'find:wallets',
      'find:wallet_balances',
      ...LEDGER,
    ]);
  });
});
