import { expect } from 'chai';
import type { EventRecord } from '../../shared/domain/events.js';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { settle } from '../support/admin.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The events of several coupons redeemed and reverted together (docs/events.md, docs/stacking.md):
 * one redemption event per coupon, each with its own redemption id and amounts, the cashback's
 * ledger event after its redemption's; one refusal naming the request's first entry.
 */
describe('events of a stacked redeem and revert', () => {
  let api: TestApi;
  let app: TestApplication;
  let receiver: WebhookReceiver;
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
    receiver = await new WebhookReceiver().up();
  });
  after(async () => {
    await api.close();
    await receiver.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    await api.services.repos.applications.update(app.id, { stacking: { maxCoupons: 3, automaticPromotions: false } });
    await createCustomers(api.services, app.id, ['cust-1']);
    const res = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, {
      auth: `Bearer ${TEST_ADMIN_TOKEN}`,
      body: { url: receiver.url },
    });
    expect(res.status, res.text).to.equal(201);
    await settle(); // every process sees the endpoint
  });

  const apply = (type: 'redeem' | 'revert', codes: string[], order: Record<string, unknown>) =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      body: { source_id: 'cust-1', coupon_details: codes.map((c) => ({ coupon_code: c })), order },
    });
  /** The application's events, oldest first (sequence order). */
  const events = async (): Promise<EventRecord[]> =>
    (await api.services.repos.events.list(app.id, { limit: 100 })).sort((a, b) => a.sequence - b.sequence);

  it('when two coupons, one with cashback, are redeemed and reverted together, then one redemption event per coupon, the cashback after its own', async () => {
    const wallet = await createWallet(api.services, app.id, 'cashback');
    const cash = await createCampaign(api.services, app.id, {
      code: 'CASH',
      discount: { kind: 'cashback', type: 'flat', value: 1500, maxCents: null, walletId: wallet.walletId },
      stacking: { priority: 1, category: null, exclusive: false, combinesWith: 'all' },
    });
    const off = await createCampaign(api.services, app.id, { code: 'OFF' });
    const order = makeOrder();
    expect((await apply('redeem', ['OFF', 'CASH'], order)).status).to.equal(200);
    const redeemed = await events();
    expect(redeemed.map((e) => [e.type, (e.data as { campaign_id?: string }).campaign_id ?? null])).to.deep.equal([
      ['redemption.completed', cash.id],
      ['wallet.transaction.completed', null],
      ['redemption.completed', off.id],
    ]);
    const ids = redeemed.filter((e) => e.type === 'redemption.completed').map((e) => (e.data as { redemption_id: string }).redemption_id);
    expect(new Set(ids).size).to.equal(2);
    expect((redeemed[2]!.data as { discount: number }).discount).to.equal(100);

    expect((await apply('revert', ['CASH'], order)).status).to.equal(200);
    const reverted = (await events()).slice(3);
    expect(reverted.map((e) => e.type).sort()).to.deep.equal([
      'redemption.reverted',
      'redemption.reverted',
      'wallet.transaction.completed',
    ]);
    // A repeat changes nothing and records nothing.
    expect((await apply('revert', ['OFF'], order)).status).to.equal(200);
    expect(await events()).to.have.length(6);
  });

  it('when a stacked redeem is refused, then one refusal event names the first entry', async () => {
    const first = await createCampaign(api.services, app.id, { code: 'FIRST' });
    await createCampaign(api.services, app.id, { code: 'GONE', limits: { total: 0 } });
    const res = await apply('redeem', ['FIRST', 'GONE'], makeOrder());
    expect(res.status).to.equal(400);
    const recorded = await events();
    expect(recorded.map((e) => e.type)).to.deep.equal(['redemption.refused']);
    expect(recorded[0]!.data).to.include({ campaign_id: first.id, coupon_code: 'FIRST', reason: 'total_limit' });
  });
});
