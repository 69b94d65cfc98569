/**
 * Paging of every admin listing: `limit` + opaque `cursor`, a stable order, `next_cursor` null on
 * the last page, bad parameters answered 400 (docs/admin-api.md "Paging").
 */
import { expect } from 'chai';
import { Types } from 'mongoose';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, everyPage, settle } from '../support/admin.js';
import { useTestApi } from '../support/context.js';

describe('admin API: paging', () => {
  const { admin, client, newApp, must } = adminHelpers(useTestApi());

  /** Every page of a listing with `limit`, following next_cursor; returns the pages' item lists. */
  function pages(path: string, key: string, limit: number): Promise<unknown[][]> {
    const sep = path.includes('?') ? '&' : '?';
    return everyPage(async (cursor) => {
      const page = await must('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page[key].length).to.be.at.most(limit);
      return { items: page[key] as unknown[], next: page.next_cursor as string | null };
    });
  }

  it('when customers are paged 2 at a time, then every customer comes once, in creation order, and the last page says so', async () => {
    const app = await newApp();
    const ids = ['a', 'b', 'c', 'd', 'e'].map((x) => `cust-${x}`);
    await must('POST', `/applications/${app.id}/customers`, { customers: ids.map((source_id) => ({ source_id })) });
    const got = await pages(`/applications/${app.id}/customers`, 'customers', 2);
    expect(got.map((p) => p.length)).to.deep.equal([2, 2, 1]);
    expect(got.flat().map((c) => (c as { source_id: string }).source_id)).to.deep.equal(ids);
    const exact = await pages(`/applications/${app.id}/customers`, 'customers', 5);
    expect(exact.map((p) => p.length)).to.deep.equal([5]);
  });

  it('when a customer is added between two pages, then the next page neither repeats nor skips one', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'x1' }, { source_id: 'x2' }, { source_id: 'x3' }] });
    const first = await must('GET', `/applications/${app.id}/customers?limit=2`);
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'x4' }] });
    const second = await must('GET', `/applications/${app.id}/customers?limit=2&cursor=${first.next_cursor}`);
    expect([...first.customers, ...second.customers].map((c: { source_id: string }) => c.source_id)).to.deep.equal([
      'x1',
      'x2',
      'x3',
      'x4',
    ]);
    expect(second.next_cursor).to.equal(null);
  });

  it('when customers are created one request after another, then their ids are made by the API process and follow creation order', async () => {
    // Ids the database makes on upsert need not follow creation order (each DocumentDB backend has
    // its own ObjectId generator, each shard of a MongoDB cluster too); the API's own do.
    const app = await newApp();
    const sourceIds = Array.from({ length: 8 }, (_, i) => `seq-${i}`);
    for (const source_id of sourceIds) await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id }] });
    const listed = (await must('GET', `/applications/${app.id}/customers`)).customers as { id: string; source_id: string }[];
    expect(listed.map((c) => c.source_id)).to.deep.equal(sourceIds);
    // An ObjectId's bytes 4-8 name the process that made it: this one, where the test API runs.
    const processOf = (id: string) => id.slice(8, 18);
    expect(new Set(listed.map((c) => processOf(c.id)))).to.deep.equal(new Set([processOf(new Types.ObjectId().toHexString())]));
  });

  it('when the old limit and skip are sent, then they still page the customers', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 's1' }, { source_id: 's2' }, { source_id: 's3' }] });
    const page = await must('GET', `/applications/${app.id}/customers?limit=1&skip=1`);
    expect(page.customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(['s2']);
  });

  it('when customers are searched by the beginning of their source id, then exactly those come, in source id order, paged, archived ones only on request', async () => {
    const app = await newApp();
    const ids = ['alpha-3', 'alpha-1', 'beta-1', 'alpha-2', 'alp.ha', 'Alpha-4', 'alpha-5'];
    await must('POST', `/applications/${app.id}/customers`, { customers: ids.map((source_id) => ({ source_id })) });
    await must('POST', `/applications/${app.id}/customers/alpha-5/archive`);
    const found = (await pages(`/applications/${app.id}/customers?search=alpha-`, 'customers', 2)).flat() as { source_id: string }[];
    expect(found.map((c) => c.source_id)).to.deep.equal(['alpha-1', 'alpha-2', 'alpha-3']);
    const withArchived = (await pages(`/applications/${app.id}/customers?search=alpha-&include_archived=true`, 'customers', 2)).flat() as {
      source_id: string;
    }[];
    expect(withArchived.map((c) => c.source_id)).to.deep.equal(['alpha-1', 'alpha-2', 'alpha-3', 'alpha-5']);
    // A regex character is only itself: "alp." matches "alp.ha", not "alpha-…".
    const literal = await must('GET', `/applications/${app.id}/customers?search=${encodeURIComponent('alp.')}`);
    expect(literal.customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(['alp.ha']);
    const other = await admin(
      'GET',
      `/applications/${app.id}/customers?search=alpha-&cursor=${encodeURIComponent(Buffer.from('["x"]').toString('base64url'))}`,
    );
    expect(other.status).to.equal(400);
  });

  it('when one customer is read, then it comes with its points in every wallet, archived too, by source id or id', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'reader', name: 'Ria' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'points' });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'miles' });
    await settle();
    expect((await client(app, 'PUT', '/wallets/customer/reader/transactions/points', { type: 'credit', points: 12.5 })).status).to.equal(
      200,
    );
    const bySource = await must('GET', `/applications/${app.id}/customers/reader`);
    expect(bySource).to.deep.include({ source_id: 'reader', name: 'Ria', archived_at: null });
    expect(bySource.wallets).to.deep.equal([
      { wallet_id: 'points', wallet_name: bySource.wallets[0].wallet_name, loyalty_points: 12.5 },
      { wallet_id: 'miles', wallet_name: bySource.wallets[1].wallet_name, loyalty_points: 0 },
    ]);
    await must('POST', `/applications/${app.id}/customers/reader/archive`);
    const byId = await must('GET', `/applications/${app.id}/customers/${bySource.id}`);
    expect(byId.archived_at).to.be.a('string');
    expect(byId.wallets[0].loyalty_points).to.equal(12.5);
    expect((await admin('GET', `/applications/${app.id}/customers/nobody`)).status).to.equal(404);
  });

  it('when campaigns, wallets and codes are paged, then each listing covers everything once', async () => {
    const app = await newApp();
    for (let i = 0; i < 3; i++) {
      await must('POST', `/applications/${app.id}/campaigns`, {
        name: `c${i}`,
        code: `PAGE${i}`,
        discount: { kind: 'discount', type: 'flat', value: 1 },
      });
      await must('POST', `/applications/${app.id}/wallets`, { wallet_id: `w${i}` });
    }
    const bulk = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'b',
      code_type: 'bulk',
      discount: { kind: 'discount', type: 'flat', value: 1 },
    });
    await must('POST', `/applications/${app.id}/campaigns/${bulk.id}/codes`, { generate: { count: 7 } });

    const campaigns = (await pages(`/applications/${app.id}/campaigns`, 'campaigns', 2)).flat() as { name: string }[];
    expect(campaigns.map((c) => c.name)).to.deep.equal(['c0', 'c1', 'c2', 'b']);
    const wallets = (await pages(`/applications/${app.id}/wallets`, 'wallets', 2)).flat() as { wallet_id: string }[];
    expect(wallets.map((w) => w.wallet_id)).to.deep.equal(['w0', 'w1', 'w2']);
    const codes = (await pages(`/applications/${app.id}/campaigns/${bulk.id}/codes`, 'codes', 3)).flat() as { id: string }[];
    expect(codes).to.have.length(7);
    expect(new Set(codes.map((c) => c.id)).size).to.equal(7);
    expect(codes.map((c) => c.id)).to.deep.equal([...codes.map((c) => c.id)].sort());
  });

  it('when applications are paged, then pages follow creation order without repeats', async () => {
    const mine = [await newApp(), await newApp(), await newApp()].map((a) => a.id);
    const all = (await pages('/applications', 'applications', 2)).flat().map((a) => (a as { id: string }).id);
    expect(new Set(all).size).to.equal(all.length);
    expect(all.filter((id) => mine.includes(id))).to.deep.equal(mine);
  });

  it('when redemptions and a ledger are paged, then newest redemptions come first and ledger entries oldest first', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty' });
    const c = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'r',
      code: 'RED',
      discount: { kind: 'discount', type: 'flat', value: 1 },
    });
    await settle();
    const orders: string[] = [];
    for (let i = 0; i < 3; i++) {
      const order = makeOrder();
      orders.push(order.order_id);
      const res = await client(app, 'POST', '/coupons/apply?type=redeem', {
        source_id: 'c1',
        coupon_details: [{ coupon_code: 'RED' }],
        order,
      });
      expect(res.status).to.equal(200);
      expect((await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: i + 1 })).status).to.equal(
        200,
      );
    }
    const reds = (await pages(`/applications/${app.id}/redemptions?campaign=${c.id}`, 'redemptions', 2)).flat() as { order_id: string }[];
    expect(reds.map((r) => r.order_id)).to.deep.equal([...orders].reverse());
    const byCustomer = (await pages(`/applications/${app.id}/redemptions?customer=c1`, 'redemptions', 1)).flat();
    expect(byCustomer).to.have.length(3);
    const entries = (await pages(`/applications/${app.id}/customers/c1/wallets/loyalty/ledger`, 'entries', 2)).flat() as {
      points: number;
    }[];
    expect(entries.map((e) => e.points)).to.deep.equal([1, 2, 3]);
  });

  const badQueries: [string, string, string][] = [
    ['a limit that is not a number', '/customers?limit=abc', '"limit" must be a number'],
    ['a limit of 0', '/customers?limit=0', '"limit" must be greater than or equal to 1'],
    [
      'a cursor that is not one',
      '/customers?cursor=bm9wZQ',
      '"cursor" is not a cursor of this listing (send the next_cursor of the previous page)',
    ],
    [
      'a redemptions cursor on customers',
      `/customers?cursor=${Buffer.from('[1,"x"]').toString('base64url')}`,
      '"cursor" is not a cursor of this listing',
    ],
    ['an unknown parameter', '/wallets?offset=3', '"offset" is not allowed'],
    ['skip where it is not offered', '/campaigns?skip=1', '"skip" is not allowed'],
    ['include_archived that is not a boolean', '/campaigns?include_archived=maybe', '"include_archived" must be a boolean'],
    ['a repeated limit', '/customers?limit=1&limit=2', '"limit" must be a number'],
  ];
  for (const [label, query, details] of badQueries) {
    it(`when a listing gets ${label}, then 400 naming it`, async () => {
      const app = await newApp();
      const res = await admin('GET', `/applications/${app.id}${query}`);
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Invalid payload');
      expect(res.body.details).to.include(details);
    });
  }

  it('when a limit above 1000 is asked, then at most 1000 come back', async () => {
    const app = await newApp();
    const res = await admin('GET', `/applications/${app.id}/customers?limit=5000`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ customers: [], next_cursor: null });
  });

  it('when redemptions are filtered by an unknown customer or campaign, then 404', async () => {
    const app = await newApp();
    expect((await admin('GET', `/applications/${app.id}/redemptions?customer=ghost`)).body.details).to.equal('customer not found');
    expect((await admin('GET', `/applications/${app.id}/redemptions?campaign=000000000000000000000000`)).body.details).to.equal(
      'campaign not found',
    );
  });
});
