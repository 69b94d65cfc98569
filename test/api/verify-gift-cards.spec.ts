/**
 * The exactness verifier's recount of gift cards and store credit (docs/operations.md "Verifying
 * exactness", docs/gift-cards.md): cards spent by many customers' carts at once, given back,
 * topped up and disabled, plus a store credit, recount to their balances — nothing reported — and a
 * planted wrong balance, a lost entry and a negative card are each reported with their documents.
 */
import { Types } from 'mongoose';
import { expect } from 'chai';
import { verifyApplication, type VerifyReport } from '../../shared/usecases/verify-exactness.usecase.js';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';

describe('the exactness verifier: gift cards against their ledgers', function () {
  this.timeout(120_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  const { client, newApp, must } = adminHelpers(() => api);
  const models = () => api.services.db.models;
  const racers = 12;

  const cart = (order_id: string, subtotal: number, status = 'completed') => ({
    order_id,
    status,
    selling_price_subtotal: subtotal,
    original_price_subtotal: subtotal,
    items: [{ product_id: 'p1', selling_price: subtotal, original_price: subtotal, quantity: 1, shipping: 0 }],
  });
  const apply = (app: AdminApp, type: 'redeem' | 'revert', code: string, order: unknown, source_id: string) =>
    client(app, 'POST', `/coupons/apply?type=${type}`, { source_id, coupon_details: [{ coupon_code: code }], order });
  const kinds = (r: VerifyReport) =>
    r.discrepancies.map((d) => [d.kind, d.documents.map((x) => `${x.collection}/${x.id}`), d.expected, d.found]);

  /** Two cards that 12 customers' carts race for (at once), a revert, a top-up and a disable; a store credit spent. */
  async function shop() {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, {
      customers: Array.from({ length: racers }, (_, i) => ({ source_id: `c${i}` })),
    });
    await must('PATCH', `/applications/${app.id}`, { gift_cards_at_checkout: true });
    const a = await must('POST', `/applications/${app.id}/gift-cards`, { amount: 100 });
    const b = await must('POST', `/applications/${app.id}/gift-cards`, { amount: 40 });
    const answers = await Promise.all(
      Array.from({ length: racers }, (_, i) => apply(app, 'redeem', i % 2 ? a.code : b.code, cart(`o${i}`, 17.5), `c${i}`)),
    );
    for (const r of answers) expect([200, 400], r.text).to.include(r.status);
    expect(answers.filter((r) => r.status === 200).length, 'some carts were paid').to.be.at.least(racers / 2);
    expect((await apply(app, 'revert', a.code, cart('o1', 17.5, 'reverted'), 'c1')).status).to.equal(200);
    await must('POST', `/applications/${app.id}/gift-cards/${b.id}/top-up`, { amount: 5 });
    await must('PATCH', `/applications/${app.id}/gift-cards/${b.id}`, { status: 'disabled' });
    const credit = await must('POST', `/applications/${app.id}/customers/c0/store-credit`, { amount: 30 });
    expect((await apply(app, 'redeem', 'STORE_CREDIT', cart('s0', 12), 'c0')).status).to.equal(200);
    return { app, a, b, credit };
  }

  it('when cards were spent by carts racing, given back, topped up and disabled, then each recounts to its balance: nothing reported', async () => {
    const { app, a } = await shop();
    const report = await verifyApplication(api.services, app.id, { eventGraceMs: 0 });
    expect(kinds(report)).to.deep.equal([]);
    expect(report.checked.gift_cards).to.equal(3);
    const entries = await models().GiftCardEntry.countDocuments({ application: new Types.ObjectId(app.id) });
    expect(report.checked.gift_card_entries).to.equal(entries);
    // The ledger really moved: card A paid some carts and got one back.
    const stored = await api.services.repos.giftCards.findById(app.id, a.id);
    expect(stored!.balance).to.be.below(10000);
    expect(stored!.version).to.be.above(2);
  });

  it('when a card holds a wrong balance, misses an applied entry, or is below 0, then each is reported; an entry not applied yet is in flight', async () => {
    const { app, a, b, credit } = await shop();
    const card = (id: string) => api.services.repos.giftCards.findById(app.id, id);
    const [before, creditBefore] = await Promise.all([card(a.id), card(credit.id)]);
    await models().GiftCard.collection.updateOne({ _id: new Types.ObjectId(a.id) }, { $inc: { balance: 100 } });
    await models().GiftCardEntry.collection.deleteOne({ _id: `${b.id}:1` as never });
    await models().GiftCard.collection.updateOne({ _id: new Types.ObjectId(credit.id) }, { $set: { balance: -500 } });
    // Written at the next slot, not applied yet: a crash between the entry and the card's move.
    const bStored = (await card(b.id))!;
    await api.services.repos.giftCards.insertEntry({
      slot: `${b.id}:${bStored.version}`,
      applicationId: app.id,
      cardId: b.id,
      txnId: 'top-up:planted',
      kind: 'top_up',
      amount: 100,
      seq: bStored.version,
      before: bStored.balance,
      after: bStored.balance + 100,
      status: bStored.status,
      expiresAt: null,
      orderId: null,
      cycle: null,
      customerId: null,
      description: '',
    });

    const report = await verifyApplication(api.services, app.id, { eventGraceMs: 0 });
    const last = (id: string, version: number) => `gift_card_entries/${id}:${version - 1}`;
    expect(kinds(report)).to.have.deep.members([
      ['gift_card_balance_mismatch', [`gift_cards/${a.id}`, last(a.id, before!.version)], before!.balance, before!.balance + 100],
      ['gift_card_balance_mismatch', [`gift_cards/${b.id}`], bStored.version, bStored.version - 1],
      ['gift_card_balance_mismatch', [`gift_cards/${credit.id}`, last(credit.id, creditBefore!.version)], creditBefore!.balance, -500],
      ['gift_card_negative', [`gift_cards/${credit.id}`], undefined, -500],
    ]);
    expect(report.discrepancyCount).to.equal(4);
    expect(report.inFlight.map((f) => f.document.id)).to.deep.equal([`${b.id}:${bStored.version}`]);

    // The admin API answers the same report.
    const body = await must('GET', `/applications/${app.id}/verify?recheck_ms=0&event_grace_ms=0`);
    expect(body.ok).to.equal(false);
    expect(body.discrepancies.map((d: { kind: string }) => d.kind).sort()).to.deep.equal([
      'gift_card_balance_mismatch',
      'gift_card_balance_mismatch',
      'gift_card_balance_mismatch',
      'gift_card_negative',
    ]);
    expect(body.checked).to.include({ gift_cards: 3 });
  });
});
