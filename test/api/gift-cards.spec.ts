/**
 * Gift cards (docs/gift-cards.md), on a real API and worker: issued one by one, in bulk and from a
 * CSV file; topped up, disabled, expiring; the storefront's balance read; and at checkout through
 * `coupon_details` for an application that opted in — validate shows what the card takes, redeem
 * spends it once, revert gives it back once, and carts of different customers racing for one card
 * never take it below zero. An application that has not opted in answers a card's code as any
 * unknown code.
 */
import { expect } from 'chai';
import { adminHelpers, settle, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';

describe('gift cards: admin, balance read and checkout', function () {
  this.timeout(120_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  const { admin, client, newApp, must } = adminHelpers(() => api);

  /** A shop taking gift cards at checkout, with customers c0..c{n-1}. */
  async function shop(customers = 1, optIn = true): Promise<AdminApp> {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, {
      customers: Array.from({ length: customers }, (_, i) => ({ source_id: `c${i}` })),
    });
    if (optIn) await must('PATCH', `/applications/${app.id}`, { gift_cards_at_checkout: true });
    return app;
  }
  const cart = (order_id: string, subtotal: number, status = 'completed') => ({
    order_id,
    status,
    selling_price_subtotal: subtotal,
    original_price_subtotal: subtotal,
    items: [{ product_id: 'p1', selling_price: subtotal, original_price: subtotal, quantity: 1, shipping: 0 }],
  });
  const issue = (app: AdminApp, body: Record<string, unknown>) => must('POST', `/applications/${app.id}/gift-cards`, body);
  const validate = (app: AdminApp, code: string, order?: unknown, source_id = 'c0') =>
    client(app, 'POST', '/coupons/validate', {
      source_id,
      coupon_details: [{ coupon_id: code, coupon_code: code }],
      ...(order ? { order } : {}),
    });
  const apply = (app: AdminApp, type: 'redeem' | 'revert', code: string, order: unknown, source_id = 'c0') =>
    client(app, 'POST', `/coupons/apply?type=${type}`, { source_id, coupon_details: [{ coupon_id: code, coupon_code: code }], order });
  const balanceOf = async (app: AdminApp, code: string) => {
    const res = await client(app, 'GET', `/gift-cards/${encodeURIComponent(code)}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.balance as number;
  };
  const auditActions = async (app: AdminApp) =>
    ((await must('GET', `/audit?application=${app.id}&target_type=gift_card&limit=100`)).entries as any[]).map((e) => e.action);

  describe('admin', () => {
    it('when a card is issued, then it has a code, its amount, and the storefront reads its balance; the issue is audited', async () => {
      const app = await shop(1, false);
      const card = await issue(app, { amount: 50, note: 'Sold at the till' });
      expect(card).to.include({ kind: 'gift_card', balance: 50, initial_amount: 50, currency: 'INR', status: 'active', expires_at: null });
      expect(card.code).to.match(/^GC(-[A-Z2-9]{4}){4}$/);
      const read = await client(app, 'GET', `/gift-cards/${card.code.toLowerCase()}`);
      expect(read.status, read.text).to.equal(200);
      expect(read.body).to.deep.include({
        code: card.code,
        balance: 50,
        currency: 'INR',
        status: 'active',
        expires_at: null,
        can_pay: true,
      });
      expect(await auditActions(app)).to.deep.equal(['gift_card.issue']);
    });

    it('when a code is given, then it is the card code (upper case); the same code again is 409, a bad amount 400 naming the field', async () => {
      const app = await shop();
      expect((await issue(app, { amount: 10.5, code: 'xmas-2026-aa' })).code).to.equal('XMAS-2026-AA');
      const again = await admin('POST', `/applications/${app.id}/gift-cards`, { amount: 5, code: 'XMAS-2026-AA' });
      expect(again.status, again.text).to.equal(409);
      for (const amount of [0, -1, 10.001, '10', 2_000_000]) {
        const bad = await admin('POST', `/applications/${app.id}/gift-cards`, { amount });
        expect(bad.status, `${String(amount)}: ${bad.text}`).to.equal(400);
        expect(bad.body.fields).to.have.property('amount');
      }
    });

    it('when cards are issued in bulk, then each has its own code and the amount; one audit entry records the request', async () => {
      const app = await shop();
      const { cards } = await must('POST', `/applications/${app.id}/gift-cards/bulk`, { count: 25, amount: 20, prefix: 'BF' });
      expect(cards).to.have.length(25);
      expect(new Set(cards.map((c: any) => c.code)).size).to.equal(25);
      for (const c of cards) expect(c).to.include({ balance: 20, status: 'active' });
      expect(cards[0].code).to.match(/^BF-/);
      const listed = await must('GET', `/applications/${app.id}/gift-cards?limit=10`);
      expect(listed.gift_cards).to.have.length(10);
      expect(listed.next_before).to.be.a('string');
      expect(await auditActions(app)).to.deep.equal(['gift_card.issue_bulk']);
    });

    it('when a CSV file is imported, then each row is a card; a file with bad rows names each by its line and imports nothing', async () => {
      const app = await shop();
      await issue(app, { amount: 5, code: 'TAKEN-0001' });
      const bad = [
        'code,amount,expires_at,note',
        'GOOD-0001,25.00,,first',
        'GOOD-0002,abc,,',
        'GOOD-0001,10,,twice',
        'TAKEN-0001,10,,',
        '"QUOTED-0001",12.5,2030-01-01T00:00:00Z,"a note, with a comma"',
        'x,10,,',
      ].join('\n');
      const refused = await admin('POST', `/applications/${app.id}/gift-cards/import`, { csv: bad });
      expect(refused.status, refused.text).to.equal(400);
      expect(Object.keys(refused.body.fields).sort()).to.deep.equal(['line 3.amount', 'line 4.code', 'line 5.code', 'line 7.code']);
      expect(refused.body.details).to.equal('4 of 6 rows are not valid; nothing was imported');
      expect((await must('GET', `/applications/${app.id}/gift-cards`)).gift_cards).to.have.length(1);

      const good = [
        'code,amount,expires_at,note',
        'GOOD-0001,25.00,,first',
        '"QUOTED-0001",12.5,2030-01-01T00:00:00Z,"a note, with a comma"',
      ].join('\r\n');
      const imported = await must('POST', `/applications/${app.id}/gift-cards/import`, { csv: good });
      expect(imported.imported).to.equal(2);
      expect(imported.not_imported).to.deep.equal([]);
      expect(imported.cards.map((c: any) => [c.code, c.balance, c.expires_at, c.note])).to.deep.equal([
        ['GOOD-0001', 25, null, 'first'],
        ['QUOTED-0001', 12.5, '2030-01-01T00:00:00.000Z', 'a note, with a comma'],
      ]);
      for (const csv of ['', 'code\nA-0001', 'code,amount\n"unterminated,5']) {
        const res = await admin('POST', `/applications/${app.id}/gift-cards/import`, { csv });
        expect(res.status, `${csv}: ${res.text}`).to.equal(400);
      }
      expect(await auditActions(app)).to.deep.equal(['gift_card.import', 'gift_card.issue']);
    });

    it('when a card is topped up, disabled and enabled, then its balance and status follow, each an entry of its ledger and audited', async () => {
      const app = await shop();
      const card = await issue(app, { amount: 30 });
      const topped = await must('POST', `/applications/${app.id}/gift-cards/${card.id}/top-up`, { amount: 12.25, note: 'goodwill' });
      expect(topped.balance).to.equal(42.25);
      expect(await balanceOf(app, card.code)).to.equal(42.25);
      expect((await must('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { status: 'disabled' })).status).to.equal('disabled');
      const read = await client(app, 'GET', `/gift-cards/${card.code}`);
      expect(read.body).to.include({ status: 'disabled', can_pay: false, message: 'gift card is disabled' });
      expect((await must('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { status: 'active' })).status).to.equal('active');
      const one = await must('GET', `/applications/${app.id}/gift-cards/${card.id}`);
      expect(one.entries.map((e: any) => [e.kind, e.amount, e.balance_after, e.status])).to.deep.equal([
        ['issue', 30, 30, 'active'],
        ['top_up', 12.25, 42.25, 'active'],
        ['disable', 0, 42.25, 'disabled'],
        ['enable', 0, 42.25, 'active'],
      ]);
      expect((await auditActions(app)).sort()).to.deep.equal([
        'gift_card.issue',
        'gift_card.top_up',
        'gift_card.update',
        'gift_card.update',
      ]);
      const missing = await admin('POST', `/applications/${app.id}/gift-cards/${'0'.repeat(24)}/top-up`, { amount: 1 });
      expect(missing.status).to.equal(404);
      expect((await admin('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { status: 'lost' })).status).to.equal(400);
    });

    it('when the storefront reads an unknown code, then 404; bad credentials, 401', async () => {
      const app = await shop();
      const res = await client(app, 'GET', '/gift-cards/NO-SUCH-CODE');
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 404, message: 'resource not found', details: 'gift card not found' });
      expect(res.headers.get('coupon-reason')).to.equal('gift_card_not_found');
      const unauth = await client({ api_key: app.api_key, secret: 'wrong' }, 'GET', '/gift-cards/NO-SUCH-CODE');
      expect(unauth.status).to.equal(401);
    });
  });

  describe('store credit read', () => {
    it("when the storefront reads a customer's store credit, then its balance, currency and status; by the service's id too; disabled, it cannot pay", async () => {
      const app = await shop(2);
      const credit = await must('POST', `/applications/${app.id}/customers/c0/store-credit`, { amount: 30 });
      const res = await client(app, 'GET', '/customers/c0/store-credit');
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({
        source_id: 'c0',
        balance: 30,
        currency: 'INR',
        status: 'active',
        expires_at: null,
        can_pay: true,
        request_id: res.headers.get('x-request-id'),
      });
      const byId = await client(app, 'GET', `/customers/${credit.customer_id}/store-credit`);
      expect(byId.body).to.include({ source_id: 'c0', balance: 30 });
      // Spent at checkout, then disabled by an operator.
      expect((await apply(app, 'redeem', 'STORE_CREDIT', cart('sc1', 12))).status).to.equal(200);
      await must('PATCH', `/applications/${app.id}/gift-cards/${credit.id}`, { status: 'disabled' });
      const off = await client(app, 'GET', '/customers/c0/store-credit');
      expect(off.body).to.deep.include({ balance: 18, status: 'disabled', can_pay: false, message: 'gift card is disabled' });
    });

    it('when the customer is unknown or has no store credit, then 404 naming which; bad credentials, 401; a gift card code is not a customer', async () => {
      const app = await shop(2);
      const card = await issue(app, { amount: 5 });
      const none = await client(app, 'GET', '/customers/c1/store-credit');
      expect(none.status).to.equal(404);
      expect(none.body).to.deep.equal({
        code: 404,
        message: 'resource not found',
        details: 'store credit not found',
        request_id: none.headers.get('x-request-id'),
      });
      expect(none.headers.get('coupon-reason')).to.equal('store_credit_not_found');
      const nobody = await client(app, 'GET', '/customers/nobody/store-credit');
      expect(nobody.status).to.equal(404);
      expect(nobody.body).to.include({ message: 'resource not found', details: 'customer not found' });
      expect(nobody.headers.get('coupon-reason')).to.equal('customer_not_found');
      expect((await client(app, 'GET', `/customers/${card.code}/store-credit`)).status).to.equal(404);
      const unauth = await client({ api_key: app.api_key, secret: 'wrong' }, 'GET', '/customers/c1/store-credit');
      expect(unauth.status).to.equal(401);
      expect(unauth.body).to.include({ message: 'Unauthorized', details: 'app id or app secret invalid' });
    });
  });

  describe('checkout', () => {
    it('when the application has not opted in, then a card code in validate and apply answers exactly as an unknown code', async () => {
      const app = await shop(1, false);
      const card = await issue(app, { amount: 50 });
      const strip = (r: { status: number; body: any }) => ({ status: r.status, body: { ...r.body, request_id: '' } });
      expect(strip(await validate(app, card.code, cart('o1', 20)))).to.deep.equal(strip(await validate(app, 'NOPE-NOPE', cart('o1', 20))));
      expect(strip(await apply(app, 'redeem', card.code, cart('o1', 20)))).to.deep.equal(
        strip(await apply(app, 'redeem', 'NOPE-NOPE', cart('o1', 20))),
      );
      expect(await balanceOf(app, card.code)).to.equal(50);
    });

    it('when a card pays a cart, then validate shows what it takes, redeem spends it once, revert gives it back once, a redeem after it spends again', async () => {
      const app = await shop();
      const card = await issue(app, { amount: 50 });
      const shown = await validate(app, card.code, cart('o1', 35.5));
      expect(shown.status, shown.text).to.equal(200);
      expect(shown.body).to.deep.include({
        coupon_code: card.code,
        coupon_code_id: card.id,
        is_applicable: true,
        gift_card: { amount: 35.5, balance: 50 },
      });
      expect(shown.body.coupon_savings.order).to.include({ total_discount: 35.5, total_amount: 0, selling_price_subtotal: 35.5 });

      const redeemed = await apply(app, 'redeem', card.code, cart('o1', 35.5));
      expect(redeemed.status, redeemed.text).to.equal(200);
      expect(redeemed.body).to.deep.include({
        status: 'completed',
        orderId: 'o1',
        coupon_code: card.code,
        gift_card: { amount: 35.5, balance: 14.5 },
      });
      const repeat = await apply(app, 'redeem', card.code, cart('o1', 35.5));
      expect(repeat.body.gift_card).to.deep.equal({ amount: 35.5, balance: 14.5 });
      expect(await balanceOf(app, card.code)).to.equal(14.5);

      // A bigger cart than the balance: the card takes what it has.
      const more = await validate(app, card.code, cart('o2', 100));
      expect(more.body.gift_card).to.deep.equal({ amount: 14.5, balance: 14.5 });
      expect(more.body.coupon_savings.order).to.include({ total_discount: 14.5, total_amount: 85.5 });

      const reverted = await apply(app, 'revert', card.code, cart('o1', 35.5, 'reverted'));
      expect(reverted.status, reverted.text).to.equal(200);
      expect(reverted.body).to.deep.include({ status: 'reverted', gift_card: { amount: 35.5, balance: 50 } });
      expect((await apply(app, 'revert', card.code, cart('o1', 35.5, 'reverted'))).status).to.equal(200);
      expect(await balanceOf(app, card.code)).to.equal(50);

      const again = await apply(app, 'redeem', card.code, cart('o1', 10));
      expect(again.body.gift_card).to.deep.equal({ amount: 10, balance: 40 });
      const ledger = await must('GET', `/applications/${app.id}/gift-cards/${card.id}`);
      expect(ledger.entries.map((e: any) => [e.kind, e.amount, e.balance_after, e.order_id])).to.deep.equal([
        ['issue', 50, 50, null],
        ['spend', -35.5, 14.5, 'o1'],
        ['refund', 35.5, 50, 'o1'],
        ['spend', -10, 40, 'o1'],
      ]);
      const never = await apply(app, 'revert', card.code, cart('o-never', 10, 'reverted'));
      expect(never.status).to.equal(400);
      expect(never.body.details).to.equal('no redemption found for this order and coupon');
    });

    it('when a card is disabled, expired or empty, then validate says so and redeem is refused with the documented reason; nothing is spent', async () => {
      const app = await shop();
      const card = await issue(app, { amount: 20 });
      await must('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { status: 'disabled' });
      const shown = await validate(app, card.code, cart('o1', 10));
      expect(shown.body).to.include({ is_applicable: false, message: 'gift card is disabled' });
      expect(shown.headers.get('coupon-reason')).to.equal('gift_card_disabled');
      const refused = await apply(app, 'redeem', card.code, cart('o1', 10));
      expect(refused.status).to.equal(400);
      expect(refused.body).to.include({ message: 'coupon validation failed', details: 'gift card is disabled' });
      expect(refused.headers.get('coupon-reason')).to.equal('gift_card_disabled');

      await must('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { status: 'active', expires_at: '2020-01-01T00:00:00Z' });
      const expired = await apply(app, 'redeem', card.code, cart('o1', 10));
      expect(expired.body).to.include({ details: 'gift card is expired' });
      expect(expired.headers.get('coupon-reason')).to.equal('gift_card_expired');

      await must('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { expires_at: null });
      expect((await apply(app, 'redeem', card.code, cart('o1', 25))).body.gift_card).to.deep.equal({ amount: 20, balance: 0 });
      const empty = await apply(app, 'redeem', card.code, cart('o2', 5));
      expect(empty.body).to.include({ details: 'gift card has no balance left' });
      expect(empty.headers.get('coupon-reason')).to.equal('gift_card_empty');
      expect(await balanceOf(app, card.code)).to.equal(0);
    });

    it('when a customer has store credit, then STORE_CREDIT pays with it at checkout; another customer, or no customer, finds no such code', async () => {
      const app = await shop(2);
      const first = await must('POST', `/applications/${app.id}/customers/c0/store-credit`, { amount: 30, note: 'returned parcel' });
      expect(first).to.include({ kind: 'store_credit', code: null, balance: 30, initial_amount: 30 });
      expect(first.customer_id).to.match(/^[0-9a-f]{24}$/);
      const second = await must('POST', `/applications/${app.id}/customers/c0/store-credit`, { amount: 20 });
      expect(second).to.include({ id: first.id, balance: 50 });

      const shown = await validate(app, 'store_credit', cart('s1', 35));
      expect(shown.body).to.deep.include({
        coupon_code: 'STORE_CREDIT',
        coupon_name: 'Store credit',
        is_applicable: true,
        gift_card: { amount: 35, balance: 50 },
      });
      const redeemed = await apply(app, 'redeem', 'STORE_CREDIT', cart('s1', 35));
      expect(redeemed.status, redeemed.text).to.equal(200);
      expect(redeemed.body.gift_card).to.deep.equal({ amount: 35, balance: 15 });

      const other = await apply(app, 'redeem', 'STORE_CREDIT', cart('s2', 5), 'c1');
      expect(other.status).to.equal(400);
      expect(other.body.details).to.equal('coupon not found, invalid coupon code or coupon id');
      const visitor = await client(app, 'POST', '/coupons/validate', {
        coupon_details: [{ coupon_code: 'STORE_CREDIT' }],
        order: cart('s3', 5),
      });
      expect(visitor.status).to.equal(400);
      const reverted = await apply(app, 'revert', 'STORE_CREDIT', cart('s1', 35, 'reverted'));
      expect(reverted.body.gift_card).to.deep.equal({ amount: 35, balance: 50 });
      expect((await admin('POST', `/applications/${app.id}/customers/nobody/store-credit`, { amount: 1 })).status).to.equal(404);
      await issue(app, { amount: 5 });
      const credits = (await must('GET', `/applications/${app.id}/gift-cards?kind=store_credit`)).gift_cards;
      expect(credits.map((c: any) => [c.id, c.kind])).to.deep.equal([[first.id, 'store_credit']]);
      const giftCards = (await must('GET', `/applications/${app.id}/gift-cards?kind=gift_card`)).gift_cards;
      expect(giftCards.map((c: any) => c.kind)).to.deep.equal(['gift_card']);
      expect((await auditActions(app)).sort()).to.deep.equal(['gift_card.issue', 'gift_card.store_credit', 'gift_card.store_credit']);
    });

    it('when a card comes with coupons (stacking), then it applies last on what they leave: validate shows it, redeem spends it after them, revert gives everything back', async () => {
      const app = await shop();
      await must('PATCH', `/applications/${app.id}`, { stacking: { max_coupons: 3 } });
      await must('POST', `/applications/${app.id}/campaigns`, {
        name: 'Ten off',
        code: 'FLAT10',
        discount: { kind: 'discount', type: 'flat', value: 10 },
      });
      await must('POST', `/applications/${app.id}/campaigns`, {
        name: 'Five off',
        code: 'FLAT5',
        discount: { kind: 'discount', type: 'flat', value: 5 },
      });
      await settle();
      const card = await issue(app, { amount: 100 });
      const details = [{ coupon_code: card.code }, { coupon_code: 'FLAT10' }, { coupon_code: 'FLAT5' }];
      const body = (order: unknown) => ({ source_id: 'c0', coupon_details: details, order });

      const shown = await client(app, 'POST', '/coupons/validate', body(cart('st1', 40)));
      expect(shown.status, shown.text).to.equal(200);
      expect(shown.body).to.deep.include({ coupon_code: 'FLAT10', is_applicable: true, gift_card: { amount: 25, balance: 100 } });
      expect(shown.body.stack).to.include({ total_discount: 15, total_amount: 25 });

      const redeemed = await client(app, 'POST', '/coupons/apply?type=redeem', body(cart('st1', 40)));
      expect(redeemed.status, redeemed.text).to.equal(200);
      expect(redeemed.body.coupons.map((c: any) => [c.coupon_code, c.discount])).to.deep.equal([
        ['FLAT10', 10],
        ['FLAT5', 5],
      ]);
      expect(redeemed.body.gift_card).to.deep.equal({ amount: 25, balance: 75 });
      const repeat = await client(app, 'POST', '/coupons/apply?type=redeem', body(cart('st1', 40)));
      expect(repeat.body.gift_card).to.deep.equal({ amount: 25, balance: 75 });
      expect(await balanceOf(app, card.code)).to.equal(75);

      const reverted = await client(app, 'POST', '/coupons/apply?type=revert', body(cart('st1', 40, 'reverted')));
      expect(reverted.status, reverted.text).to.equal(200);
      expect(reverted.body.gift_card).to.deep.equal({ amount: 25, balance: 100 });
      expect(await balanceOf(app, card.code)).to.equal(100);

      // A card that cannot pay refuses the whole redeem: no coupon is redeemed.
      await must('PATCH', `/applications/${app.id}/gift-cards/${card.id}`, { status: 'disabled' });
      const off = await client(app, 'POST', '/coupons/validate', body(cart('st2', 40)));
      expect(off.body).to.include({ is_applicable: false, message: 'gift card is disabled' });
      const refused = await client(app, 'POST', '/coupons/apply?type=redeem', body(cart('st2', 40)));
      expect(refused.status).to.equal(400);
      expect(refused.body.details).to.equal('gift card is disabled');
      const usage = await must('GET', `/applications/${app.id}/redemptions?order_id=st2`);
      expect(usage.redemptions).to.deep.equal([]);
      const two = await client(app, 'POST', '/coupons/validate', {
        source_id: 'c0',
        coupon_details: [{ coupon_code: card.code }, { coupon_code: card.code }],
        order: cart('st3', 40),
      });
      expect(two.status).to.equal(400);
    });

    it('when 20 customers race for one card that covers about 3 carts, then it never goes below zero and what the redeems say is what was spent, each once; reverts give it all back once', async () => {
      const racers = 20;
      const app = await shop(racers);
      const card = await issue(app, { amount: 250 });
      const orders = Array.from({ length: racers }, (_, i) => ({ customer: `c${i}`, order: cart(`race-${i}`, 100) }));
      const answers = await Promise.all(orders.map((o) => apply(app, 'redeem', card.code, o.order, o.customer)));
      const paid = answers.flatMap((a, i) => (a.status === 200 ? [{ ...orders[i]!, amount: a.body.gift_card.amount as number }] : []));
      const refused = answers.filter((a) => a.status !== 200);
      for (const r of refused) expect(r.body, JSON.stringify(r.body)).to.include({ code: 400, details: 'gift card has no balance left' });
      expect(paid.map((p) => p.amount).sort((a, b) => a - b)).to.deep.equal([50, 100, 100]);
      expect(await balanceOf(app, card.code)).to.equal(0);
      const ledger = (await must('GET', `/applications/${app.id}/gift-cards/${card.id}`)).entries as any[];
      const spends = ledger.filter((e) => e.kind === 'spend');
      expect(spends.map((e) => e.order_id).sort()).to.deep.equal(paid.map((p) => p.order.order_id).sort());
      expect(spends.reduce((sum, e) => sum - e.amount, 0)).to.equal(250);
      for (const e of ledger) expect(e.balance_after).to.be.at.least(0);

      // Reverts, twice each and at once: every spend comes back exactly once.
      const reverts = await Promise.all(
        [...paid, ...paid].map((p) => apply(app, 'revert', card.code, { ...p.order, status: 'reverted' }, p.customer)),
      );
      expect(reverts.map((r) => r.status)).to.deep.equal(reverts.map(() => 200));
      expect(await balanceOf(app, card.code)).to.equal(250);
      const after = (await must('GET', `/applications/${app.id}/gift-cards/${card.id}`)).entries as any[];
      expect(after.filter((e) => e.kind === 'refund')).to.have.length(3);
    });
  });
});
