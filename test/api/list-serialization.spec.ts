import { expect } from 'chai';
import fc from 'fast-check';
import { serializeList } from '../../api/json-body.js';
import { loadDemoData } from '../../scripts/demo-data.js';
import { listCoupons } from '../../shared/usecases/list-coupons.usecase.js';
import { makeOrder } from '../fixtures/records.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

const PATH = ['coupon_savings', 'order', 'items'];

/**
 * The list answer is serialized by api/json-body.ts (shared item arrays once per request); its
 * bytes must be exactly what `JSON.stringify` — `res.json` — gives.
 */
describe('list answers: the faster serialization gives the same bytes', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('when the demo data is listed with orders of many shapes, then the body is byte for byte JSON.stringify of the result', async () => {
    const demo = await loadDemoData(api.services);
    const app = (await api.services.repos.applications.findById(demo.application.id))!;
    const auth = `Basic ${Buffer.from(`${demo.apiKey}:${demo.secret}`).toString('base64')}`;
    const fifty = makeOrder({
      items: Array.from({ length: 50 }, (_, i) => ({
        product_id: `p${i}`,
        sku: `SKU${i % 7}`,
        name: `Item "${i}" \u2028`,
        original_price: 100 + i,
        selling_price: 90 + i,
        quantity: 1 + (i % 3),
        shipping: i % 2,
        metadata: { channel: 'app', colour: i % 2 ? 'red' : 'blue' },
      })),
      metadata: { channel: 'app' },
      payment_mode: 'UPI',
    });
    const bodies = [
      {},
      { source_id: 'cust_1' },
      { source_id: 'cust_2', order: makeOrder() },
      { source_id: 'cust_1', order: fifty },
      { order: { x: 1 } },
    ];
    for (const body of bodies) {
      const res = await call(api.url, 'POST', '/coupons/list/all', { auth, body });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      // The use case's result for the same request, serialized as res.json does.
      const expected = await listCoupons(api.services, app, {
        body: JSON.parse(JSON.stringify(body)),
        requestId: res.headers.get('x-request-id')!,
      });
      expect(res.text).to.equal(JSON.stringify(expected.map((p) => p.body)));
      expect(Buffer.byteLength(res.text)).to.equal(Number(res.headers.get('content-length')));
    }
  });

  it('when any JSON-like list is serialized, then serializeList gives the bytes of JSON.stringify (property)', () => {
    const shared = Object.freeze([Object.freeze({ a: 1, b: 'x' })]);
    const leaf = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constant(shared),
    );
    const element = fc.oneof(
      fc.jsonValue(),
      fc.constant(undefined),
      fc.record({
        coupon_code: fc.string(),
        coupon_savings: fc.oneof(
          leaf,
          fc.record({ order: fc.oneof(leaf, fc.record({ id: fc.string(), items: leaf, after: fc.option(fc.string()) })) }),
        ),
        request_id: fc.oneof(fc.string(), fc.constant(undefined)),
      }),
    );
    fc.assert(
      fc.property(fc.array(element, { maxLength: 8 }), (list) => {
        expect(serializeList(list, PATH).equals(Buffer.from(JSON.stringify(list)))).to.equal(true);
      }),
      { numRuns: 500 },
    );
  });
});
