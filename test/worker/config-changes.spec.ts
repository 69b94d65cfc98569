/**
 * Admin changes are usable at once (issue 19, item 6): with 2 API and 2 worker processes whose
 * caches would otherwise re-check only every minute (the longest CACHE_CHECK_MS allowed), a campaign created through one API is
 * validated through the other and redeemed by either worker with no pause, and an archive is
 * refused by the next validate and redeem, and a wallet's archive or settings apply to the next wallet
 * update through either API — because every change made through the admin API is
 * announced to every process (shared/cache/config-changes.ts) before the admin API answers.
 */
import { expect } from 'chai';
import { makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call } from '../support/context.js';
import { startApiProcess, startWorkerProcess, type ServiceProcess } from '../support/service-process.js';

/** So long that only the announcements can make a change visible during the test. */
const CACHE_CHECK_MS = '60000';
const ROUNDS = 100;

describe('admin changes reach every API and worker process at once', function () {
  this.timeout(300_000);
  const procs: ServiceProcess[] = [];
  let apis: [string, string];
  let app: { id: string; auth: string };
  before(async () => {
    const env = { CACHE_CHECK_MS, ADMIN_TOKEN: ADMIN_HEADERS.authorization.slice('Bearer '.length), JOB_WAIT_TIMEOUT_MS: '60000' };
    const started = await Promise.all([startApiProcess(env), startApiProcess(env), startWorkerProcess(env), startWorkerProcess(env)]);
    procs.push(...started);
    apis = [started[0].url!, started[1].url!];
    const created = await call(apis[0], 'POST', '/admin/applications', {
      headers: ADMIN_HEADERS,
      body: { name: 'changes', timezone: 'Asia/Kolkata', currency: 'INR' },
    });
    expect(created.status, created.text).to.equal(201);
    app = { id: created.body.id, auth: `Basic ${Buffer.from(`${created.body.api_key}:${created.body.secret}`).toString('base64')}` };
    const customers = await call(apis[0], 'POST', `/admin/applications/${app.id}/customers`, {
      headers: ADMIN_HEADERS,
      body: { customers: [{ source_id: 'c1' }] },
    });
    expect(customers.status, customers.text).to.equal(200);
  });
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });

  const admin = (api: string, method: string, path: string, body?: unknown) =>
    call(api, method, `/admin/applications/${app.id}${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });
  const validate = (api: string, code: string) =>
    call(api, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { source_id: 'c1', coupon_details: [{ coupon_code: code }], order: makeOrder() },
    });
  const redeem = (api: string, code: string) =>
    call(api, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'c1', coupon_details: [{ coupon_code: code }], order: makeOrder() },
    });

  it(`when a campaign is created through one API, then the other validates and redeems it with no pause (${ROUNDS} times, 0 misses)`, async () => {
    const misses: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const [writer, reader] = i % 2 === 0 ? apis : [apis[1], apis[0]];
      const code = `NOW${i}`;
      const created = await admin(writer, 'POST', '/campaigns', {
        name: code,
        code,
        discount: { kind: 'discount', type: 'flat', value: 10 },
      });
      expect(created.status, created.text).to.equal(201);
      const v = await validate(reader, code);
      if (v.status !== 200 || v.body.is_applicable !== true) misses.push(`validate ${code}: ${v.status} ${v.text}`);
      const r = await redeem(reader, code);
      if (r.status !== 200 || r.body.status !== 'completed') misses.push(`redeem ${code}: ${r.status} ${r.text}`);
    }
    console.log(`      [changes] ${ROUNDS} creations, ${misses.length} misses`);
    expect(misses).to.deep.equal([]);
  });

  it(`when a campaign is archived through one API, then the next validate and redeem through the other refuse it (${ROUNDS / 10} times)`, async () => {
    const late: string[] = [];
    for (let i = 0; i < ROUNDS / 10; i++) {
      const [writer, reader] = i % 2 === 0 ? apis : [apis[1], apis[0]];
      const code = `GONE${i}`;
      const created = await admin(writer, 'POST', '/campaigns', {
        name: code,
        code,
        discount: { kind: 'discount', type: 'flat', value: 10 },
      });
      expect((await validate(reader, code)).status).to.equal(200); // the reader holds it in its cache now
      expect((await admin(writer, 'POST', `/campaigns/${created.body.id}/archive`)).status).to.equal(200);
      const v = await validate(reader, code);
      if (v.body?.is_applicable !== false && v.status === 200) late.push(`validate ${code}: ${v.text}`);
      const r = await redeem(reader, code);
      if (r.status === 200) late.push(`redeem ${code}: ${r.text}`);
    }
    expect(late).to.deep.equal([]);
  });

  it(`when a wallet is archived, unarchived or its pending period changed through one API, then the next update through the other follows it (${ROUNDS / 10} times)`, async () => {
    const credit = (api: string) =>
      call(api, 'PUT', '/wallets/customer/c1/transactions/stars', { auth: app.auth, body: { type: 'credit', points: 1 } });
    expect((await admin(apis[0], 'POST', '/wallets', { wallet_id: 'stars' })).status).to.equal(201);
    const late: string[] = [];
    for (let i = 0; i < ROUNDS / 10; i++) {
      const [writer, reader] = i % 2 === 0 ? apis : [apis[1], apis[0]];
      const before = await credit(reader); // the reader holds the wallet in its cache now
      expect(before.status, before.text).to.equal(200);
      expect((await admin(writer, 'POST', '/wallets/stars/archive')).status).to.equal(200);
      const archived = await credit(reader);
      if (archived.status !== 404) late.push(`round ${i}, archived: ${archived.status} ${archived.text}`);
      expect((await admin(writer, 'POST', '/wallets/stars/unarchive')).status).to.equal(200);
      const back = await credit(reader);
      if (back.status !== 200) late.push(`round ${i}, unarchived: ${back.status} ${back.text}`);
      // A pending period: the next credit waits (its points are not spendable yet), and without it counts at once.
      expect((await admin(writer, 'PATCH', '/wallets/stars', { pending: { days: 1 } })).status).to.equal(200);
      const pending = await credit(reader);
      if (pending.body?.loyalty_points !== pending.body?.previous_loyalty_points) late.push(`round ${i}, pending: ${pending.text}`);
      expect((await admin(writer, 'PATCH', '/wallets/stars', { pending: null })).status).to.equal(200);
      const spendable = await credit(reader);
      if (spendable.body?.loyalty_points !== spendable.body?.previous_loyalty_points + 1)
        late.push(`round ${i}, spendable: ${spendable.text}`);
    }
    expect(late).to.deep.equal([]);
  });
});
