import { expect } from 'chai';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

const ROUTES: { method: string; path: string; message: string; details: string }[] = [
  { method: 'POST', path: '/coupons/list/all', message: 'unauthorized', details: 'appId or app secret invalid' },
  { method: 'POST', path: '/coupons/validate', message: 'Unathourized', details: 'appId or app secret invalid' },
  { method: 'POST', path: '/coupons/apply?type=redeem', message: 'Unathourized', details: 'app id or app secret invalid' },
  { method: 'GET', path: '/wallets/customer/c1', message: 'Unathourized', details: 'app id or app secret invalid' },
  { method: 'PUT', path: '/wallets/customer/c1/transactions/w1', message: 'Unathourized', details: 'app id or app secret invalid' },
];

describe('HTTP basics', () => {
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi({ BODY_LIMIT: '10kb' });
    app = await createTestApplication(api.services);
  });
  after(async () => {
    await api.close();
  });

  const badCredentials: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['a wrong secret', () => ({ authorization: `Basic ${Buffer.from(`${app.apiKey}:wrong`).toString('base64')}` })],
    ['an unknown API key', () => ({ authorization: `Basic ${Buffer.from(`ak_nope:${app.secret}`).toString('base64')}` })],
    ['a malformed Basic header', () => ({ authorization: 'Basic %%%not-base64' })],
    ['a Bearer header', () => ({ authorization: `Bearer ${app.secret}` })],
    ['base64 without a colon', () => ({ authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` })],
  ];

  for (const route of ROUTES) {
    for (const [label, headers] of badCredentials) {
      it(`when ${route.method} ${route.path} has ${label}, then 401 with the documented body`, async () => {
        const res = await call(api.url, route.method, route.path, { headers: headers(), ...(route.method === 'GET' ? {} : { body: {} }) });
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal({
          code: 401,
          message: route.message,
          details: route.details,
          request_id: res.headers.get('x-request-id'),
        });
      });
    }
  }

  it('when a client sends X-Request-Id, then it is echoed in the header and the body', async () => {
    const res = await call(api.url, 'POST', '/coupons/validate', { headers: { 'x-request-id': 'abc-123' }, body: {} });
    expect(res.headers.get('x-request-id')).to.equal('abc-123');
    expect(res.body.request_id).to.equal('abc-123');
  });

  it('when X-Request-Id is not printable or too long, then a UUID replaces it', async () => {
    const res = await call(api.url, 'POST', '/coupons/validate', { headers: { 'x-request-id': 'x'.repeat(129) }, body: {} });
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('when the JSON is malformed, then 400 Invalid payload naming the parse error', async () => {
    const res = await call(api.url, 'POST', '/coupons/validate', { auth: app.auth, rawBody: '{"coupon_details": [' });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal(400);
    expect(res.body.message).to.equal('Invalid payload');
    expect(res.body.details).to.match(/^invalid JSON: /);
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });

  it('when the body is over the limit, then 413 with an Error object', async () => {
    const res = await call(api.url, 'POST', '/coupons/list/all', { auth: app.auth, body: { pad: 'x'.repeat(20_000) } });
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ code: 413, message: 'Invalid payload', details: 'request body is larger than 10kb' });
  });

  it('when GET /wallets/customer has no source_id, then 404 plain text like the original', async () => {
    const res = await call(api.url, 'GET', '/wallets/customer', { auth: app.auth });
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    expect(res.text).to.equal('Cannot GET /wallets/customer');
  });

  it('when PUT /wallets/customer/{source_id}/transactions lacks the wallet id, then 404 plain text', async () => {
    const res = await call(api.url, 'PUT', '/wallets/customer/c1/transactions', { auth: app.auth, body: {} });
    expect(res.status).to.equal(404);
    expect(res.text).to.equal('Cannot PUT /wallets/customer/c1/transactions');
  });

  it('when the right credentials are sent, then the route answers 200', async () => {
    const res = await call(api.url, 'POST', '/coupons/list/all', { auth: app.auth });
    expect(res.status).to.equal(200);
  });

  it('when a secret is stored, then the database holds only its hash', async () => {
    const raw = await api.services.db.connection.db!.collection('applications').find({}).toArray();
    const dump = JSON.stringify(raw);
    expect(dump).to.not.include(app.secret);
    expect(dump).to.include(app.apiKey);
  });
});
