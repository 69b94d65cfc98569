/**
 * Gift card events (docs/events.md, docs/gift-cards.md), on a real API and worker: a redeem that
 * spends a card records `gift_card.debited`, its revert `gift_card.credited` — once each whatever
 * the repeats, keyed by the card's ledger entry — and a card paying after coupons comes after
 * their `redemption.*` events and before what the order earned.
 */
import { expect } from 'chai';
import { adminHelpers, settle, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';
import { assertMatchesSchema } from '../support/openapi.js';

describe('gift card events: a card spent at checkout, and given back', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  });
  after(async () => {
    await api.close();
  });
  const { client, newApp, must } = adminHelpers(() => api);

  /** A shop taking cards at checkout, with customer c0 and an endpoint (so that events are recorded; nothing listens there). */
  async function shop(settings: Record<string, unknown> = {}): Promise<AdminApp> {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c0' }] });
    await must('PATCH', `/applications/${app.id}`, { gift_cards_at_checkout: true, ...settings });
    await must('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    return app;
  }
  const cart = (order_id: string, subtotal: number, status = 'completed') => ({
    order_id,
    status,
    selling_price_subtotal: subtotal,
    original_price_subtotal: subtotal,
    items: [{ product_id: 'p1', selling_price: subtotal, original_price: subtotal, quantity: 1, shipping: 0 }],
  });
  const apply = async (app: AdminApp, type: 'redeem' | 'revert', codes: string[], order: unknown) => {
    const res = await client(app, 'POST', `/coupons/apply?type=${type}`, {
      source_id: 'c0',
      coupon_details: codes.map((coupon_code) => ({ coupon_code })),
      order,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  /** The application's events in the order they were applied, each checked against openapi.yaml. */
  const events = async (app: AdminApp) => {
    const all = ((await must('GET', `/applications/${app.id}/events?limit=100`)).events as any[]).sort((a, b) => a.sequence - b.sequence);
    for (const e of all) assertMatchesSchema('WebhookEvent', e);
    return all;
  };

  it('when a card alone pays an order, then gift_card.debited; its revert gift_card.credited with the same redemption_id; repeats record nothing more; a redeem after the revert is the next cycle', async () => {
    const app = await shop();
    const card = await must('POST', `/applications/${app.id}/gift-cards`, { amount: 50 });
    await apply(app, 'redeem', [card.code], cart('o1', 35.5));
    await apply(app, 'redeem', [card.code], cart('o1', 35.5)); // a repeat: answered from the ledger
    await apply(app, 'revert', [card.code], cart('o1', 35.5, 'reverted'));
    await apply(app, 'revert', [card.code], cart('o1', 35.5, 'reverted'));
    await apply(app, 'redeem', [card.code], cart('o1', 10));

    const all = await events(app);
    expect(all.map((e) => e.type)).to.deep.equal(['gift_card.debited', 'gift_card.credited', 'gift_card.debited']);
    const [debited, credited, again] = all;
    const customer = (await api.services.repos.customers.resolve(app.id, 'c0'))!;
    expect(debited.data).to.deep.equal({
      source_id: 'c0',
      customer_id: customer.id,
      gift_card_id: card.id,
      code: card.code,
      kind: 'gift_card',
      order_id: 'o1',
      redemption_id: debited.data.redemption_id,
      cycle: 1,
      txn_id: 'spend:o1:1',
      amount: 35.5,
      previous_balance: 50,
      balance: 14.5,
      currency: 'INR',
    });
    expect(debited.data.redemption_id).to.match(new RegExp(`^${card.id}:[A-Za-z0-9_-]{16}:1$`));
    expect(credited.data).to.deep.include({
      redemption_id: debited.data.redemption_id,
      cycle: 1,
      txn_id: 'refund:o1:1',
      amount: 35.5,
      previous_balance: 14.5,
      balance: 50,
    });
    expect(again.data).to.deep.include({ cycle: 2, txn_id: 'spend:o1:2', amount: 10, previous_balance: 50, balance: 40 });
    expect(again.data.redemption_id).to.equal(debited.data.redemption_id.replace(/:1$/, ':2'));
    expect(new Set(all.map((e) => e.id)).size).to.equal(3);
  });

  it('when store credit pays an order, then its events carry no code and kind store_credit', async () => {
    const app = await shop();
    const credit = await must('POST', `/applications/${app.id}/customers/c0/store-credit`, { amount: 30 });
    await apply(app, 'redeem', ['STORE_CREDIT'], cart('s1', 12));
    await apply(app, 'revert', ['STORE_CREDIT'], cart('s1', 12, 'reverted'));
    const all = await events(app);
    expect(all.map((e) => [e.type, e.data.gift_card_id, e.data.code, e.data.kind, e.data.amount, e.data.balance])).to.deep.equal([
      ['gift_card.debited', credit.id, null, 'store_credit', 12, 18],
      ['gift_card.credited', credit.id, null, 'store_credit', 12, 30],
    ]);
  });

  it('when a card pays after coupons on an order that earns, then its event comes after the redemptions and before the earning; the revert the same way; a card that takes nothing has none', async () => {
    const app = await shop({ stacking: { max_coupons: 3 }, loyalty: { earn_on_redeem: true } });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', earning_rules: [{ name: 'Base', points: 1, per: 10 }] });
    for (const [code, value] of [
      ['FLAT10', 10],
      ['FLAT5', 5],
    ] as const)
      await must('POST', `/applications/${app.id}/campaigns`, { name: code, code, discount: { kind: 'discount', type: 'flat', value } });
    await settle();
    const card = await must('POST', `/applications/${app.id}/gift-cards`, { amount: 100 });
    const codes = ['FLAT10', card.code, 'FLAT5'];
    expect((await apply(app, 'redeem', codes, cart('st1', 40))).gift_card).to.deep.equal({ amount: 25, balance: 75 });
    await apply(app, 'redeem', codes, cart('st1', 40)); // a repeat
    await apply(app, 'revert', codes, cart('st1', 40, 'reverted'));
    // The coupons cover the whole cart: the card takes 0 and moves nothing.
    expect((await apply(app, 'redeem', codes, cart('st2', 15))).gift_card).to.deep.equal({ amount: 0, balance: 100 });

    const all = await events(app);
    expect(all.map((e) => [e.type, e.data.coupon_code ?? e.data.code ?? e.data.wallet_id, e.data.order_id])).to.deep.equal([
      ['redemption.completed', 'FLAT10', 'st1'],
      ['redemption.completed', 'FLAT5', 'st1'],
      ['gift_card.debited', card.code, 'st1'],
      ['wallet.transaction.completed', 'loyalty', 'st1'],
      ['redemption.reverted', 'FLAT10', 'st1'],
      ['redemption.reverted', 'FLAT5', 'st1'],
      ['gift_card.credited', card.code, 'st1'],
      ['wallet.transaction.completed', 'loyalty', 'st1'],
      ['redemption.completed', 'FLAT10', 'st2'],
      ['redemption.completed', 'FLAT5', 'st2'],
    ]);
    expect(all[2].data).to.deep.include({ amount: 25, previous_balance: 100, balance: 75 });
    expect(all[6].data).to.deep.include({ amount: 25, previous_balance: 75, balance: 100 });
  });

  it('when a card alone pays a completed order of an application that earns on redeem, then nothing is earned: the card is not the order report', async () => {
    const app = await shop({ loyalty: { earn_on_redeem: true } });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', earning_rules: [{ name: 'Base', points: 1, per: 10 }] });
    const card = await must('POST', `/applications/${app.id}/gift-cards`, { amount: 100 });
    await apply(app, 'redeem', [card.code], cart('alone', 60));
    const wallets = (await client(app, 'GET', '/wallets/customer/c0')).body as { wallet_id: string; loyalty_points: number }[];
    expect(wallets.map((w) => [w.wallet_id, w.loyalty_points])).to.deep.equal([['loyalty', 0]]);
    const ledger = await must('GET', `/applications/${app.id}/customers/c0/wallets/loyalty/ledger?limit=10`);
    expect(ledger.entries).to.deep.equal([]);
    expect((await events(app)).map((e) => e.type)).to.deep.equal(['gift_card.debited']);
    // Reported by the storefront, the order earns as any other (the card paid 60.00: 6 points).
    const reported = await client(app, 'POST', '/wallets/customer/c0/orders/loyalty', { order: cart('alone', 60) });
    expect(reported.body).to.deep.include({ points: 6, loyalty_points: 6 });
  });
});
