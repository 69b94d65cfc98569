/**
 * Erasing a person (docs/admin-api.md#erasing-a-person): the customer's name, e-mail and source id
 * leave the customer, its stored events, its webhook deliveries and the audit log, while its
 * redemptions, limit counters and wallet ledger stay exact and still refer to it.
 */
import { expect } from 'chai';
import { ADMIN_HEADERS } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { call, createTestApplication, useTestApi } from '../support/context.js';
import { createCampaign, createWallet, makeOrder } from '../fixtures/records.js';
import { waitFor, WebhookReceiver } from '../support/webhook-receiver.js';

describe('admin API: erasing a person', function () {
  this.timeout(120_000);
  const api = useTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' }); // the receiver is on this machine
  const admin = (method: string, path: string, body?: unknown) =>
    call(api().url, method, `/admin${path}`, { headers: ADMIN_HEADERS, body });
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await new WebhookReceiver().up();
  });
  after(() => receiver.close());

  it('when a customer is erased, then its personal data is gone everywhere we keep it, and its redemptions, counters and ledger stay exact', async () => {
    const services = api().services;
    const app = await createTestApplication(services);
    const sourceId = `ana-${process.pid}-${Date.now()}`;
    const [name, email] = ['Ana Lima', `ana.${process.pid}@example.com`];
    const upserted = await admin('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: sourceId, name, email }] });
    expect(upserted.status, upserted.text).to.equal(200);
    const customerId = upserted.body.customers[0].id as string;
    await createWallet(services, app.id);
    const campaign = await createCampaign(services, app.id, { code: `ERASE${process.pid}` } as never);
    expect((await admin('POST', `/applications/${app.id}/webhooks`, { url: receiver.url })).status).to.equal(201);
    await new Promise((r) => setTimeout(r, 400)); // the webhook endpoint reaches the caches (CACHE_CHECK_MS)
    const credit = await call(api().url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, {
      auth: app.auth,
      body: { type: 'credit', points: 7, description: 'welcome' },
    });
    expect(credit.status, credit.text).to.equal(200);
    const redeem = await call(api().url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_code: campaign.code }], order: makeOrder() },
    });
    expect(redeem.status, redeem.text).to.equal(200);
    await waitFor('both events delivered', () => receiver.received.filter((r) => r.body.includes(sourceId)).length >= 2);
    const balanceBefore = (await call(api().url, 'GET', `/wallets/customer/${sourceId}`, { auth: app.auth })).body;

    const erased = await admin('POST', `/applications/${app.id}/customers/${sourceId}/erase`);
    expect(erased.status, erased.text).to.equal(200);
    assertMatchesSpec('POST', '/admin/applications/{app}/customers/{customer}/erase', 200, erased.body);
    expect(erased.body).to.deep.include({ id: customerId, source_id: `erased-${customerId}` });
    expect(erased.body).to.not.have.any.keys('name', 'email');
    expect(Date.parse(erased.body.erased_at)).to.be.closeTo(Date.now(), 60_000);

    // Everything we keep about the customer, read through the admin API and from the collections.
    const kept = JSON.stringify([
      (await admin('GET', `/applications/${app.id}/customers?include_archived=true&limit=1000`)).body,
      (await admin('GET', `/applications/${app.id}/events?customer=${customerId}`)).body,
      (await admin('GET', `/audit?application=${app.id}&limit=1000`)).body,
      await services.db.models.Event.find({ application: app.id }).lean(),
      await services.db.models.WebhookDelivery.find({ application: app.id }).lean(),
      await services.db.models.AuditEntry.find({ 'target.application': app.id }).lean(),
    ]);
    for (const personal of [sourceId, name, email]) expect(kept, personal).to.not.include(personal);
    expect(kept).to.include(`erased-${customerId}`);

    // The old source id names no one; the service's id still reaches the same wallet and history.
    expect((await call(api().url, 'GET', `/wallets/customer/${sourceId}`, { auth: app.auth })).status).to.equal(404);
    const balanceAfter = (await call(api().url, 'GET', `/wallets/customer/${customerId}`, { auth: app.auth })).body;
    // The same wallets and balances, the customer named by its new source id where it is named at all.
    expect(JSON.stringify(balanceAfter)).to.equal(JSON.stringify(balanceBefore).replaceAll(sourceId, `erased-${customerId}`));
    const ledger = await admin('GET', `/applications/${app.id}/customers/${customerId}/wallets/loyalty/ledger`);
    expect(ledger.body.entries.map((e: any) => [e.type, e.points])).to.deep.include(['credit', 7]);
    const redemptions = await admin('GET', `/applications/${app.id}/redemptions?customer=${customerId}`);
    expect(redemptions.body.redemptions).to.have.length(1);
    const usage = await admin('GET', `/applications/${app.id}/campaigns/${campaign.id}/usage`);
    expect(usage.body.redeemed).to.equal(1);

    // The erasure is audited, without the erased data.
    const [entry] = (await admin('GET', `/audit?target_id=${customerId}&action=customer.erase`)).body.entries;
    expect(entry.changes.name).to.deep.equal({ before: '[erased]', after: null });
    expect(entry.changes.sourceId).to.deep.equal({ before: '[erased]', after: `erased-${customerId}` });
    // Asked again: the same answer, nothing more to do.
    expect((await admin('POST', `/applications/${app.id}/customers/${customerId}/erase`)).body).to.deep.equal(erased.body);
    expect((await admin('POST', `/applications/${app.id}/customers/${sourceId}/erase`)).status).to.equal(404);
  });
});
