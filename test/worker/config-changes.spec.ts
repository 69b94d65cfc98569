/**
 * Admin changes are usable at once: with 2 API and 2 worker processes whose caches would otherwise
 * re-check only every minute (the longest CACHE_CHECK_MS allowed), a campaign created through one
 * API is validated through the other and redeemed by either worker with no pause, an archive is
 * refused by the next validate and redeem, a wallet's archive or settings apply to the next wallet
 * update through either API, a rotated secret or a disabled application is refused by the other API
 * at once, and a new webhook endpoint receives the events of the next redemptions whichever worker
 * records them — because the admin use case that makes a change announces it to every process
 * (shared/usecases/admin/announce.ts) before it returns: also when a tool calls it, not the API.
 */
import { expect } from 'chai';
import type { Services } from '../../shared/services.js';
import { createCampaign, setCampaignArchived } from '../../shared/usecases/admin/campaigns.usecase.js';
import { makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, testServices } from '../support/context.js';
import { startApiProcess, startWorkerProcess, type ServiceProcess } from '../support/service-process.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';

/** So long that only the announcements can make a change visible during the test. */
const CACHE_CHECK_MS = '60000';
const ROUNDS = 100;

describe('admin changes reach every API and worker process at once', function () {
  this.timeout(300_000);
  const procs: ServiceProcess[] = [];
  let apis: [string, string];
  let app: { id: string; auth: string };
  before(async () => {
    const env = {
      CACHE_CHECK_MS,
      ADMIN_TOKEN: ADMIN_HEADERS.authorization.slice('Bearer '.length),
      JOB_WAIT_TIMEOUT_MS: '60000',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', // the test's receiver
    };
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

  /** A new application with customer c1, through the first API: its credentials as a Basic header. */
  async function newApplication(name: string) {
    const created = await call(apis[0], 'POST', '/admin/applications', { headers: ADMIN_HEADERS, body: { name, currency: 'INR' } });
    expect(created.status, created.text).to.equal(201);
    const customers = await call(apis[0], 'POST', `/admin/applications/${created.body.id}/customers`, {
      headers: ADMIN_HEADERS,
      body: { customers: [{ source_id: 'c1' }] },
    });
    expect(customers.status, customers.text).to.equal(200);
    const basic = (secret: string) => `Basic ${Buffer.from(`${created.body.api_key}:${secret}`).toString('base64')}`;
    return { id: created.body.id as string, secret: created.body.secret as string, basic };
  }

  it(`when a secret is rotated or the application disabled through one API, then the other refuses the old credentials at once (${ROUNDS / 10} times)`, async () => {
    const other = await newApplication('credentials');
    let secret = other.secret;
    const wallets = (api: string, auth: string) => call(api, 'GET', '/wallets/customer/c1', { auth });
    const change = (api: string, method: string, path: string, body?: unknown) =>
      call(api, method, `/admin/applications/${other.id}${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });
    const late: string[] = [];
    for (let i = 0; i < ROUNDS / 10; i++) {
      const [writer, reader] = i % 2 === 0 ? apis : [apis[1], apis[0]];
      expect((await wallets(reader, other.basic(secret))).status).to.equal(200); // the reader holds the credentials now
      const rotated = await change(writer, 'POST', '/rotate-secret');
      expect(rotated.status, rotated.text).to.equal(200);
      const old = await wallets(reader, other.basic(secret));
      if (old.status !== 401) late.push(`round ${i}, old secret: ${old.status} ${old.text}`);
      secret = rotated.body.secret as string;
      const fresh = await wallets(reader, other.basic(secret));
      if (fresh.status !== 200) late.push(`round ${i}, new secret: ${fresh.status} ${fresh.text}`);
      expect((await change(writer, 'PATCH', '', { status: 'disabled' })).status).to.equal(200);
      const disabled = await wallets(reader, other.basic(secret));
      if (disabled.status !== 401) late.push(`round ${i}, disabled: ${disabled.status} ${disabled.text}`);
      expect((await change(writer, 'PATCH', '', { status: 'active' })).status).to.equal(200);
      const enabled = await wallets(reader, other.basic(secret));
      if (enabled.status !== 200) late.push(`round ${i}, enabled again: ${enabled.status} ${enabled.text}`);
    }
    expect(late).to.deep.equal([]);
  });

  it('when a webhook endpoint is created through one API, then the events of the next redemptions reach it, whichever worker records them', async () => {
    const receiver = await new WebhookReceiver().up();
    try {
      const other = await newApplication('webhooks');
      const auth = other.basic(other.secret);
      const admin = (method: string, path: string, body: unknown) =>
        call(apis[0], method, `/admin/applications/${other.id}${path}`, { headers: ADMIN_HEADERS, body });
      const created = await admin('POST', '/campaigns', {
        name: 'hooked',
        code: 'HOOK10',
        discount: { kind: 'discount', type: 'flat', value: 10 },
      });
      expect(created.status, created.text).to.equal(201);
      const redeem = async (api: string) => {
        const body = { source_id: 'c1', coupon_details: [{ coupon_code: 'HOOK10' }], order: makeOrder() };
        const r = await call(api, 'POST', '/coupons/apply?type=redeem', { auth, body });
        expect(r.status, r.text).to.equal(200);
        return body.order.order_id;
      };
      // Both workers (most likely) record a redemption of this application: each holds its endpoints now — none.
      for (let i = 0; i < 8; i++) await redeem(apis[i % 2]!);
      const endpoint = await admin('POST', '/webhooks', { url: receiver.url, event_types: ['redemption.completed'] });
      expect(endpoint.status, endpoint.text).to.equal(201);
      const orders: string[] = [];
      for (let i = 0; i < 8; i++) orders.push(await redeem(apis[1 - (i % 2)]!));
      const delivered = () => new Set(receiver.received.map((r) => r.json?.data?.order_id as string));
      await waitFor('the events of every redemption', () => orders.every((o) => delivered().has(o)), 30_000).catch(() => undefined);
      expect(
        orders.filter((o) => !delivered().has(o)),
        'redemptions whose event did not arrive',
      ).to.deep.equal([]);
    } finally {
      await receiver.close();
    }
  });

  it(`when a campaign is created or archived by a use case called outside the admin API (a tool's own process), then both APIs follow it at once (${ROUNDS / 10} times)`, async () => {
    let services: Services | undefined;
    try {
      services = await testServices();
      await services.changes.start();
      const late: string[] = [];
      for (let i = 0; i < ROUNDS / 10; i++) {
        const code = `TOOL${i}`;
        const campaign = await createCampaign(services, app.id, {
          name: code,
          code,
          discount: { kind: 'discount', type: 'flat', value: 10 },
        });
        for (const api of apis) {
          const v = await validate(api, code);
          if (v.status !== 200 || v.body.is_applicable !== true) late.push(`created, validate ${code}: ${v.status} ${v.text}`);
        }
        await setCampaignArchived(services, app.id, String(campaign.id), true);
        for (const api of apis) {
          const v = await validate(api, code);
          if (v.body?.is_applicable !== false && v.status === 200) late.push(`archived, validate ${code}: ${v.text}`);
        }
      }
      expect(late).to.deep.equal([]);
    } finally {
      await services?.changes.close();
    }
  });
});
