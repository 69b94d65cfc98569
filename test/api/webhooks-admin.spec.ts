import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { EventRecord } from '../../shared/domain/events.js';
import { idCursor, timeCursor } from '../../shared/usecases/admin/paging.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import {
  call,
  createTestApplication,
  startTestApi,
  TEST_ADMIN_TOKEN,
  TEST_QUEUE_PREFIX,
  type TestApi,
  type TestApplication,
} from '../support/context.js';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../client/src/webhooks.js';
import { everyPage } from '../support/admin.js';
import { assertMatchesSchema, spec } from '../support/openapi.js';
import { signedBy, WebhookReceiver, waitFor } from '../support/webhook-receiver.js';
import { nodeArgsFor } from '../../scripts/service-build.js';

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const run = promisify(execFile);

const hooks = (app: TestApplication) => `/admin/applications/${app.id}/webhooks`;
const eventsOf = (app: TestApplication) => `/admin/applications/${app.id}/events`;

/**
 * Every page of an admin listing of `limit` rows, following `next_cursor` from the first page;
 * returns each page's rows. Each page but the last is full and says another follows.
 */
function pages<T>(api: TestApi, path: string, key: string, limit: number): Promise<T[][]> {
  const sep = path.includes('?') ? '&' : '?';
  return everyPage<T>(async (cursor) => {
    const res = await call(api.url, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      auth: ADMIN,
    });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal([key, 'next_cursor'].sort());
    if (res.body.next_cursor !== null) expect(res.body[key], 'a page followed by another is full').to.have.length(limit);
    return { items: res.body[key] as T[], next: res.body.next_cursor as string | null };
  });
}
const ids = (rows: { id: string }[][]) => rows.flat().map((r) => r.id);

