/**
 * The campaign preview (`POST /admin/applications/:app/campaign-preview`, docs/admin-api.md#campaign-preview)
 * and the admin API's `fields`: a refusal names each bad input by its path; a campaign that would be
 * saved gets its validity in the application's timezone and the messages its rules can give — the
 * very strings validate answers when each rule refuses. Nothing is written, nothing audited.
 */
import { expect } from 'chai';
import { ADMIN_HEADERS, adminHelpers } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

const ITEM = { product_id: 'p1', sku: 'SHOE-1', name: 'Shoe', original_price: 60, selling_price: 50, quantity: 2 };
const order = (over: Record<string, unknown> = {}) => ({
  order_id: `preview-${Math.random().toString(36).slice(2)}`,
  original_price_subtotal: 120,
  selling_price_subtotal: 100,
  items: [ITEM],
  ...over,
});

describe('admin API: campaign preview and field errors', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  const { admin, client, newApp, must } = adminHelpers(() => api);
  const preview = (app: string, body: unknown) => admin('POST', `/applications/${app}/campaign-preview`, body);

  it('when a campaign has a rule of each kind, then the preview lists the message of each, equal to what validate answers when that rule refuses', async () => {
    const app = await newApp({ name: 'Preview shop', timezone: 'Europe/Berlin' });
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'pv-buyer' }] });
    const campaign = {
      name: 'Preview every rule',
      code: 'PREVIEW1',
      valid_until: '2099-12-31T23:59',
      limits: { total: 10, per_customer: 2, per_day: 5 },
      discount: { kind: 'discount', type: 'percentage', value: 10 },
      discount_calculated_on_property: 'selected_items_selling_price_subtotal',
      cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 80 }],
      item_selector: { match: 'AND', properties: [{ property: 'name', operator: 'eq', values: ['Shoe'] }] },
      selected_items_validations: [{ field: 'selected_items_total_qty', operator: 'gte', value: 2 }],
      product_validations: [{ field: 'cart_qty', operator: 'lte', value: 3 }],
    };
    const res = await preview(app.id, { campaign });
    expect(res.status, res.text).to.equal(200);
    // Local time without an offset is the application's: 23:59 in Berlin (CET, +01:00) is 22:59 UTC.
    expect(res.body).to.include({ timezone: 'Europe/Berlin', valid_until: '2099-12-31T22:59:00.000Z' });
    const texts = Object.fromEntries((res.body.rule_texts as { rule: string; text: string }[]).map((r) => [r.rule, r.text]));
    expect(Object.keys(texts)).to.deep.equal([
      'valid_from, valid_until, schedule, status',
      'limits.total',
      'limits.per_customer',
      'limits.per_day',
      'cart_conditions.0',
      'item_selector',
      'selected_items_validations.0',
      'product_validations.0',
    ]);
    // Nothing was saved: the code is free, and no audit entry names the application.
    const listed = await must('GET', `/applications/${app.id}/campaigns`);
    expect(listed.campaigns).to.deep.equal([]);
    const audit = await must('GET', `/audit?application=${app.id}`);
    expect(audit.entries.map((e: { action: string }) => e.action)).to.have.members(['application.create', 'customer.upsert']);

    await must('POST', `/applications/${app.id}/campaigns`, campaign);
    const validate = async (o: Record<string, unknown>) => {
      const r = await client(app, 'POST', '/coupons/validate', {
        source_id: 'pv-buyer',
        coupon_details: [{ coupon_code: 'PREVIEW1' }],
        order: o,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.is_applicable, r.text).to.equal(false);
      return r.body.message as string;
    };
    expect(await validate(order({ selling_price_subtotal: 50, original_price_subtotal: 60 }))).to.equal(texts['cart_conditions.0']);
    expect(await validate(order({ items: [{ ...ITEM, name: 'Sock' }] }))).to.equal(texts.item_selector);
    expect(await validate(order({ items: [{ ...ITEM, quantity: 1 }] }))).to.equal(texts['selected_items_validations.0']);
    expect(
      await validate(order({ items: [{ ...ITEM, quantity: 4 }], selling_price_subtotal: 200, original_price_subtotal: 240 })),
    ).to.equal(texts['product_validations.0']);
  });

  it('when inputs are bad, then the refusal names each by its path in `fields`, as saving would', async () => {
    const app = await newApp();
    const bad = await preview(app.id, {
      campaign: { name: 'x', code: 'BAD1', discount: { kind: 'discount', type: 'percentage', value: 'ten' }, limits: { total: -1 } },
    });
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body).to.include({ code: 400, message: 'Invalid payload' });
    expect(bad.body.fields).to.have.all.keys('discount.value', 'limits.total');
    expect(bad.body.fields['discount.value']).to.include('"discount.value"');
    // Saving says the same.
    const saved = await admin('POST', `/applications/${app.id}/campaigns`, {
      name: 'x',
      code: 'BAD1',
      discount: { kind: 'discount', type: 'percentage', value: 'ten' },
      limits: { total: -1 },
    });
    expect(saved.status).to.equal(400);
    expect(saved.body.fields).to.deep.equal(bad.body.fields);

    const base = { name: 'y', code: 'RULES1', discount: { kind: 'discount', type: 'flat', value: 1 } };
    const undeclared = await preview(app.id, {
      campaign: {
        ...base,
        cart_conditions: [
          { field: 'selling_price_subtotal', operator: 'gt', value: 1 },
          { field: 'metadata.channel', operator: 'eq', value: 'app' },
        ],
      },
    });
    expect(undeclared.status, undeclared.text).to.equal(400);
    expect(Object.keys(undeclared.body.fields)).to.deep.equal(['cart_conditions.1.field']);
    const wallet = await preview(app.id, {
      campaign: { ...base, discount: { kind: 'cashback', type: 'flat', value: 1, wallet_id: 'nope' } },
    });
    expect(wallet.status, wallet.text).to.equal(400);
    expect(Object.keys(wallet.body.fields)).to.deep.equal(['discount.wallet_id']);
    const selector = await preview(app.id, {
      campaign: { ...base, discount_calculated_on_property: 'selected_items_selling_price_subtotal' },
    });
    expect(Object.keys(selector.body.fields)).to.deep.equal(['item_selector']);

    await must('POST', `/applications/${app.id}/campaigns`, base);
    const taken = await preview(app.id, { campaign: base });
    expect(taken.status, taken.text).to.equal(409);
    expect(Object.keys(taken.body.fields)).to.deep.equal(['code']);
    // The client routes' bodies are the contract's: no `fields` there.
    const contract = await call(api.url, 'POST', '/coupons/validate', { auth: 'Basic eDp5', body: {} });
    expect(contract.body).to.not.have.property('fields');
  });

  it('when a change to a saved campaign is previewed, then it is checked against the campaign as it would become, and the campaign stays as it was', async () => {
    const app = await newApp();
    const made = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Edit me',
      code: 'EDIT1',
      discount: { kind: 'discount', type: 'percentage', value: 5 },
    });
    const change = { discount_calculated_on_property: 'selected_items_selling_price_subtotal' };
    const refused = await preview(app.id, { id: made.id, campaign: change });
    expect(refused.status, refused.text).to.equal(400);
    expect(Object.keys(refused.body.fields)).to.deep.equal(['item_selector']);
    const fine = await preview(app.id, { id: made.id, campaign: { limits: { per_week: 3 } } });
    expect(fine.status, fine.text).to.equal(200);
    expect(fine.body.rule_texts.map((r: { rule: string }) => r.rule)).to.include('limits.per_week');
    const unknown = await preview(app.id, { id: '000000000000000000000000', campaign: {} });
    expect(unknown.status).to.equal(404);
    const after = await call(api.url, 'GET', `/admin/applications/${app.id}/campaigns/${made.id}`, { headers: ADMIN_HEADERS });
    expect(after.body.limits.per_week).to.equal(null);
    expect(after.body.discount_calculated_on_property).to.equal('selling_price_subtotal');
  });
});
