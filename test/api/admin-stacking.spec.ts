/**
 * The admin surface of stacking (docs/admin-api.md, docs/campaigns.md): a campaign's `stacking` and
 * `trigger`, an application's `stacking` settings — their defaults, a round trip, the admin API's
 * 400 beside each bad field, an automatic promotion without a code (found by no code or id, given
 * no bulk codes), and an application's change audited and seen at once by the process's caches.
 */
import { expect } from 'chai';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { startTestApi, type TestApi } from '../support/context.js';

const DISCOUNT = { kind: 'discount', type: 'percentage', value: 10 };
/** The admin error body without its request id (a uuid of its own each time). */
function errorBody(res: { body: Record<string, unknown> }) {
  const { request_id, ...rest } = res.body;
  expect(request_id).to.be.a('string');
  return rest;
}

const DEFAULTS = { priority: 0, category: null, exclusive: false, combines_with: 'all' };

describe('admin API: stacking of campaigns and applications', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: AdminApp;
  before(async () => {
    api = await startTestApi();
    app = await newApp({ name: `Stacking ${process.pid}` });
  });
  after(async () => {
    await api?.close();
  });
  const { admin, client, newApp, must } = adminHelpers(() => api);
  let seq = 0;
  const code = () => `STACK${process.pid}X${++seq}`;
  const campaigns = () => `/applications/${app.id}/campaigns`;

  async function create(body: Record<string, unknown>) {
    const res = await admin('POST', campaigns(), { name: 'Stacked', discount: DISCOUNT, ...body });
    expect(res.status, res.text).to.equal(201);
    assertMatchesSpec('POST', '/admin/applications/{app}/campaigns', 201, res.body);
    return res.body;
  }

  it('when a campaign says nothing of stacking, then it is triggered by its code with the default stacking', async () => {
    const made = await create({ code: code() });
    expect(made.trigger).to.equal('code');
    expect(made.stacking).to.deep.equal(DEFAULTS);
  });

  it('when a campaign sends part of its stacking, then the rest takes the defaults, and it reads back the same', async () => {
    const made = await create({ code: code(), stacking: { priority: 5, category: 'loyalty' } });
    expect(made.stacking).to.deep.equal({ ...DEFAULTS, priority: 5, category: 'loyalty' });
    expect((await must('GET', `${campaigns()}/${made.id}`)).stacking).to.deep.equal(made.stacking);
  });

  it('when an update sends some stacking keys, then those change and the others keep their value', async () => {
    const full = { priority: -3, category: 'sitewide', exclusive: true, combines_with: ['loyalty', 'shipping'] };
    const made = await create({ code: code(), stacking: full });
    expect(made.stacking).to.deep.equal(full);
    const res = await admin('PATCH', `${campaigns()}/${made.id}`, { stacking: { exclusive: false, combines_with: 'all' } });
    expect(res.status, res.text).to.equal(200);
    assertMatchesSpec('PATCH', '/admin/applications/{app}/campaigns/{campaign}', 200, res.body);
    expect(res.body.stacking).to.deep.equal({ priority: -3, category: 'sitewide', exclusive: false, combines_with: 'all' });
    const cleared = await must('PATCH', `${campaigns()}/${made.id}`, { stacking: { category: null } });
    expect(cleared.stacking).to.deep.equal({ priority: -3, category: null, exclusive: false, combines_with: 'all' });
  });

  for (const [label, stacking, fields] of [
    ['a fractional priority', { priority: 1.5 }, { 'stacking.priority': '"stacking.priority" must be an integer' }],
    ['a priority above 1000', { priority: 1001 }, { 'stacking.priority': '"stacking.priority" must be less than or equal to 1000' }],
    [
      'a category with a space',
      { category: 'gift card' },
      { 'stacking.category': '"stacking.category" with value "gift card" fails to match the category pattern' },
    ],
    ['an exclusive that is not a boolean', { exclusive: 'yes' }, { 'stacking.exclusive': '"stacking.exclusive" must be a boolean' }],
    [
      'combines_with neither "all" nor a list',
      { combines_with: 'none' },
      { 'stacking.combines_with': '"stacking.combines_with" must be "all" or a list of categories' },
    ],
    [
      'an empty combines_with list',
      { combines_with: [] },
      { 'stacking.combines_with': '"stacking.combines_with" must name at least one category' },
    ],
    [
      'a bad category in combines_with',
      { combines_with: ['loyalty', 'no way'] },
      { 'stacking.combines_with.1': '"stacking.combines_with[1]" with value "no way" fails to match the category pattern' },
    ],
    ['an unknown key', { order: 1 }, { 'stacking.order': '"stacking.order" is not allowed' }],
  ] as const) {
    it(`when a campaign's stacking has ${label}, then 400 naming the field, and nothing is stored`, async () => {
      const c = code();
      const res = await admin('POST', campaigns(), { name: 'Bad', code: c, discount: DISCOUNT, stacking });
      expect(res.status, res.text).to.equal(400);
      assertMatchesSpec('POST', '/admin/applications/{app}/campaigns', 400, res.body);
      expect(errorBody(res)).to.deep.equal({ code: 400, message: 'Invalid payload', details: Object.values(fields).join('; '), fields });
      const listed = (await must('GET', `${campaigns()}?limit=100`)).campaigns as { code?: string }[];
      expect(listed.map((x) => x.code)).to.not.include(c);
    });
  }

  it('when a trigger is unknown, or an update tries to change it, then 400 naming trigger', async () => {
    const bad = await admin('POST', campaigns(), { name: 'Bad', code: code(), discount: DISCOUNT, trigger: 'sometimes' });
    expect(bad.status).to.equal(400);
    expect(bad.body.fields).to.deep.equal({ trigger: '"trigger" must be one of [code, automatic]' });
    const made = await create({ code: code() });
    const change = await admin('PATCH', `${campaigns()}/${made.id}`, { trigger: 'automatic' });
    expect(change.status).to.equal(400);
    expect(change.body.fields).to.deep.equal({ trigger: '"trigger" is set when the campaign is created' });
    expect((await must('GET', `${campaigns()}/${made.id}`)).trigger).to.equal('code');
  });

  it('when an automatic promotion is created without a code, then it has none, and no code or id finds it on validate', async () => {
    const made = await create({ trigger: 'automatic', stacking: { category: 'sitewide' } });
    expect(made).to.include({ trigger: 'automatic', code_type: 'fixed' });
    expect(made).to.not.have.property('code');
    expect((await must('GET', `${campaigns()}/${made.id}/codes`)).codes).to.deep.equal([]);
    const unknown = await client(app, 'POST', '/coupons/validate', {
      coupon_details: [{ coupon_id: '0123456789abcdef01234567' }],
      order: makeOrder(),
    });
    for (const detail of [{ coupon_id: made.id }, { coupon_id: made.id, coupon_code: made.id }, { coupon_id: 'bulk', coupon_code: '' }]) {
      const res = await client(app, 'POST', '/coupons/validate', { coupon_details: [detail], order: makeOrder() });
      expect(res.status, JSON.stringify(detail)).to.equal(unknown.status);
      expect(res.body.message, JSON.stringify(detail)).to.equal(unknown.body.message);
    }
  });

  for (const [label, body, fields] of [
    ['with a code', { trigger: 'automatic', code: 'AUTO1' }, { code: '"code" is not allowed: an automatic promotion has no code' }],
    [
      'as a bulk campaign',
      { trigger: 'automatic', code_type: 'bulk' },
      { code_type: '"code_type" must be fixed: an automatic promotion has no codes' },
    ],
  ] as const) {
    it(`when an automatic promotion is sent ${label}, then 400 naming the field, also on the preview`, async () => {
      const res = await admin('POST', campaigns(), { name: 'Auto', discount: DISCOUNT, ...body });
      expect(res.status, res.text).to.equal(400);
      expect(errorBody(res)).to.deep.equal({ code: 400, message: 'Invalid payload', details: Object.values(fields).join('; '), fields });
      const preview = await admin('POST', `/applications/${app.id}/campaign-preview`, {
        campaign: { name: 'Auto', discount: DISCOUNT, ...body },
      });
      expect(preview.status).to.equal(400);
      expect(preview.body.fields).to.deep.equal(fields);
    });
  }

  it('when an automatic promotion is previewed, then it passes without a code', async () => {
    const res = await admin('POST', `/applications/${app.id}/campaign-preview`, {
      campaign: { name: 'Auto', discount: DISCOUNT, trigger: 'automatic' },
    });
    expect(res.status, res.text).to.equal(200);
  });

  it('when bulk codes are generated or imported for an automatic promotion, then 400, and it still has no code', async () => {
    const made = await create({ trigger: 'automatic' });
    for (const body of [{ generate: { count: 5 } }, { codes: ['AUTOCODE1'] }]) {
      const res = await admin('POST', `${campaigns()}/${made.id}/codes`, body);
      expect(res.status, res.text).to.equal(400);
      expect(errorBody(res)).to.deep.equal({
        code: 400,
        message: 'Invalid payload',
        details: '"trigger" of this campaign is automatic: an automatic promotion has no codes',
      });
    }
    expect((await must('GET', `${campaigns()}/${made.id}/codes`)).codes).to.deep.equal([]);
  });

  describe('an application', () => {
    it('when it is created, then its stacking is one coupon per request, no automatic promotions', async () => {
      const made = await newApp({ name: 'Plain' });
      expect((made as unknown as Record<string, unknown>).stacking).to.deep.equal({ max_coupons: 1, automatic_promotions: false });
      const listed = await must('GET', '/applications?limit=1');
      assertMatchesSpec('GET', '/admin/applications', 200, listed);
    });

    it('when its stacking is changed, then the keys sent change, the others stay, the change is audited, and the cached record has it at once', async () => {
      const target = await newApp({ name: 'Stacks' });
      // The record this process's credential cache holds, read before the change.
      expect((await api.services.credentials.authenticate(target.api_key, target.secret))!.stacking.maxCoupons).to.equal(1);
      const res = await admin('PATCH', `/applications/${target.id}`, { stacking: { max_coupons: 3 } });
      expect(res.status, res.text).to.equal(200);
      assertMatchesSpec('PATCH', '/admin/applications/{app}', 200, res.body);
      expect(res.body.stacking).to.deep.equal({ max_coupons: 3, automatic_promotions: false });
      const again = await must('PATCH', `/applications/${target.id}`, { stacking: { automatic_promotions: true } });
      expect(again.stacking).to.deep.equal({ max_coupons: 3, automatic_promotions: true });
      expect((await api.services.credentials.authenticate(target.api_key, target.secret))!.stacking).to.deep.equal({
        maxCoupons: 3,
        automaticPromotions: true,
      });
      expect((await api.services.applications.get(target.id))!.stacking).to.deep.equal({ maxCoupons: 3, automaticPromotions: true });
      const audit = await must('GET', `/audit?target_id=${target.id}&action=application.update`);
      expect(audit.entries.map((e: { changes: { stacking: unknown } }) => e.changes.stacking)).to.deep.equal([
        { before: { maxCoupons: 3, automaticPromotions: false }, after: { maxCoupons: 3, automaticPromotions: true } },
        { before: null, after: { maxCoupons: 3, automaticPromotions: false } },
      ]);
    });

    for (const [label, stacking, fields] of [
      ['0 coupons', { max_coupons: 0 }, { 'stacking.max_coupons': '"stacking.max_coupons" must be greater than or equal to 1' }],
      ['11 coupons', { max_coupons: 11 }, { 'stacking.max_coupons': '"stacking.max_coupons" must be less than or equal to 10' }],
      ['2.5 coupons', { max_coupons: 2.5 }, { 'stacking.max_coupons': '"stacking.max_coupons" must be an integer' }],
      [
        'automatic promotions that are not a boolean',
        { automatic_promotions: 'on' },
        { 'stacking.automatic_promotions': '"stacking.automatic_promotions" must be a boolean' },
      ],
      ['nothing in it', {}, { stacking: '"stacking" must have at least 1 key' }],
      ['an unknown key', { max: 2 }, { 'stacking.max': '"stacking.max" is not allowed' }],
    ] as const) {
      it(`when its stacking has ${label}, then 400 naming the field, and nothing changes`, async () => {
        const target = await newApp({ name: 'Bad stacks' });
        const res = await admin('PATCH', `/applications/${target.id}`, { stacking });
        expect(res.status, res.text).to.equal(400);
        assertMatchesSpec('PATCH', '/admin/applications/{app}', 400, res.body);
        expect(errorBody(res)).to.deep.equal({ code: 400, message: 'Invalid payload', details: Object.values(fields).join('; '), fields });
        const stored = await api.services.repos.applications.findById(target.id);
        expect(stored!.stacking).to.deep.equal({ maxCoupons: 1, automaticPromotions: false });
      });
    }
  });
});
