/**
 * Archive and delete (docs/admin-api.md "Archive and delete"): what each does to live coupons,
 * customers, wallets and credentials, and when a delete is refused because of history.
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, settle, type AdminApp } from '../support/admin.js';
import { useTestApi } from '../support/context.js';

describe('admin API: archive and delete', () => {
  const api = useTestApi();
  const { admin, client, newApp, must } = adminHelpers(api);
  const flat = { kind: 'discount', type: 'flat', value: 10 };

  /** An application with customers c1, c2, a wallet `loyalty` and a fixed campaign `ARCH10`. */
  async function setup(): Promise<{ app: AdminApp; campaignId: string }> {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }, { source_id: 'c2' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty' });
    const c = await must('POST', `/applications/${app.id}/campaigns`, { name: 'arch', code: 'ARCH10', discount: flat });
    await settle();
    return { app, campaignId: c.id };
  }
  const apply = (app: AdminApp, type: 'redeem' | 'revert', order: ReturnType<typeof makeOrder>, code = 'ARCH10', sourceId = 'c1') =>
    client(app, 'POST', `/coupons/apply?type=${type}`, { source_id: sourceId, coupon_details: [{ coupon_code: code }], order });

  describe('campaigns', () => {
    it('when a campaign is archived, then it is not listed, not applicable, not redeemable, and an earlier redemption still reverts', async () => {
      const { app, campaignId } = await setup();
      const order = makeOrder();
      expect((await apply(app, 'redeem', order)).status).to.equal(200);
      const archived = await admin('POST', `/applications/${app.id}/campaigns/${campaignId}/archive`);
      expect(archived.status).to.equal(200);
      expect(Date.parse(archived.body.archived_at)).to.be.closeTo(Date.now(), 5000);
      await settle();

      expect((await client(app, 'POST', '/coupons/list/all', { source_id: 'c1' })).body).to.deep.equal([]);
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_code: 'ARCH10' }], order: makeOrder() });
      expect(v.status).to.equal(200);
      expect(v.body).to.include({ is_applicable: false, message: 'coupon is not available at this moment or expired' });
      const redeem = await apply(app, 'redeem', makeOrder());
      expect(redeem.status).to.equal(400);
      expect(redeem.body).to.include({ message: 'coupon validation failed', details: 'coupon is not available at this moment or expired' });
      const revert = await apply(app, 'revert', order);
      expect(revert.status).to.equal(200);
      expect(revert.body).to.include({ status: 'reverted', orderId: order.order_id });
    });

    it('when a campaign is archived, then the admin listing hides it unless include_archived, and unarchive restores it', async () => {
      const { app, campaignId } = await setup();
      await must('POST', `/applications/${app.id}/campaigns/${campaignId}/archive`);
      const again = await must('POST', `/applications/${app.id}/campaigns/${campaignId}/archive`);
      expect(again.archived_at).to.be.a('string');
      expect((await must('GET', `/applications/${app.id}/campaigns`)).campaigns).to.deep.equal([]);
      const all = await must('GET', `/applications/${app.id}/campaigns?include_archived=true`);
      expect(all.campaigns.map((c: { id: string }) => c.id)).to.deep.equal([campaignId]);
      expect((await must('GET', `/applications/${app.id}/campaigns/${campaignId}`)).archived_at).to.equal(again.archived_at);

      const restored = await must('POST', `/applications/${app.id}/campaigns/${campaignId}/unarchive`);
      expect(restored).to.include({ archived_at: null, status: 'active' });
      await settle();
      const list = await client(app, 'POST', '/coupons/list/all', {});
      expect(list.body.map((r: { coupon_code: string }) => r.coupon_code)).to.deep.equal(['ARCH10']);
    });

    it("when an archived campaign's code is reused, then 409: codes of archived campaigns stay reserved", async () => {
      const { app, campaignId } = await setup();
      await must('POST', `/applications/${app.id}/campaigns/${campaignId}/archive`);
      const dup = await admin('POST', `/applications/${app.id}/campaigns`, { name: 'again', code: 'arch10', discount: flat });
      expect(dup.status).to.equal(409);
    });

    it('when a campaign that was never redeemed is deleted, then it is gone and its code is free again', async () => {
      const { app, campaignId } = await setup();
      const del = await admin('DELETE', `/applications/${app.id}/campaigns/${campaignId}`);
      expect(del.status).to.equal(200);
      expect(del.body).to.deep.equal({ id: campaignId, deleted: true });
      expect((await admin('GET', `/applications/${app.id}/campaigns/${campaignId}`)).status).to.equal(404);
      await settle();
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_code: 'ARCH10' }] });
      expect(v.status).to.equal(400);
      expect(v.body.details).to.equal('coupon not found, invalid coupon code or coupon id');
      expect((await admin('POST', `/applications/${app.id}/campaigns`, { name: 'again', code: 'ARCH10', discount: flat })).status).to.equal(
        201,
      );
    });

    it('when a redeemed campaign is deleted, then 409 and it stays, even after the redemption was reverted', async () => {
      const { app, campaignId } = await setup();
      const order = makeOrder();
      await apply(app, 'redeem', order);
      await apply(app, 'revert', order);
      const del = await admin('DELETE', `/applications/${app.id}/campaigns/${campaignId}`);
      expect(del.status).to.equal(409);
      expect(del.body).to.include({ code: 409, message: 'conflict', details: 'campaign has redemptions: archive it instead' });
      expect((await admin('GET', `/applications/${app.id}/campaigns/${campaignId}`)).status).to.equal(200);
    });

    it('when a bulk campaign is archived, then its codes are no longer applicable', async () => {
      const { app } = await setup();
      const bulk = await must('POST', `/applications/${app.id}/campaigns`, { name: 'bulk', code_type: 'bulk', discount: flat });
      await must('POST', `/applications/${app.id}/campaigns/${bulk.id}/codes`, { codes: ['BULK-ARCH'] });
      await must('POST', `/applications/${app.id}/campaigns/${bulk.id}/archive`);
      await settle();
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_id: 'bulk', coupon_code: 'BULK-ARCH' }] });
      expect(v.body).to.include({ is_applicable: false, message: 'coupon is not available at this moment or expired' });
    });
  });

  describe('customers', () => {
    it('when a customer is archived, then the client routes treat it as unknown and unarchive brings it back', async () => {
      const { app } = await setup();
      const archived = await must('POST', `/applications/${app.id}/customers/c1/archive`);
      expect(archived).to.include({ source_id: 'c1' });
      expect(archived.archived_at).to.be.a('string');

      const list = await client(app, 'POST', '/coupons/list/all', { source_id: 'c1' });
      expect(list.status).to.equal(400);
      expect(list.body).to.include({ message: 'invalid_payload', details: 'invalid source_id' });
      const redeem = await apply(app, 'redeem', makeOrder());
      expect(redeem.status).to.equal(400);
      expect(redeem.body).to.include({ message: 'Invalid payload', details: 'Invalid source_id' });
      const wallets = await client(app, 'GET', '/wallets/customer/c1');
      expect(wallets.status).to.equal(404);
      expect(wallets.body).to.include({ message: 'resource not found', details: 'customer not found' });
      // By the service's id as well.
      expect((await client(app, 'GET', `/wallets/customer/${archived.id}`)).status).to.equal(404);
      // The other customer is untouched.
      expect((await client(app, 'GET', '/wallets/customer/c2')).status).to.equal(200);

      const page = await must('GET', `/applications/${app.id}/customers`);
      expect(page.customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(['c2']);
      const all = await must('GET', `/applications/${app.id}/customers?include_archived=true`);
      expect(all.customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(['c1', 'c2']);
      // An upsert does not bring it back silently.
      const upserted = await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1', name: 'Asha' }] });
      expect(upserted.customers[0].archived_at).to.equal(archived.archived_at);

      expect((await must('POST', `/applications/${app.id}/customers/${archived.id}/unarchive`)).archived_at).to.equal(null);
      expect((await client(app, 'GET', '/wallets/customer/c1')).status).to.equal(200);
      expect((await apply(app, 'redeem', makeOrder())).status).to.equal(200);
    });

    it("when an archived customer's ledger and redemptions are read by the admin, then they are there", async () => {
      const { app } = await setup();
      await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: 3 });
      await apply(app, 'redeem', makeOrder());
      await must('POST', `/applications/${app.id}/customers/c1/archive`);
      const ledger = await must('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger`);
      expect(ledger.balance).to.equal(3);
      expect((await must('GET', `/applications/${app.id}/redemptions?customer=c1`)).redemptions).to.have.length(1);
    });

    it('when a customer without history is deleted, then it is gone and its source_id can be created again', async () => {
      const { app } = await setup();
      const del = await admin('DELETE', `/applications/${app.id}/customers/c2`);
      expect(del.status).to.equal(200);
      expect(del.body).to.include({ deleted: true });
      expect((await admin('POST', `/applications/${app.id}/customers/c2/archive`)).status).to.equal(404);
      expect((await client(app, 'GET', '/wallets/customer/c2')).status).to.equal(404);
      const again = await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c2' }] });
      expect(again.customers[0].id).to.not.equal(del.body.id);
    });

    for (const [label, makeHistory, details] of [
      ['a redemption', (app: AdminApp) => apply(app, 'redeem', makeOrder()), 'customer has redemptions: archive it instead'],
      [
        'a wallet transaction',
        (app: AdminApp) => client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: 1 }),
        'customer has wallet transactions: archive it instead',
      ],
    ] as const) {
      it(`when a customer with ${label} is deleted, then 409 and it stays`, async () => {
        const { app } = await setup();
        expect((await makeHistory(app)).status).to.equal(200);
        const del = await admin('DELETE', `/applications/${app.id}/customers/c1`);
        expect(del.status).to.equal(409);
        expect(del.body.details).to.equal(details);
        expect((await client(app, 'GET', '/wallets/customer/c1')).status).to.equal(200);
      });
    }

    it('when a customer assigned to a campaign is deleted, then 409 naming the campaign', async () => {
      const { app } = await setup();
      const c = await must('POST', `/applications/${app.id}/campaigns`, {
        name: 'mine',
        code: 'MINE',
        discount: flat,
        assignment: 'assigned_users',
        assigned_source_ids: ['c2'],
      });
      const del = await admin('DELETE', `/applications/${app.id}/customers/c2`);
      expect(del.status).to.equal(409);
      expect(del.body.details).to.equal(
        `customer is assigned to campaign ${c.id}: remove it from assigned_source_ids first, or archive the customer`,
      );
    });
  });

  describe('wallets', () => {
    it('when a wallet is archived, then the wallet read leaves it out, updates are 404, and the admin still reads it', async () => {
      const { app } = await setup();
      await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'stars' });
      await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: 4 });
      const archived = await must('POST', `/applications/${app.id}/wallets/loyalty/archive`);
      expect(archived).to.include({ wallet_id: 'loyalty' });
      expect(archived.archived_at).to.be.a('string');

      const read = await client(app, 'GET', '/wallets/customer/c1');
      expect(read.body.map((w: { wallet_id: string }) => w.wallet_id)).to.deep.equal(['stars']);
      const update = await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: 1 });
      expect(update.status).to.equal(404);
      expect(update.body).to.include({ message: 'resource not found', details: 'wallet not found' });
      expect((await must('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger`)).balance).to.equal(4);
      expect((await must('GET', `/applications/${app.id}/wallets`)).wallets.map((w: { wallet_id: string }) => w.wallet_id)).to.deep.equal([
        'stars',
      ]);
      const dup = await admin('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty' });
      expect(dup.status).to.equal(409);

      await must('POST', `/applications/${app.id}/wallets/loyalty/unarchive`);
      const back = await client(app, 'GET', '/wallets/customer/c1');
      expect(back.body.find((w: { wallet_id: string }) => w.wallet_id === 'loyalty')).to.include({ loyalty_points: 4 });
    });

    it('when a wallet receives the cashback of a live campaign, then archive is 409 until that campaign is archived', async () => {
      const { app } = await setup();
      const cb = await must('POST', `/applications/${app.id}/campaigns`, {
        name: 'cb',
        code: 'CB',
        discount: { kind: 'cashback', type: 'flat', value: 5, wallet_id: 'loyalty' },
      });
      const refused = await admin('POST', `/applications/${app.id}/wallets/loyalty/archive`);
      expect(refused.status).to.equal(409);
      expect(refused.body.details).to.equal(`wallet receives the cashback of campaign ${cb.id}: change or archive that campaign first`);
      await must('POST', `/applications/${app.id}/campaigns/${cb.id}/archive`);
      expect((await admin('POST', `/applications/${app.id}/wallets/loyalty/archive`)).status).to.equal(200);
      // The campaign cannot come back while its wallet is archived.
      const unarchive = await admin('POST', `/applications/${app.id}/campaigns/${cb.id}/unarchive`);
      expect(unarchive.status).to.equal(400);
      expect(unarchive.body.details).to.include('"discount.wallet_id" is not a wallet of this application');
    });

    it('when a wallet without transactions is deleted, then it is gone; with transactions, then 409', async () => {
      const { app } = await setup();
      await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'unused' });
      const del = await admin('DELETE', `/applications/${app.id}/wallets/unused`);
      expect(del.status).to.equal(200);
      expect(del.body).to.deep.equal({ wallet_id: 'unused', deleted: true });
      expect((await admin('DELETE', `/applications/${app.id}/wallets/unused`)).status).to.equal(404);

      await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: 1 });
      const refused = await admin('DELETE', `/applications/${app.id}/wallets/loyalty`);
      expect(refused.status).to.equal(409);
      expect(refused.body.details).to.equal('wallet has transactions: archive it instead');
    });
  });

  describe('applications', () => {
    it('when an application is archived, then its credentials are refused and it leaves the listing until unarchived', async () => {
      const { app } = await setup();
      expect((await client(app, 'POST', '/coupons/list/all', {})).status).to.equal(200);
      const archived = await must('POST', `/applications/${app.id}/archive`);
      expect(archived.archived_at).to.be.a('string');
      await settle();
      const refused = await client(app, 'POST', '/coupons/list/all', {});
      expect(refused.status).to.equal(401);
      const ids = async (query = '') => {
        const out: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await must('GET', `/applications?limit=1000${query}${cursor ? `&cursor=${cursor}` : ''}`);
          out.push(...page.applications.map((a: { id: string }) => a.id));
          cursor = page.next_cursor;
        } while (cursor);
        return out;
      };
      expect(await ids()).to.not.include(app.id);
      expect(await ids('&include_archived=true')).to.include(app.id);
      // Its admin routes keep working.
      expect((await must('GET', `/applications/${app.id}/customers`)).customers).to.have.length(2);

      await must('POST', `/applications/${app.id}/unarchive`);
      await settle();
      expect((await client(app, 'POST', '/coupons/list/all', {})).status).to.equal(200);
    });

    it('when an application with customers is deleted, then 409; once empty, then it is deleted', async () => {
      const app = await newApp();
      await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
      const refused = await admin('DELETE', `/applications/${app.id}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.details).to.equal('application has customers: delete them first, or archive the application');
      await must('DELETE', `/applications/${app.id}/customers/c1`);
      expect((await admin('DELETE', `/applications/${app.id}`)).body).to.deep.equal({ id: app.id, deleted: true });
      expect((await admin('PATCH', `/applications/${app.id}`, { name: 'x' })).status).to.equal(404);
      await settle();
      expect((await client(app, 'POST', '/coupons/list/all', {})).status).to.equal(401);
    });
  });

  it('when documents were stored before archiving existed (no archivedAt), then they are live everywhere', async () => {
    const app = await newApp();
    const { models } = api().services.db;
    const application = new Types.ObjectId(app.id);
    await models.Customer.collection.insertOne({ application, sourceId: 'old-customer', createdAt: new Date(), updatedAt: new Date() });
    await models.Wallet.collection.insertOne({
      application,
      walletId: 'old-wallet',
      name: 'Old',
      currency: 'INR',
      singularUnitName: 'point',
      pluralUnitName: 'points',
      timezone: 'UTC',
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    expect((await must('GET', `/applications/${app.id}/customers`)).customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(
      ['old-customer'],
    );
    const wallets = await client(app, 'GET', '/wallets/customer/old-customer');
    expect(wallets.status).to.equal(200);
    expect(wallets.body.map((w: { wallet_id: string }) => w.wallet_id)).to.deep.equal(['old-wallet']);
    expect((await must('POST', `/applications/${app.id}/customers/old-customer/archive`)).archived_at).to.be.a('string');
    expect((await client(app, 'GET', '/wallets/customer/old-customer')).status).to.equal(404);
  });

  it('when an unknown id is archived or deleted, then 404 naming what was not found', async () => {
    const app = await newApp();
    const none = '000000000000000000000000';
    for (const [path, what] of [
      [`/applications/${none}/archive`, 'application'],
      [`/applications/${app.id}/campaigns/${none}/archive`, 'campaign'],
      [`/applications/${app.id}/customers/ghost/archive`, 'customer'],
      [`/applications/${app.id}/wallets/ghost/archive`, 'wallet'],
    ] as const) {
      const res = await admin('POST', path);
      expect(res.status, path).to.equal(404);
      expect(res.body.details).to.equal(`${what} not found`);
    }
  });
});
