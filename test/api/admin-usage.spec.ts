/**
 * "How many were used?": a campaign's usage (redeemed, reverted, refused, each limit's use and
 * what remains in the current period) and the redemption search (order, state, time range),
 * through real redeems and reverts (docs/admin-api.md "Usage and search").
 */
import { expect } from 'chai';
import { periodKeys } from '../../shared/domain/periods.js';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, everyPage, settle, type AdminApp } from '../support/admin.js';
import { useTestApi } from '../support/context.js';

describe('admin API: campaign usage and redemption search', () => {
  const api = useTestApi();
  const { admin, client, newApp, must } = adminHelpers(api);
  let app: AdminApp;
  const customers = ['c1', 'c2', 'c3', 'c4'];

  before(async () => {
    app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: customers.map((source_id) => ({ source_id })) });
  });

  const campaign = async (code: string, limits: Record<string, number> = {}) =>
    (await must('POST', `/applications/${app.id}/campaigns`, {
      name: code,
      code,
      discount: { kind: 'discount', type: 'flat', value: 1 },
      limits,
    })) as {
      id: string;
    };
  const apply = (type: 'redeem' | 'revert', code: string, sourceId: string, order: ReturnType<typeof makeOrder>) =>
    client(app, 'POST', `/coupons/apply?type=${type}`, { source_id: sourceId, coupon_details: [{ coupon_code: code }], order });

  it('when a limited campaign is redeemed, refused and reverted, then its usage counts each and says what remains today', async () => {
    const c = await campaign('DAILY', { total: 5, per_day: 3 });
    await settle();
    const orders = customers.map(() => makeOrder());
    for (let i = 0; i < 3; i++) expect((await apply('redeem', 'DAILY', customers[i]!, orders[i]!)).status).to.equal(200);
    const refused = await apply('redeem', 'DAILY', 'c4', orders[3]!);
    expect(refused.status).to.equal(400);
    expect(refused.headers.get('coupon-reason')).to.equal('per_day_limit');
    expect((await apply('revert', 'DAILY', 'c1', orders[0]!)).status).to.equal(200);

    const usage = await must('GET', `/applications/${app.id}/campaigns/${c.id}/usage`);
    const today = periodKeys(new Date(usage.as_of), app.timezone);
    expect(usage).to.deep.include({ campaign_id: c.id, redeemed: 2, reverted: 1, refused: 1 });
    expect(usage.limits).to.deep.equal({
      total: { limit: 5, used: 2, remaining: 3 },
      per_day: { limit: 3, used: 2, remaining: 1, period: today.day },
      per_week: { limit: null, used: 2, remaining: null, period: today.week },
      per_month: { limit: null, used: 2, remaining: null, period: today.month },
      per_customer: { limit: null },
    });
  });

  it('when a campaign has no campaign-wide limit, then usage counts its redemptions from the journal and no period use is claimed', async () => {
    const c = await campaign('OPEN');
    await settle();
    for (const id of ['c1', 'c2']) expect((await apply('redeem', 'OPEN', id, makeOrder())).status).to.equal(200);
    const usage = await must('GET', `/applications/${app.id}/campaigns/${c.id}/usage`);
    expect(usage).to.deep.include({ redeemed: 2, reverted: 0, refused: 0 });
    expect(usage.limits.total).to.deep.equal({ limit: null, used: 2, remaining: null });
    expect(usage.limits.per_day).to.include({ limit: null, used: null, remaining: null });
  });

  it("when another application's campaign or an unknown one is asked for, then 404", async () => {
    const mine = await campaign('MINE');
    const other = await newApp();
    expect((await admin('GET', `/applications/${other.id}/campaigns/${mine.id}/usage`)).status).to.equal(404);
    expect((await admin('GET', `/applications/${app.id}/campaigns/6b03e8cebf2cbb4ef5f12d1f/usage`)).status).to.equal(404);
  });

  it('when redemptions are searched by order, state and time, then exactly the matching cycles come back, newest first', async () => {
    const a = await campaign('ORDA');
    const b = await campaign('ORDB');
    await settle();
    const order = makeOrder();
    const before = new Date();
    expect((await apply('redeem', 'ORDA', 'c2', order)).status).to.equal(200);
    expect((await apply('redeem', 'ORDB', 'c2', order)).status).to.equal(200);
    expect((await apply('revert', 'ORDA', 'c2', order)).status).to.equal(200);
    expect((await apply('redeem', 'ORDA', 'c2', order)).status).to.equal(200); // cycle 2
    expect((await apply('redeem', 'ORDA', 'c3', makeOrder())).status).to.equal(200); // another order
    const search = async (query: string) =>
      (
        await everyPage(async (cursor) => {
          const page = await must(
            'GET',
            `/applications/${app.id}/redemptions?limit=2&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          return {
            items: page.redemptions as { campaign_id: string; order_id: string; cycle: number; state: string }[],
            next: page.next_cursor,
          };
        })
      ).flat();
    const all = await search(`order_id=${order.order_id}`);
    expect(all.map((r) => [r.campaign_id, r.cycle, r.state])).to.deep.equal([
      [a.id, 2, 'completed'],
      [b.id, 1, 'completed'],
      [a.id, 1, 'reverted'],
    ]);
    expect(all.every((r) => r.order_id === order.order_id)).to.equal(true);
    expect((await search(`order_id=${order.order_id}&state=reverted`)).map((r) => r.cycle)).to.deep.equal([1]);
    expect((await search(`order_id=${order.order_id}&campaign=${b.id}`)).map((r) => r.campaign_id)).to.deep.equal([b.id]);
    expect(await search(`order_id=nope-${order.order_id}`)).to.deep.equal([]);
    const since = await search(`from=${before.toISOString()}&state=completed`);
    expect(since.map((r) => r.order_id)).to.include(order.order_id);
    expect(since.every((r) => r.state === 'completed')).to.equal(true);
    expect(await search(`to=${before.toISOString()}&order_id=${order.order_id}`)).to.deep.equal([]);
  });

  it('when redemptions are searched by the beginning of an order number, then exactly the orders it begins, newest first, each naming its campaign and customer', async () => {
    const c = await campaign('PREFIXED');
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c-named', name: 'Asha Rao' }] });
    await settle();
    const stem = `pfx-${process.pid}-${Date.now()}`;
    // Two orders under the stem, one beside it that shares all but its last character, one far away.
    const orders = [`${stem}-1001`, `${stem}-1002`, `${stem.slice(0, -1)}#-1003`, `other-${stem}`].map((order_id) =>
      makeOrder({ order_id }),
    );
    for (const [i, order] of orders.entries())
      expect((await apply('redeem', 'PREFIXED', i === 0 ? 'c-named' : 'c1', order)).status).to.equal(200);
    const search = async (query: string) =>
      (
        await everyPage(async (cursor) => {
          const page = await must(
            'GET',
            `/applications/${app.id}/redemptions?limit=1&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          return { items: page.redemptions as Record<string, unknown>[], next: page.next_cursor };
        })
      ).flat();
    const found = await search(`order_id_prefix=${encodeURIComponent(stem)}`);
    expect(found.map((r) => r.order_id)).to.deep.equal([`${stem}-1002`, `${stem}-1001`]);
    expect(found[1]).to.include({ campaign_id: c.id, campaign_name: 'PREFIXED', customer_source_id: 'c-named', customer_name: 'Asha Rao' });
    expect(found[0]).to.include({ campaign_name: 'PREFIXED', customer_source_id: 'c1', customer_name: null });
    // The whole id is a prefix of itself; a prefix that begins nothing finds nothing.
    expect((await search(`order_id_prefix=${encodeURIComponent(`${stem}-1001`)}`)).map((r) => r.order_id)).to.deep.equal([`${stem}-1001`]);
    expect(await search(`order_id_prefix=${encodeURIComponent(`${stem}-9`)}`)).to.deep.equal([]);
    const both = await admin('GET', `/applications/${app.id}/redemptions?order_id=x&order_id_prefix=x`);
    expect(both.status).to.equal(400);
    expect(both.body.details).to.include('order_id_prefix');
  });

  for (const [query, named] of [
    ['state=lost', 'state'],
    ['from=yesterday', 'from'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ['order_id=', 'order_id'],
    ['order_id_prefix=', 'order_id_prefix'],
  ]) {
    it(`when redemptions are searched with ${query}, then 400 naming ${named}`, async () => {
      const res = await admin('GET', `/applications/${app.id}/redemptions?${query}`);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.details).to.include(named);
    });
  }
});
