import { expect } from 'chai';
import type { BudgetEventData, EventRecord } from '../../shared/domain/events.js';
import type { Budget } from '../../shared/domain/types.js';
import { createCampaign, createCustomers, makeOrder } from '../fixtures/records.js';
import { settle } from '../support/admin.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * `campaign.budget_spent` (docs/events.md, docs/budgets.md): an event at each `notify_at` share of
 * a campaign's total budget and one when it is used up — spent to the cent with `cap`, or a redeem
 * refused for want of it with `refuse` — each once, whichever redeem gets there.
 */
describe('events of a money budget', () => {
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
    await createCustomers(api.services, app.id, ['b-1', 'b-2']);
    const res = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, {
      auth: `Bearer ${TEST_ADMIN_TOKEN}`,
      body: { url: receiver.url },
    });
    expect(res.status, res.text).to.equal(201);
    await settle(); // every process sees the endpoint
  });

  const budget = (over: Partial<Budget>): Budget => ({
    totalCents: null,
    perDayCents: null,
    perWeekCents: null,
    perMonthCents: null,
    perCustomerCents: null,
    whenExceeded: 'refuse',
    notifyAt: [],
    ...over,
  });
  const flat10 = { kind: 'discount' as const, type: 'flat' as const, value: 1000, maxCents: null, walletId: null };
  const redeem = (code: string, sourceId: string) =>
    call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_code: code }], order: makeOrder() },
    });
  /** The application's budget events, oldest first. */
  const budgetEvents = async () =>
    (await api.services.repos.events.list(app.id, { limit: 100 }))
      .filter((e: EventRecord) => e.type === 'campaign.budget_spent')
      .sort((a, b) => a.sequence - b.sequence || a.createdAt.getTime() - b.createdAt.getTime())
      .map((e) => e.data as BudgetEventData);

  it('when a capped budget reaches its notify share and then its last cent, then one event each, and none again after', async () => {
    const c = await createCampaign(api.services, app.id, {
      code: 'HALF',
      discount: flat10,
      budget: budget({ totalCents: 3500, whenExceeded: 'cap', notifyAt: [50] }),
    });
    expect((await redeem('HALF', 'b-1')).status).to.equal(200);
    expect(await budgetEvents()).to.deep.equal([]);
    expect((await redeem('HALF', 'b-2')).status).to.equal(200); // 20 of 35: past 50 %
    expect((await budgetEvents()).map((e) => e.share)).to.deep.equal([50]);
    expect((await redeem('HALF', 'b-1')).status).to.equal(200);
    const last = await redeem('HALF', 'b-2'); // 5 left: cut to it
    expect(last.status).to.equal(200);
    expect(last.headers.get('coupon-discount')).to.equal('5.00');
    expect((await redeem('HALF', 'b-1')).status).to.equal(400);
    const events = await budgetEvents();
    expect(events.map((e) => [e.share, e.exhausted])).to.deep.equal([
      [50, false],
      [100, true],
    ]);
    expect(events[1]).to.deep.include({ campaign_id: c.id, spent: 35, budget: 35 });
  });

  it('when a refusing budget cannot pay a redeem, then the refusal event is followed by the exhaustion, once', async () => {
    await createCampaign(api.services, app.id, { code: 'TIGHT', discount: flat10, budget: budget({ totalCents: 2500 }) });
    expect((await redeem('TIGHT', 'b-1')).status).to.equal(200);
    expect((await redeem('TIGHT', 'b-2')).status).to.equal(200);
    expect((await redeem('TIGHT', 'b-1')).status).to.equal(400);
    expect((await redeem('TIGHT', 'b-2')).status).to.equal(400);
    const events = await budgetEvents();
    expect(events.map((e) => [e.share, e.exhausted, e.spent])).to.deep.equal([[100, true, 20]]);
  });
});
