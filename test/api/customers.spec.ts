/**
 * `PUT /customers/:source_id`: an application registers its own customers with its own Basic
 * credentials (docs/customers.md) — created once under concurrency, scoped to the application,
 * archived customers left alone, bad input a 400 naming the field.
 */
import { expect } from 'chai';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { call, useTestApi } from '../support/context.js';

describe('PUT /customers/:source_id: an application upserts its own customers', () => {
  const api = useTestApi();
  /** A second API replica (its own caches and its own queue of one customer's upserts). */
  const replica = useTestApi({}, { inProcessWorker: false });
  const { basic, client, newApp, must } = adminHelpers(api);
  const upsert = (app: AdminApp, sourceId: string, body?: unknown) =>
    client(app, 'PUT', `/customers/${encodeURIComponent(sourceId)}`, body);
  const customersOf = async (app: AdminApp) =>
    (await must('GET', `/applications/${app.id}/customers?include_archived=true`)).customers as {
      id: string;
      source_id: string;
      name?: string;
      email?: string;
    }[];

  it('when a storefront signs a customer up, then 201 creates it, a repeat is 200, and the customer can use the client routes at once', async () => {
    const app = await newApp();
    const first = await upsert(app, 'shopper-1', { name: 'Asha', email: 'asha@example.com' });
    expect(first.status, first.text).to.equal(201);
    expect(first.body).to.deep.include({ source_id: 'shopper-1', name: 'Asha', email: 'asha@example.com', created: true });
    expect(first.body.request_id).to.equal(first.headers.get('x-request-id'));
    const again = await upsert(app, 'shopper-1', { name: 'Asha Rao' });
    expect(again.status, again.text).to.equal(200);
    expect(again.body).to.deep.include({
      customer_id: first.body.customer_id,
      name: 'Asha Rao',
      email: 'asha@example.com',
      created: false,
    });
    const bare = await upsert(app, ' shopper-2 ');
    expect(bare.status).to.equal(201);
    expect(bare.body.source_id).to.equal('shopper-2');
    expect((await customersOf(app)).map((c) => [c.source_id, c.name ?? null])).to.deep.equal([
      ['shopper-1', 'Asha Rao'],
      ['shopper-2', null],
    ]);
    const listed = await client(app, 'POST', '/coupons/list/all', { source_id: 'shopper-2' });
    expect(listed.status, listed.text).to.equal(200);
  });

  it('when 20 first upserts of one source_id race, then exactly one creates it and every answer names the same customer', async () => {
    const app = await newApp();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upsert(app, 'racer', { name: `n${i}` })));
    expect(answers.map((a) => a.status).sort((x, y) => x - y)).to.deep.equal([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((a) => a.body.customer_id)).size).to.equal(1);
    expect((await customersOf(app)).filter((c) => c.source_id === 'racer')).to.have.length(1);
  });

  it('when 20 first upserts of one source_id race through two API replicas, then exactly one creates it and every answer names the same customer', async () => {
    const app = await newApp();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? upsert(app, 'twice', { name: `n${i}` })
          : call(replica().url, 'PUT', '/customers/twice', { auth: basic(app), body: { name: `n${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status).sort((x, y) => x - y)).to.deep.equal([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((a) => a.body.customer_id)).size).to.equal(1);
    expect((await customersOf(app)).filter((c) => c.source_id === 'twice')).to.have.length(1);
  });

  it("when two applications upsert the same source_id, then each gets its own customer and neither touches the other's", async () => {
    const [a, b] = [await newApp(), await newApp()];
    const inB = await upsert(b, 'shared', { name: 'B' });
    const inA = await upsert(a, 'shared', { name: 'A' });
    expect([inA.status, inB.status]).to.deep.equal([201, 201]);
    expect(inA.body.customer_id).not.to.equal(inB.body.customer_id);
    // B's customer id sent as a source_id by A is just a new source_id of A's.
    const probe = await upsert(a, inB.body.customer_id, { name: 'probe' });
    expect(probe.status).to.equal(201);
    expect(probe.body.customer_id).not.to.equal(inB.body.customer_id);
    expect((await customersOf(b)).map((c) => [c.source_id, c.name])).to.deep.equal([['shared', 'B']]);
    const crossed = await call(api().url, 'PUT', '/customers/shared', { auth: basic({ api_key: a.api_key, secret: b.secret }), body: {} });
    expect(crossed.status).to.equal(401);
  });

  it('when the customer is archived, then 409 customer_archived and nothing changes', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'left', name: 'Old' }] });
    await must('POST', `/applications/${app.id}/customers/left/archive`);
    const res = await upsert(app, 'left', { name: 'New' });
    expect(res.status, res.text).to.equal(409);
    expect(res.headers.get('coupon-reason')).to.equal('customer_archived');
    expect((await customersOf(app)).map((c) => c.name)).to.deep.equal(['Old']);
  });

  for (const [label, sourceId, body, key] of [
    ['a source_id of 257 characters', 'x'.repeat(257), {}, 'source_id'],
    ['a source_id of spaces', '   ', {}, 'source_id'],
    ['an email that is not one', 'ok', { email: 'nope' }, 'email'],
    ['a name that is a number', 'ok', { name: 7 }, 'name'],
    ['an unknown field', 'ok', { points: 5 }, 'points'],
    ['a body that is an array', 'ok', [1], 'invalid_payload'],
  ] as const) {
    it(`when an upsert has ${label}, then 400 Invalid payload with key ${key}, and nothing is created`, async () => {
      const app = await newApp();
      const res = await upsert(app, sourceId, body);
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({ code: 400, message: 'Invalid payload', key });
      expect(res.headers.get('coupon-reason')).to.equal('invalid_payload');
      expect(await customersOf(app)).to.deep.equal([]);
    });
  }

  it('when the contract routes see an unknown source_id, then they keep the contract answers (no customer is created on sight)', async () => {
    const app = await newApp();
    const listed = await client(app, 'POST', '/coupons/list/all', { source_id: 'never-signed-up' });
    expect(listed.status).to.equal(400);
    expect(listed.body).to.include({ message: 'invalid_payload', details: 'invalid source_id' });
    expect(await customersOf(app)).to.deep.equal([]);
  });
});