describe('admin API: webhook endpoints, events and deliveries', function () {
  this.timeout(60_000);

  describe('with the default destination policy (no reserved range allowed)', () => {
    let api: TestApi;
    let app: TestApplication;
    before(async () => {
      api = await startTestApi();
      app = await createTestApplication(api.services);
    });
    after(async () => {
      await api.close();
    });

    const refused: [string, unknown, RegExp][] = [
      ['a non-HTTP scheme', { url: 'ftp://hooks.example.com/x' }, /url must use http or https/],
      ['a file URL', { url: 'file:///etc/passwd' }, /url must use http or https/],
      ['credentials in the URL', { url: 'https://user:pw@93.184.216.34/x' }, /must not contain credentials/],
      ['a loopback address', { url: 'http://127.0.0.1:8080/x' }, /127\.0\.0\.1 is a loopback address/],
      ['a loopback address spelt as a number', { url: 'http://2130706433/x' }, /127\.0\.0\.1 is a loopback address/],
      ['the IPv6 loopback', { url: 'http://[::1]/x' }, /::1 is a loopback address/],
      ['a name that resolves to loopback', { url: 'http://localhost:9/x' }, /localhost resolves to .* loopback address/],
      ['a private address', { url: 'http://10.0.0.5/x' }, /private address/],
      ['an IPv4-mapped private address', { url: 'http://[::ffff:192.168.0.1]/x' }, /private address/],
      ['the link-local metadata address', { url: 'http://169.254.169.254/latest/meta-data' }, /link-local address/],
      [
        'the metadata address through NAT64',
        { url: 'http://[64:ff9b::169.254.169.254]/latest/meta-data' },
        /embeds 169\.254\.169\.254, a link-local/,
      ],
      ['a loopback address through 6to4', { url: 'http://[2002:7f00:1::1]/x' }, /embeds 127\.0\.0\.1, a loopback/],
      ['a private address through Teredo', { url: 'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/x' }, /embeds 10\.0\.0\.1, a private/],
      ['an IPv4-compatible loopback', { url: 'http://[::127.0.0.1]/x' }, /embeds 127\.0\.0\.1, a loopback/],
      ['a loopback address, naming the setting that allows it', { url: 'http://127.0.0.1:8080/x' }, /add it to WEBHOOK_ALLOWED_CIDRS/],
      ['an unknown event type', { url: 'https://93.184.216.34/x', event_types: ['coupon.eaten'] }, /"event_types\[0\]" must be one of/],
      ['no url', { event_types: ['*'] }, /"url" is required/],
    ];
    for (const [label, body, details] of refused) {
      it(`when an endpoint with ${label} is registered, then 400 names why`, async () => {
        const res = await call(api.url, 'POST', hooks(app), { auth: ADMIN, body });
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.include({ code: 400, message: 'Invalid payload' });
        expect(res.body.details).to.match(details);
      });
    }

    it('when an endpoint is registered, then its secret is shown once and never listed', async () => {
      const created = await call(api.url, 'POST', hooks(app), {
        auth: ADMIN,
        body: { url: 'https://93.184.216.34/hooks', event_types: ['redemption.completed'], description: 'CRM' },
      });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ url: 'https://93.184.216.34/hooks', status: 'active', description: 'CRM', disabled_reason: null });
      expect(created.body.event_types).to.deep.equal(['redemption.completed']);
      expect(created.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const listed = await call(api.url, 'GET', hooks(app), { auth: ADMIN });
      expect(listed.body.webhooks.map((w: { id: string }) => w.id)).to.include(created.body.id);
      expect(listed.text).to.not.include(created.body.secret);
      expect(listed.body.webhooks[0]).to.not.have.property('secret');
    });

    it("when another application's endpoint or an unknown one is named, then 404", async () => {
      const other = await createTestApplication(api.services);
      const theirs = await call(api.url, 'POST', hooks(other), { auth: ADMIN, body: { url: 'https://93.184.216.34/theirs' } });
      for (const path of [
        `${hooks(app)}/${theirs.body.id}`,
        `${hooks(app)}/000000000000000000000000`,
        `${hooks(app)}/not-an-id`,
        `/admin/applications/000000000000000000000000/webhooks/${theirs.body.id}`,
      ]) {
        const res = await call(api.url, 'PATCH', path, { auth: ADMIN, body: { status: 'disabled' } });
        expect(res.status, path).to.equal(404);
      }
      const deliveries = await call(api.url, 'GET', `${hooks(app)}/${theirs.body.id}/deliveries`, { auth: ADMIN });
      expect(deliveries.body).to.include({ message: 'resource not found', details: 'webhook not found' });
    });

    it('when the admin token is missing, then every webhook route answers 401', async () => {
      for (const [method, path] of [
        ['GET', hooks(app)],
        ['POST', hooks(app)],
        ['GET', `/admin/applications/${app.id}/events`],
      ] as const) {
        expect((await call(api.url, method, path, method === 'POST' ? { body: {} } : {})).status, `${method} ${path}`).to.equal(401);
      }
    });

    describe('paging', () => {
      it('when endpoints are paged 2 at a time, then each comes once, in creation order, and the last page says so', async () => {
        const mine = await createTestApplication(api.services);
        const created: string[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await call(api.url, 'POST', hooks(mine), { auth: ADMIN, body: { url: `https://93.184.216.34/h${i}` } });
          expect(res.status, res.text).to.equal(201);
          created.push(res.body.id);
        }
        // Disabled endpoints are listed too.
        expect(
          (await call(api.url, 'PATCH', `${hooks(mine)}/${created[1]}`, { auth: ADMIN, body: { status: 'disabled' } })).status,
        ).to.equal(200);
        const got = await pages<{ id: string; url: string }>(api, hooks(mine), 'webhooks', 2);
        expect(got.map((p) => p.length)).to.deep.equal([2, 2, 1]);
        expect(ids(got)).to.deep.equal(created);
        expect(got.flat().map((w) => w.url)).to.deep.equal([0, 1, 2, 3, 4].map((i) => `https://93.184.216.34/h${i}`));
        expect(ids(await pages(api, hooks(mine), 'webhooks', 5))).to.deep.equal(created);
      });

      it('when an endpoint is registered between two pages, then the next page neither repeats nor skips one', async () => {
        const mine = await createTestApplication(api.services);
        const register = async (i: number) =>
          (await call(api.url, 'POST', hooks(mine), { auth: ADMIN, body: { url: `https://93.184.216.34/m${i}` } })).body.id as string;
        const created = [await register(1), await register(2), await register(3)];
        const first = await call(api.url, 'GET', `${hooks(mine)}?limit=2`, { auth: ADMIN });
        created.push(await register(4));
        const second = await call(api.url, 'GET', `${hooks(mine)}?limit=2&cursor=${first.body.next_cursor}`, { auth: ADMIN });
        expect(ids([first.body.webhooks, second.body.webhooks])).to.deep.equal(created);
        expect(second.body.next_cursor).to.equal(null);
      });

      /** Writes events straight into the outbox: `at` lets several share one creation time. */
      async function recordEvents(appId: string, specs: { customerId: string; sourceId: string; type: 'wallet' | 'refused'; at: Date }[]) {
        const events: EventRecord[] = specs.map((e, i) => {
          const customer = { source_id: e.sourceId, customer_id: e.customerId };
          const id = `evt_${appId}${String(i).padStart(8, '0')}`;
          return e.type === 'wallet'
            ? {
                id,
                applicationId: appId,
                customerId: e.customerId,
                type: 'wallet.transaction.completed',
                sequence: i + 1,
                requestId: `req-${i}`,
                createdAt: e.at,
                data: {
                  ...customer,
                  wallet_id: 'loyalty',
                  txn_id: `txn-${i}`,
                  type: 'credit',
                  origin: 'api',
                  points: i + 1,
                  previous_loyalty_points: 0,
                  loyalty_points: i + 1,
                  description: '',
                  order_id: null,
                },
              }
            : {
                id,
                applicationId: appId,
                customerId: e.customerId,
                type: 'redemption.refused',
                sequence: i + 1,
                requestId: `req-${i}`,
                createdAt: e.at,
                data: {
                  ...customer,
                  order_id: `o-${i}`,
                  campaign_id: '000000000000000000000000',
                  coupon_id: '000000000000000000000000',
                  coupon_code: 'X',
                  reason: 'total_limit',
                  message: 'coupon validation failed',
                  details: 'coupon code redemption total_limit exceeded',
                },
              };
        });
        await api.services.repos.events.record(events);
        // The listing's order: newest first, then by id (descending) among events of one instant.
        return [...events].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
      }

      it('when events share creation times, then pages list them newest first, ties by id, each once, with and without filters', async () => {
        const mine = await createTestApplication(api.services);
        const [c1, c2] = await createCustomers(api.services, mine.id, ['c1', 'c2']);
        const t = (s: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, s));
        // Three events of one instant straddle the page boundaries of `limit=2`.
        const expected = await recordEvents(mine.id, [
          { customerId: c1!.id, sourceId: 'c1', type: 'wallet', at: t(1) },
          { customerId: c2!.id, sourceId: 'c2', type: 'refused', at: t(2) },
          { customerId: c1!.id, sourceId: 'c1', type: 'refused', at: t(2) },
          { customerId: c2!.id, sourceId: 'c2', type: 'wallet', at: t(2) },
          { customerId: c1!.id, sourceId: 'c1', type: 'wallet', at: t(3) },
        ]);
        expect(expected.map((e) => e.createdAt.getUTCSeconds())).to.deep.equal([3, 2, 2, 2, 1]);

        const all = await pages<{ id: string }>(api, eventsOf(mine), 'events', 2);
        expect(all.map((p) => p.length)).to.deep.equal([2, 2, 1]);
        expect(ids(all)).to.deep.equal(expected.map((e) => e.id));

        const ofC1 = await pages<{ id: string }>(api, `${eventsOf(mine)}?customer=c1`, 'events', 2);
        expect(ids(ofC1)).to.deep.equal(expected.filter((e) => e.customerId === c1!.id).map((e) => e.id));
        const refused = await pages<{ id: string }>(api, `${eventsOf(mine)}?type=redemption.refused`, 'events', 1);
        expect(ids(refused)).to.deep.equal(expected.filter((e) => e.type === 'redemption.refused').map((e) => e.id));
        const refusedOfC2 = await pages<{ id: string }>(api, `${eventsOf(mine)}?type=redemption.refused&customer=${c2!.id}`, 'events', 1);
        expect(ids(refusedOfC2)).to.deep.equal(
          expected.filter((e) => e.type === 'redemption.refused' && e.customerId === c2!.id).map((e) => e.id),
        );
      });

      it('when an event is recorded between two pages, then the next page neither repeats nor skips one', async () => {
        const mine = await createTestApplication(api.services);
        const [c1] = await createCustomers(api.services, mine.id, ['c1']);
        const t = (s: number) => new Date(Date.UTC(2026, 10, 23, 11, 0, s));
        const expected = await recordEvents(
          mine.id,
          [1, 2, 3].map((s) => ({ customerId: c1!.id, sourceId: 'c1', type: 'wallet' as const, at: t(s) })),
        );
        const first = await call(api.url, 'GET', `${eventsOf(mine)}?limit=2`, { auth: ADMIN });
        expect(first.body.next_cursor).to.be.a('string');
        await api.services.repos.events.record([{ ...expected[0]!, id: `evt_${mine.id}newer`, createdAt: t(9) }]);
        const second = await call(api.url, 'GET', `${eventsOf(mine)}?limit=2&cursor=${first.body.next_cursor}`, { auth: ADMIN });
        expect(ids([first.body.events, second.body.events])).to.deep.equal(expected.map((e) => e.id));
        expect(second.body.next_cursor).to.equal(null);
      });

      it('when the old requests are sent, then they still work: limit=20, and a limit above 1000 reads as 1000', async () => {
        const mine = await createTestApplication(api.services);
        const hook = (await call(api.url, 'POST', hooks(mine), { auth: ADMIN, body: { url: 'https://93.184.216.34/old' } })).body.id;
        for (const limit of [20, 5000]) {
          const listed = await call(api.url, 'GET', `${hooks(mine)}?limit=${limit}`, { auth: ADMIN });
          expect(listed.status, listed.text).to.equal(200);
          expect(ids([listed.body.webhooks])).to.deep.equal([hook]);
          expect(listed.body.next_cursor).to.equal(null);
          for (const [path, key] of [
            [`${hooks(mine)}/${hook}/deliveries?status=dead&limit=${limit}`, 'deliveries'],
            [`${eventsOf(mine)}?type=redemption.completed&limit=${limit}`, 'events'],
          ] as const) {
            const res = await call(api.url, 'GET', path, { auth: ADMIN });
            expect(res.status, `${path}: ${res.text}`).to.equal(200);
            expect(res.body, path).to.deep.equal({ [key]: [], next_cursor: null });
          }
        }
      });

      const NOT_A_CURSOR = '"cursor" is not a cursor of this listing (send the next_cursor of the previous page)';
      const badQueries: [string, (app: TestApplication, hook: string) => string, string][] = [
        ['an endpoint listing gets a cursor that is not one', (a) => `${hooks(a)}?cursor=nope`, NOT_A_CURSOR],
        [
          'an endpoint listing gets a cursor of a time-ordered listing',
          (a) => `${hooks(a)}?cursor=${timeCursor.encode(new Date(), 'evt_x')}`,
          NOT_A_CURSOR,
        ],
        ['an endpoint listing gets an unknown parameter', (a) => `${hooks(a)}?page=2`, '"page" is not allowed'],
        ['an endpoint listing gets a limit of 0', (a) => `${hooks(a)}?limit=0`, '"limit" must be greater than or equal to 1'],
        ['a delivery listing gets a cursor that is not one', (a, h) => `${hooks(a)}/${h}/deliveries?cursor=bm9wZQ`, NOT_A_CURSOR],
        [
          'a delivery listing gets a cursor of an id-ordered listing',
          (a, h) => `${hooks(a)}/${h}/deliveries?cursor=${idCursor.encode(h)}`,
          NOT_A_CURSOR,
        ],
        ['a delivery listing gets an unknown parameter', (a, h) => `${hooks(a)}/${h}/deliveries?offset=1`, '"offset" is not allowed'],
        ['a delivery listing gets skip, which it never offered', (a, h) => `${hooks(a)}/${h}/deliveries?skip=1`, '"skip" is not allowed'],
        [
          'a delivery listing gets an unknown status',
          (a, h) => `${hooks(a)}/${h}/deliveries?status=lost`,
          '"status" must be one of [pending, succeeded, dead, cancelled]',
        ],
        ['an event listing gets a cursor that is not one', (a) => `${eventsOf(a)}?cursor=${'x'.repeat(20)}`, NOT_A_CURSOR],
        ['an event listing gets an unknown parameter', (a) => `${eventsOf(a)}?since=2026-01-01`, '"since" is not allowed'],
        ['an event listing gets a limit that is not a number', (a) => `${eventsOf(a)}?limit=abc`, '"limit" must be a number'],
      ];
      for (const [label, path, details] of badQueries) {
        it(`when ${label}, then 400 naming it`, async () => {
          const hook = (await call(api.url, 'POST', hooks(app), { auth: ADMIN, body: { url: 'https://93.184.216.34/bad' } })).body.id;
          const res = await call(api.url, 'GET', path(app, hook), { auth: ADMIN });
          expect(res.status, res.text).to.equal(400);
          expect(res.body).to.include({ code: 400, message: 'Invalid payload', details });
        });
      }
    });

    it('when openapi.yaml is read, then every webhook example is a valid event', () => {
      const examples = Object.values(spec.webhooks as Record<string, any>)
        .map((w) => w.post.requestBody.content['application/json'].example)
        .filter(Boolean);
      expect(examples.length).to.be.at.least(3);
      for (const e of examples) assertMatchesSchema('WebhookEvent', e);
    });
  });

  describe('with a receiver on loopback (allowed for this API)', () => {
    let api: TestApi;
    let receiver: WebhookReceiver;
    before(async () => {
      api = await startTestApi({
        QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-admin-hooks`,
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_RETRY_MAX_MS: '500',
      });
    });
    beforeEach(async () => {
      receiver = await new WebhookReceiver().up();
    });
    afterEach(async () => {
      await receiver.close();
    });
    after(async () => {
      await api.webhooks.queue.obliterate({ force: true });
      await api.close();
    });

    async function setUp(body: Record<string, unknown> = {}) {
      const app = await createTestApplication(api.services);
      await createCustomers(api.services, app.id, ['c1', 'c2']);
      await createWallet(api.services, app.id);
      const created = await call(api.url, 'POST', hooks(app), { auth: ADMIN, body: { url: receiver.url, ...body } });
      expect(created.status, created.text).to.equal(201);
      return { app, endpoint: created.body as { id: string; secret: string } };
    }
    const credit = (app: TestApplication, sourceId: string, points: number) =>
      call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points } });

    it('when a secret is rotated, then deliveries are signed with the new and the previous secret until the overlap ends', async () => {
      const { app, endpoint } = await setUp();
      const rotated = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/rotate-secret`, {
        auth: ADMIN,
        body: { previous_secret_expires_in: 3600 },
      });
      expect(rotated.status, rotated.text).to.equal(200);
      expect(rotated.body.secret)
        .to.match(/^whsec_/)
        .and.not.equal(endpoint.secret);
      expect((await credit(app, 'c1', 1)).status).to.equal(200);
      await waitFor('first event', () => receiver.accepted.length === 1);
      const [first] = receiver.accepted;
      const header = first!.headers['coupons-signature'] as string;
      expect(header.match(/v1=/g)).to.have.length(2);
      expect((first!.headers['webhook-signature'] as string).split(' ')).to.have.length(2);
      expect(signedBy(first!, { secrets: rotated.body.secret })).to.equal(true);
      expect(signedBy(first!, { secrets: endpoint.secret })).to.equal(true);

      const again = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/rotate-secret`, {
        auth: ADMIN,
        body: { previous_secret_expires_in: 0 },
      });
      expect((await credit(app, 'c1', 1)).status).to.equal(200);
      await waitFor('second event', () => receiver.accepted.length === 2);
      const second = receiver.accepted[1]!;
      const h2 = second.headers['coupons-signature'] as string;
      expect(h2.match(/v1=/g)).to.have.length(1);
      expect(signedBy(second, { secrets: again.body.secret })).to.equal(true);
      expect(signedBy(second, { secrets: rotated.body.secret })).to.equal(false);
      // A receiver mid-rotation holds both secrets: the delivery verifies with either list.
      expect(signedBy(second, { secrets: [rotated.body.secret, again.body.secret] })).to.equal(true);
    });

    it('when a real delivery is verified, then the client and the Standard Webhooks library accept it, and the same delivery replayed after the tolerance is refused', async () => {
      const { app, endpoint } = await setUp();
      expect((await credit(app, 'c1', 3)).status).to.equal(200);
      await waitFor('the event', () => receiver.accepted.length === 1);
      const got = receiver.accepted[0]!;
      const event = verifyWebhook(got.body, got.headers, { secrets: endpoint.secret });
      expect(event).to.include({ type: 'wallet.transaction.completed', id: got.headers['coupons-event-id'] });
      expect(got.headers['webhook-id']).to.equal(event.id);
      expect(new Webhook(endpoint.secret).verify(got.body, got.headers as Record<string, string>)).to.deep.equal(JSON.parse(got.body));
      // An attacker who captured this delivery and sends it again later: refused once outside the window.
      const later = new Date((Number(got.headers['webhook-timestamp']) + 301) * 1000);
      expect(signedBy(got, { secrets: endpoint.secret, now: later })).to.equal(false);
      expect(() => verifyWebhook(got.body, got.headers, { secrets: endpoint.secret, now: later }))
        .to.throw(WebhookVerificationError)
        .with.property('reason', 'timestamp_outside_tolerance');
      expect(signedBy({ ...got, body: got.body.replace('"points":3', '"points":300') }, { secrets: endpoint.secret })).to.equal(false);
    });

    it('when an endpoint is pinged, then it receives a signed webhook.ping whatever it subscribes to, listed with its deliveries but not as an event', async () => {
      const { app, endpoint } = await setUp({ event_types: ['redemption.completed'] });
      const pinged = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/ping`, { auth: ADMIN });
      expect(pinged.status, pinged.text).to.equal(202);
      await waitFor('the ping', () => receiver.accepted.length === 1);
      const got = receiver.accepted[0]!;
      const ping = verifyWebhook(got.body, got.headers, { secrets: endpoint.secret });
      expect(ping).to.deep.include({ id: pinged.body.event_id, type: 'webhook.ping', sequence: 1, data: { webhook_id: endpoint.id } });
      expect(ping.request_id).to.equal(pinged.headers.get('x-request-id'));
      expect(got.headers['coupons-event-type']).to.equal('webhook.ping');
      await waitFor('the delivery succeeded', async () => {
        const listed = await call(api.url, 'GET', `${hooks(app)}/${endpoint.id}/deliveries`, { auth: ADMIN });
        return listed.body.deliveries.some(
          (d: { id: string; status: string }) => d.id === pinged.body.delivery_id && d.status === 'succeeded',
        );
      });
      expect((await call(api.url, 'GET', eventsOf(app), { auth: ADMIN })).body.events).to.deep.equal([]);
      expect((await call(api.url, 'PATCH', `${hooks(app)}/${endpoint.id}`, { auth: ADMIN, body: { status: 'disabled' } })).status).to.equal(
        200,
      );
      const refused = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/ping`, { auth: ADMIN });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.details).to.include('disabled');
    });

    it('when an endpoint is disabled, events are still recorded; after re-enabling, a time range is redelivered in order', async () => {
      const { app, endpoint } = await setUp();
      const disabled = await call(api.url, 'PATCH', `${hooks(app)}/${endpoint.id}`, { auth: ADMIN, body: { status: 'disabled' } });
      expect(disabled.body).to.include({ status: 'disabled', disabled_reason: 'admin' });
      const from = new Date(Date.now() - 1000).toISOString();
      for (let i = 1; i <= 3; i++) expect((await credit(app, 'c1', i)).status).to.equal(200);
      const events = await call(api.url, 'GET', `/admin/applications/${app.id}/events?customer=c1`, { auth: ADMIN });
      expect(events.status).to.equal(200);
      expect(events.body.events.map((e: any) => e.data.points)).to.deep.equal([3, 2, 1]);
      for (const e of events.body.events) assertMatchesSchema('AdminEvent', e);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.arrivals).to.equal(0);

      const refusedWhileDisabled = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/redeliver`, {
        auth: ADMIN,
        body: { from, to: new Date(Date.now() + 1000).toISOString() },
      });
      expect(refusedWhileDisabled.status).to.equal(400);
      expect(refusedWhileDisabled.body.details).to.equal('the webhook is disabled: enable it first');

      const enabled = await call(api.url, 'PATCH', `${hooks(app)}/${endpoint.id}`, { auth: ADMIN, body: { status: 'active' } });
      expect(enabled.body).to.include({ status: 'active', disabled_reason: null, disabled_at: null });
      const queued = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/redeliver`, {
        auth: ADMIN,
        body: { from, to: new Date(Date.now() + 1000).toISOString() },
      });
      expect(queued.status, queued.text).to.equal(202);
      expect(queued.body).to.deep.equal({ queued: 3 });
      await waitFor('three events', () => receiver.accepted.length === 3);
      expect(receiver.accepted.map((r) => r.json.data.points)).to.deep.equal([1, 2, 3]);
      expect(receiver.allSigned(endpoint.secret)).to.equal(true);
    });

    it('when one event is redelivered, then it arrives again under the same id and its delivery restarts', async () => {
      const { app, endpoint } = await setUp();
      expect((await credit(app, 'c2', 5)).status).to.equal(200);
      await waitFor('delivery', () => receiver.accepted.length === 1);
      const eventId = receiver.accepted[0]!.json.id;
      const path = `${hooks(app)}/${endpoint.id}/deliveries?event=${eventId}`;
      await waitFor(
        'succeeded',
        async () => (await call(api.url, 'GET', path, { auth: ADMIN })).body.deliveries[0]?.status === 'succeeded',
      );
      const res = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/redeliver`, { auth: ADMIN, body: { event_id: eventId } });
      expect(res.status, res.text).to.equal(202);
      expect(res.body).to.deep.equal({ queued: 1 });
      await waitFor('redelivery', () => receiver.accepted.length === 2);
      expect(receiver.accepted[1]!.json.id).to.equal(eventId);
      expect(receiver.accepted[1]!.body).to.equal(receiver.accepted[0]!.body);
      const listed = await call(api.url, 'GET', path, { auth: ADMIN });
      expect(listed.body.deliveries).to.have.length(1);
      await waitFor(
        'succeeded again',
        async () => (await call(api.url, 'GET', path, { auth: ADMIN })).body.deliveries[0]?.status === 'succeeded',
      );
      expect((await call(api.url, 'GET', path, { auth: ADMIN })).body.deliveries[0]).to.include({ attempts: 1, last_error: null });
    });

    it('when events and deliveries are listed with ?limit=1 (a query string, text), then one of each comes back; ?limit=0 is a 400', async () => {
      const { app, endpoint } = await setUp();
      for (const points of [1, 2]) expect((await credit(app, 'c1', points)).status).to.equal(200);
      const all = async () => (await call(api.url, 'GET', `${hooks(app)}/${endpoint.id}/deliveries`, { auth: ADMIN })).body.deliveries;
      await waitFor('both deliveries', async () => (await all()).length === 2);
      const events = await call(api.url, 'GET', `/admin/applications/${app.id}/events?limit=1`, { auth: ADMIN });
      expect([events.status, events.body.events?.length]).to.deep.equal([200, 1]);
      const deliveries = await call(api.url, 'GET', `${hooks(app)}/${endpoint.id}/deliveries?limit=1`, { auth: ADMIN });
      expect([deliveries.status, deliveries.body.deliveries?.length]).to.deep.equal([200, 1]);
      const zero = await call(api.url, 'GET', `${hooks(app)}/${endpoint.id}/deliveries?limit=0`, { auth: ADMIN });
      expect([zero.status, zero.body.details]).to.deep.equal([400, '"limit" must be greater than or equal to 1']);
    });

    it('when an endpoint subscribes to some types only, then it receives only those, and redelivering another type is refused', async () => {
      const { app, endpoint } = await setUp({ event_types: ['redemption.completed'] });
      expect((await credit(app, 'c1', 1)).status).to.equal(200);
      const events = await call(api.url, 'GET', `/admin/applications/${app.id}/events?type=wallet.transaction.completed`, { auth: ADMIN });
      expect(events.body.events).to.have.length(1);
      const res = await call(api.url, 'POST', `${hooks(app)}/${endpoint.id}/redeliver`, {
        auth: ADMIN,
        body: { event_id: events.body.events[0].id },
      });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('the webhook does not subscribe to wallet.transaction.completed');
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.arrivals).to.equal(0);
    });

    it('when deliveries are paged, then newest first (ties by id), each once, with and without filters', async () => {
      const { app, endpoint } = await setUp();
      for (const [sourceId, points] of [
        ['c1', 1],
        ['c2', 2],
        ['c1', 3],
        ['c2', 4],
        ['c1', 5],
      ] as const)
        expect((await credit(app, sourceId, points)).status).to.equal(200);
      const path = `${hooks(app)}/${endpoint.id}/deliveries`;
      type Row = { id: string; event_id: string; status: string; created_at: string };
      const everything = async () => (await call(api.url, 'GET', `${path}?limit=1000`, { auth: ADMIN })).body.deliveries as Row[];
      await waitFor('five succeeded deliveries', async () => {
        const rows = await everything();
        return rows.length === 5 && rows.every((d) => d.status === 'succeeded');
      });
      const all = await everything();
      const newestFirst = [...all].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1));
      expect(ids([all])).to.deep.equal(ids([newestFirst]));
      const events = (await call(api.url, 'GET', `${eventsOf(app)}?limit=1000`, { auth: ADMIN })).body.events as { id: string }[];
      expect(all.map((d) => d.event_id).sort()).to.deep.equal(ids([events]).sort());

      const paged = await pages<Row>(api, path, 'deliveries', 2);
      expect(paged.map((p) => p.length)).to.deep.equal([2, 2, 1]);
      expect(ids(paged)).to.deep.equal(ids([all]));
      expect(ids(await pages<Row>(api, `${path}?status=succeeded`, 'deliveries', 3))).to.deep.equal(ids([all]));
      expect(await pages<Row>(api, `${path}?status=dead`, 'deliveries', 2)).to.deep.equal([[]]);
      const one = await pages<Row>(api, `${path}?event=${all[2]!.event_id}`, 'deliveries', 1);
      expect(ids(one)).to.deep.equal([all[2]!.id]);
    });

    it('when the command line manages an endpoint, then it registers, lists, disables and redelivers like the API', async function () {
      // Nine command-line processes, each loading the service with tsx: several seconds each
      // when the suite's lanes share the cores.
      this.timeout(180_000);
      const app = await createTestApplication(api.services);
      await createCustomers(api.services, app.id, ['c1']);
      await createWallet(api.services, app.id);
      const env = { ...process.env, COUPONS_URL: api.url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN, MONGODB_URI: '' };
      const cli = async (...args: string[]) =>
        JSON.parse((await run('node', [...nodeArgsFor('scripts/admin.ts'), ...args], { env })).stdout);
      const created = await cli('create-webhook', '--app', app.id, '--url', receiver.url, '--events', 'wallet.transaction.completed');
      expect(created.secret).to.match(/^whsec_/);
      expect((await cli('list-webhooks', '--app', app.id)).webhooks.map((w: { id: string }) => w.id)).to.deep.equal([created.id]);
      expect((await cli('disable-webhook', '--app', app.id, '--webhook', created.id)).status).to.equal('disabled');
      expect((await credit(app, 'c1', 2)).status).to.equal(200);
      expect((await cli('enable-webhook', '--app', app.id, '--webhook', created.id)).status).to.equal('active');
      const [event] = (await cli('list-events', '--app', app.id)).events;
      expect(await cli('redeliver', '--app', app.id, '--webhook', created.id, '--event', event.id)).to.deep.equal({ queued: 1 });
      await waitFor('delivery', () => receiver.accepted.length === 1);
      expect(signedBy(receiver.accepted[0]!, { secrets: created.secret })).to.equal(true);
      const deliveries = await cli('list-deliveries', '--app', app.id, '--webhook', created.id);
      expect(deliveries.deliveries.map((d: { event_id: string }) => d.event_id)).to.deep.equal([event.id]);
      expect(deliveries.next_cursor).to.equal(null);

      // --cursor continues each listing from the next_cursor of a page, as the API does.
      const other = await cli('create-webhook', '--app', app.id, '--url', receiver.url, '--events', 'redemption.completed');
      const firstPage = async (path: string) => {
        const res = await call(api.url, 'GET', `${path}?limit=1`, { auth: ADMIN });
        expect(res.body.next_cursor, path).to.be.a('string');
        return res.body.next_cursor as string;
      };
      const rest = await cli('list-webhooks', '--app', app.id, '--cursor', await firstPage(hooks(app)));
      expect({ ids: rest.webhooks.map((w: { id: string }) => w.id), next_cursor: rest.next_cursor }).to.deep.equal({
        ids: [other.id],
        next_cursor: null,
      });
      expect((await credit(app, 'c1', 3)).status).to.equal(200);
      await waitFor('second delivery', () => receiver.accepted.length === 2);
      const older = await cli('list-events', '--app', app.id, '--customer', 'c1', '--cursor', await firstPage(eventsOf(app)));
      expect({ ids: older.events.map((e: { id: string }) => e.id), next_cursor: older.next_cursor }).to.deep.equal({
        ids: [event.id],
        next_cursor: null,
      });
      const olderDeliveries = await cli(
        'list-deliveries',
        '--app',
        app.id,
        '--webhook',
        created.id,
        '--cursor',
        await firstPage(`${hooks(app)}/${created.id}/deliveries`),
      );
      expect(olderDeliveries.deliveries.map((d: { event_id: string }) => d.event_id)).to.deep.equal([event.id]);
      expect(olderDeliveries.next_cursor).to.equal(null);
    });
  });
});
