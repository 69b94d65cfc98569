import { expect } from 'chai';
import { createBulkCodes, createCampaign, createCustomers, makeOrder, seedUsage } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

describe('POST /coupons/list/all', () => {
  let api: TestApi;
  let app: TestApplication;
  let cust1: string;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    api.services.now = () => new Date();
    app = await createTestApplication(api.services);
    cust1 = (await createCustomers(api.services, app.id, ['cust-1', 'cust-2']))[0]!.id;
  });

  const list = (body?: unknown) => call(api.url, 'POST', '/coupons/list/all', { auth: app.auth, ...(body === undefined ? {} : { body }) });
  const codes = (res: { body: { coupon_code: string }[] }) => res.body.map((c) => c.coupon_code).sort();

  it('when a visitor lists (empty body), then only active all-users fixed coupons come back (docs/decisions.md#11)', async () => {
    await createCampaign(api.services, app.id, { code: 'ALL1', description: 'For everyone' });
    await createCampaign(api.services, app.id, { code: 'MINE', assignment: 'assigned_users', assignedCustomerIds: [cust1] });
    const bulk = await createCampaign(api.services, app.id, { codeType: 'bulk', code: undefined });
    await createBulkCodes(api.services, app.id, bulk.id, ['HIDDEN-1']);
    await createCampaign(api.services, app.id, { code: 'OFF', status: 'disabled' });
    const res = await list();
    expect(res.status).to.equal(200);
    expect(codes(res)).to.deep.equal(['ALL1']);
    expect(res.body[0]).to.include({ coupon_description: 'For everyone', is_applicable: true });
    expect(res.body[0]).to.not.have.property('message');
    expect(res.body[0].request_id).to.equal(res.headers.get('x-request-id'));
  });

  it('when a customer lists with only source_id, then all-users plus their assigned coupons, with no order checks', async () => {
    await createCampaign(api.services, app.id, {
      code: 'ALL1',
      cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 999999999 }],
    });
    await createCampaign(api.services, app.id, { code: 'MINE', assignment: 'assigned_users', assignedCustomerIds: [cust1] });
    const res = await list({ source_id: 'cust-1' });
    expect(codes(res)).to.deep.equal(['ALL1', 'MINE']);
    expect(res.body.every((c: { is_applicable: boolean }) => c.is_applicable)).to.equal(true);
    const other = await list({ source_id: 'cust-2' });
    expect(codes(other)).to.deep.equal(['ALL1']);
  });

  it('when expired or not-yet-started coupons exist, then they are omitted; outside the schedule is listed not applicable (docs/decisions.md#13)', async () => {
    api.services.now = () => new Date('2026-03-10T20:00:00Z'); // Wednesday 01:30 in Kolkata
    await createCampaign(api.services, app.id, { code: 'OLD', validUntil: new Date('2026-01-01T00:00:00Z') });
    await createCampaign(api.services, app.id, { code: 'SOON', validFrom: new Date('2027-01-01T00:00:00Z') });
    await createCampaign(api.services, app.id, { code: 'DAYTIME', schedule: { hours: [{ from: '09:00', to: '18:00' }] } });
    const res = await list();
    expect(codes(res)).to.deep.equal(['DAYTIME']);
    expect(res.body[0]).to.include({ is_applicable: false, message: 'coupon is not available at this moment or expired' });
  });

  it('when an order is sent, then each coupon is checked against it with its own message', async () => {
    await createCampaign(api.services, app.id, { code: 'OK10' });
    await createCampaign(api.services, app.id, {
      code: 'BIG',
      cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 20000 }],
    });
    await createCampaign(api.services, app.id, {
      code: 'HUGE',
      cartConditions: [{ field: 'original_price_subtotal', operator: 'gte', value: 500000 }],
    });
    const res = await list({ source_id: 'cust-1', order: makeOrder() });
    const byCode = Object.fromEntries(res.body.map((c: { coupon_code: string }) => [c.coupon_code, c]));
    expect(byCode.OK10).to.include({ is_applicable: true });
    expect(byCode.OK10.coupon_savings.order).to.include({ total_discount: 100, total_amount: 900, source_id: 'cust-1' });
    expect(byCode.BIG.is_applicable).to.equal(true);
    expect(byCode.HUGE).to.include({ is_applicable: false, message: 'original_price_subtotal should be greater than or equal to 5000.00' });
  });

  it('when the order is invalid, then the request still succeeds and every coupon carries the payload message (list rule 7)', async () => {
    await createCampaign(api.services, app.id, { code: 'A1' });
    await createCampaign(api.services, app.id, { code: 'A2' });
    const res = await list({ order: { selling_price_subtotal: 10 } });
    expect(res.status).to.equal(200);
    for (const c of res.body) {
      expect(c).to.include({
        is_applicable: false,
        message: 'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0',
      });
    }
    const items = await list({ order: makeOrder({ items: [{ selling_price: 1, original_price: 1 }] }) });
    expect(items.body[0].message).to.equal('product_id is required');
  });

  it('when a visitor sends an order, then coupons are validated against the order only', async () => {
    await createCampaign(api.services, app.id, { code: 'V', limits: { perCustomer: 1 } });
    const res = await list({ order: makeOrder() });
    expect(res.body[0]).to.include({ is_applicable: true });
    expect(res.body[0].coupon_savings.order.source_id).to.equal('');
  });

  it('when the source_id is unknown, then 400 invalid_payload / invalid source_id (docs/decisions.md#12)', async () => {
    const res = await list({ source_id: 'ghost' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      code: 400,
      message: 'invalid_payload',
      details: 'invalid source_id',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('when the limits are reached, then the coupon is listed not applicable with the limit message', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'LIM', limits: { total: 1 } });
    await seedUsage(api.services, app.id, c.id, 'total');
    const res = await list();
    expect(res.body[0]).to.include({ is_applicable: false, message: 'coupon code redemption total_limit exceeded' });
  });

  it('when an admin adds a coupon, then another process sees it within the cache check interval', async () => {
    await list(); // warm this process's cache
    await createCampaign(api.services, app.id, { code: 'NEW' });
    await new Promise((r) => setTimeout(r, 300)); // tests run with CACHE_CHECK_MS=200
    expect(codes(await list())).to.deep.equal(['NEW']);
  });

  it('when the application has 300 fixed coupons, then list costs a constant number of database round trips', async () => {
    for (let i = 0; i < 300; i++) await createCampaign(api.services, app.id, { code: `MANY${i}`, limits: { total: 100 } });
    await list({ source_id: 'cust-1', order: makeOrder() }); // warm caches
    const commands: string[] = [];
    const client = api.services.db.connection.getClient();
    const onStart = (e: { commandName: string }) => commands.push(e.commandName);
    client.on('commandStarted', onStart);
    const res = await list({ source_id: 'cust-1', order: makeOrder() });
    client.off('commandStarted', onStart);
    expect(res.body).to.have.length(300);
    // customer resolve + one batched usage read (+ at most one credential/config re-check).
    expect(commands.filter((c) => c === 'find').length).to.be.at.most(3);
  });
});
