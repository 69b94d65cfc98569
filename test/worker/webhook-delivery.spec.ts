import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import {
  call,
  createTestApplication,
  startTestApi,
  TEST_ADMIN_TOKEN,
  TEST_QUEUE_PREFIX,
  type TestApi,
  type TestApplication,
} from '../support/context.js';
import { assertMatchesSchema } from '../support/openapi.js';
import { WebhookReceiver, waitFor, type Received } from '../support/webhook-receiver.js';
import { renderEvent } from '../../shared/domain/events.js';

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
/** Loopback allowed explicitly; retries fast so a test sees several. */
const FAST = {
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_MS: '1000',
  WEBHOOK_MAX_ATTEMPTS: '40',
  WEBHOOK_TIMEOUT_MS: '1500',
};

async function registerEndpoint(api: TestApi, app: TestApplication, url: string, body: Record<string, unknown> = {}) {
  const res = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, { auth: ADMIN, body: { url, ...body } });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; secret: string };
}

const credit = (api: TestApi, app: TestApplication, sourceId: string, points: number) =>
  call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points } });

/** An application with customers and the `loyalty` wallet. */
async function walletApplication(api: TestApi, sourceIds: string[]) {
  const app = await createTestApplication(api.services);
  await createCustomers(api.services, app.id, sourceIds);
  await createWallet(api.services, app.id);
  return app;
}

const deliveriesOf = async (api: TestApi, app: TestApplication, endpointId: string) => {
  const res = await call(api.url, 'GET', `/admin/applications/${app.id}/webhooks/${endpointId}/deliveries`, { auth: ADMIN });
  expect(res.status, res.text).to.equal(200);
  return res.body.deliveries as {
    event_id: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
  }[];
};

/** First arrival of each event id, in arrival order. */
const firstArrivals = (received: Received[]) => {
  const seen = new Set<string>();
  return received.filter((r) => r.status < 300 && !seen.has(r.json.id) && seen.add(r.json.id));
};

describe('webhook delivery', function () {
  this.timeout(120_000);
  let api: TestApi;
  let receiver: WebhookReceiver;
  before(async () => {
    api = await startTestApi(FAST);
  });
  beforeEach(async () => {
    receiver = await new WebhookReceiver().up();
  });
  afterEach(async () => {
    await receiver.close();
  });
  after(async () => {
    await api.close();
  });

  it('when a burst of redeems, refusals, reverts, cashbacks and wallet updates runs, then every event arrives once, signed, in each customer order', async () => {
    const app = await createTestApplication(api.services);
    const sourceIds = ['b0', 'b1', 'b2', 'b3'];
    await createCustomers(api.services, app.id, sourceIds);
    await createWallet(api.services, app.id);
    const limited = await createCampaign(api.services, app.id, { code: 'BURST10', limits: { total: 6 } });
    const cashback = await createCampaign(api.services, app.id, {
      code: 'BURSTCB',
      discount: { kind: 'cashback', type: 'flat', value: 2500, maxCents: null, walletId: 'loyalty' },
    });
    const endpoint = await registerEndpoint(api, app, receiver.url);

    const apply = (type: string, sourceId: string, code: string, couponId: string, order: object) =>
      call(api.url, 'POST', `/coupons/apply?type=${type}`, {
        auth: app.auth,
        body: { source_id: sourceId, coupon_details: [{ coupon_id: couponId, coupon_code: code }], order },
      });
    const credit = (sourceId: string, points: number) =>
      call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points } });

    const orders = sourceIds.map(() => [makeOrder(), makeOrder(), makeOrder()]);
    const cbOrders = sourceIds.map(() => makeOrder());
    const phase1 = await Promise.all([
      ...sourceIds.flatMap((s, i) => [credit(s, 10 + i), credit(s, 1.5)]),
      ...sourceIds.flatMap((s, i) => orders[i]!.map((o) => apply('redeem', s, 'BURST10', limited.id, o))),
      ...sourceIds.map((s, i) => apply('redeem', s, 'BURSTCB', cashback.id, cbOrders[i]!)),
    ]);
    const phase2 = await Promise.all(
      sourceIds.flatMap((s, i) => [
        apply('revert', s, 'BURSTCB', cashback.id, cbOrders[i]!),
        apply('revert', s, 'BURST10', limited.id, orders[i]![0]!),
      ]),
    );
    const all = [...phase1, ...phase2];
    for (const r of all) expect([200, 400], r.text).to.include(r.status);
    const limitedRedeems = phase1.slice(8, 20);
    expect(limitedRedeems.filter((r) => r.status === 200)).to.have.length(6);
    const expected =
      8 + // credits
      6 + // completed limited redeems
      6 + // refused limited redeems
      4 * 2 + // cashback redeems and their credits
      4 * 2 + // cashback reverts and their debits
      phase2.filter((r, i) => i % 2 === 1 && r.status === 200).length; // reverts of limited redeems that had completed

    await waitFor(`${expected} events`, () => new Set(receiver.accepted.map((r) => r.json.id)).size >= expected, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    const events = firstArrivals(receiver.received).map((r) => r.json);
    expect(events).to.have.length(expected);
    expect(receiver.allSigned(endpoint.secret), 'every signature verifies').to.equal(true);
    for (const e of events) assertMatchesSchema('WebhookEvent', e);
    // redemption_id as docs/events.md and openapi.yaml define it: campaign, order ref, cycle.
    for (const e of events.filter((x) => x.type === 'redemption.completed' || x.type === 'redemption.reverted')) {
      const orderRef = createHash('sha256').update(e.data.order_id).digest('base64url').slice(0, 16);
      expect(e.data.redemption_id).to.equal(`${e.data.campaign_id}:${orderRef}:${e.data.cycle}`);
    }
    // Every copy of an event carries the id and the bytes of the first.
    for (const r of receiver.received) expect(r.body).to.equal(receiver.received.find((x) => x.json.id === r.json.id)!.body);
    const byType = (t: string) => events.filter((e) => e.type === t);
    expect(byType('redemption.refused')).to.have.length(6);
    expect(byType('redemption.refused')[0].data).to.include({ reason: 'total_limit', message: 'coupon validation failed' });
    expect(byType('redemption.completed').filter((e) => e.data.coupon_code === 'BURST10')[0].data).to.include({
      discount: 100,
      cashback: 0,
      currency: 'INR',
      status: 'completed',
    });
    // Per customer: sequence increases in arrival order, and each wallet event starts where the last ended.
    for (const s of sourceIds) {
      const mine = events.filter((e) => e.data.source_id === s);
      const sequences = mine.map((e) => e.sequence);
      expect(sequences, s).to.deep.equal([...sequences].sort((a, b) => a - b));
      let balance = 0;
      for (const w of mine.filter((e) => e.type === 'wallet.transaction.completed')) {
        expect(w.data.previous_loyalty_points, `${s} ${w.data.txn_id}`).to.equal(balance);
        balance = w.data.loyalty_points;
      }
      const read = await call(api.url, 'GET', `/wallets/customer/${s}`, { auth: app.auth });
      expect(read.body[0].loyalty_points).to.equal(balance);
    }
  });

  it('when the receiver answers 500, then the event is retried until it is accepted and the delivery shows its attempts', async () => {
    const app = await walletApplication(api, ['r1']);
    const endpoint = await registerEndpoint(api, app, receiver.url, { event_types: ['wallet.transaction.completed'] });
    let failures = 2;
    receiver.respond = () => (failures-- > 0 ? 500 : 200);
    expect((await credit(api, app, 'r1', 5)).status).to.equal(200);
    await waitFor('acceptance', () => receiver.accepted.length === 1);
    expect(receiver.received.map((r) => r.status)).to.deep.equal([500, 500, 200]);
    expect(new Set(receiver.received.map((r) => r.json.id)).size).to.equal(1);
    expect(receiver.received.map((r) => r.headers['coupons-delivery-attempt'])).to.deep.equal(['1', '2', '3']);
    await waitFor('delivery marked', async () => (await deliveriesOf(api, app, endpoint.id))[0]?.status === 'succeeded');
    expect((await deliveriesOf(api, app, endpoint.id))[0]).to.include({
      status: 'succeeded',
      attempts: 3,
      last_status_code: 200,
      last_error: null,
    });
  });

  it('when the receiver does not answer in time, then the attempt counts as failed and is retried', async () => {
    const app = await walletApplication(api, ['t1']);
    const endpoint = await registerEndpoint(api, app, receiver.url);
    let slow = true;
    receiver.respond = async () => {
      if (slow) {
        slow = false;
        await new Promise((r) => setTimeout(r, 2500)); // the budget is 1500 ms
      }
      return 200;
    };
    expect((await credit(api, app, 't1', 5)).status).to.equal(200);
    await waitFor('delivery succeeded', async () => (await deliveriesOf(api, app, endpoint.id))[0]?.status === 'succeeded');
    const [d] = await deliveriesOf(api, app, endpoint.id);
    expect(d!.attempts).to.equal(2);
  });

  it('when the receiver answers 410, then the endpoint is disabled, its pending deliveries cancelled, and nothing more is sent', async () => {
    const app = await walletApplication(api, ['g1']);
    const endpoint = await registerEndpoint(api, app, receiver.url);
    // The first delivery is answered once all three events are queued behind it.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    receiver.respond = async () => {
      await released;
      return 410;
    };
    for (let i = 0; i < 3; i++) expect((await credit(api, app, 'g1', 1)).status).to.equal(200);
    await waitFor('three deliveries', async () => (await deliveriesOf(api, app, endpoint.id)).length === 3);
    release();
    await waitFor('410 handled', async () => (await deliveriesOf(api, app, endpoint.id)).every((d) => d.status !== 'pending'));
    const list = await call(api.url, 'GET', `/admin/applications/${app.id}/webhooks`, { auth: ADMIN });
    expect(list.body.webhooks[0]).to.include({ status: 'disabled', disabled_reason: 'gone' });
    const statuses = (await deliveriesOf(api, app, endpoint.id)).map((d) => d.status).sort();
    expect(statuses).to.deep.equal(['cancelled', 'cancelled', 'dead']);
    const onlyFirst = () => expect(new Set(receiver.received.map((r) => r.json.id)).size).to.equal(1);
    onlyFirst();
    expect((await credit(api, app, 'g1', 1)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 1000));
    onlyFirst();
  });

  it('when the first event of a customer is retried, then the later ones wait for it and arrive after it, in order', async () => {
    const app = await walletApplication(api, ['o1']);
    await registerEndpoint(api, app, receiver.url);
    let firstId: string | undefined;
    let failures = 3;
    receiver.respond = (r) => {
      firstId ??= r.json.id;
      return r.json.id === firstId && failures-- > 0 ? 503 : 200;
    };
    for (let i = 1; i <= 4; i++) expect((await credit(api, app, 'o1', i)).status).to.equal(200);
    await waitFor('four events', () => receiver.accepted.length === 4);
    expect(receiver.accepted.map((r) => r.json.data.points)).to.deep.equal([1, 2, 3, 4]);
    const firstAccepted = receiver.accepted[0]!.at;
    expect(receiver.received.filter((r) => r.json.id !== firstId).every((r) => r.at >= firstAccepted)).to.equal(true);
  });

  it('when a receiver holds its answer, then redeem and wallet answers do not wait for it', async () => {
    const app = await walletApplication(api, ['s1']);
    const campaign = await createCampaign(api.services, app.id, { code: 'SLOW10' });
    await registerEndpoint(api, app, receiver.url);
    // The receiver answers nothing until the six operations are answered: were an operation's answer
    // waiting for its delivery, it would never come (the test would time out) — whatever this
    // machine's speed, no clock involved.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    receiver.respond = async () => {
      await held;
      return 200;
    };
    try {
      for (let i = 0; i < 6; i++) {
        const res =
          i % 2 === 0
            ? await credit(api, app, 's1', 1)
            : await call(api.url, 'POST', '/coupons/apply?type=redeem', {
                auth: app.auth,
                body: { source_id: 's1', coupon_details: [{ coupon_id: campaign.id, coupon_code: 'SLOW10' }], order: makeOrder() },
              });
        expect(res.status, res.text).to.equal(200);
      }
      // A delivery arrived meanwhile and is still held unanswered.
      await waitFor('a delivery to arrive', () => receiver.arrivals >= 1);
      expect(receiver.received).to.have.length(0);
    } finally {
      release();
    }
    // Once answered, the held deliveries are recorded as received.
    await waitFor('the held delivery to be received', () => receiver.received.length >= 1);
  });
});

describe('webhook delivery with a strict destination policy, few attempts and a fast sweep', function () {
  this.timeout(60_000);
  let api: TestApi;
  // Only 127.0.0.2 is opened: a receiver there is reachable, one on 127.0.0.1 (or `localhost`) is not.
  let receiver: WebhookReceiver;
  before(async () => {
    api = await startTestApi({
      QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-strict`,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.2/32',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '200',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_SWEEP_MS: '200',
      WEBHOOK_OVERDUE_MS: '1000',
    });
  });
  beforeEach(async () => {
    receiver = await new WebhookReceiver('127.0.0.2').up();
  });
  afterEach(async () => {
    await receiver.close();
  });
  after(async () => {
    await api.webhooks.queue.obliterate({ force: true });
    await api.close();
  });

  it('when an endpoint was stored pointing at a loopback name, then each delivery is refused at connection time and dead-lettered', async () => {
    const app = await walletApplication(api, ['x1']);
    const local = await new WebhookReceiver('127.0.0.1').up();
    try {
      const url = local.url.replace('127.0.0.1', 'localhost');
      const refused = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, { auth: ADMIN, body: { url } });
      expect(refused.status).to.equal(400);
      expect(refused.body.details).to.match(/^"url" refused: .*localhost resolves to .*loopback/);
      // As if it had been registered while loopback was allowed, or the name resolved elsewhere then.
      const endpoint = await api.services.repos.webhookEndpoints.create(app.id, {
        url,
        eventTypes: ['*'],
        description: '',
        secret: 'whsec_x',
      });
      expect((await credit(api, app, 'x1', 1)).status).to.equal(200);
      await waitFor('dead letter', async () => (await deliveriesOf(api, app, endpoint.id))[0]?.status === 'dead');
      const [d] = await deliveriesOf(api, app, endpoint.id);
      expect(d).to.include({ attempts: 3, last_status_code: null });
      expect(d!.last_error).to.match(/^destination refused: localhost resolves to .*loopback address$/);
      expect(local.received).to.have.length(0);
    } finally {
      await local.close();
    }
  });

  it('when every attempt fails, then the delivery is dead-lettered after the last one and the next event of the stream goes on', async () => {
    const app = await walletApplication(api, ['d1']);
    const endpoint = await registerEndpoint(api, app, receiver.url);
    receiver.respond = (r) => (r.json.data.points === 1 ? 500 : 200);
    expect((await credit(api, app, 'd1', 1)).status).to.equal(200);
    expect((await credit(api, app, 'd1', 2)).status).to.equal(200);
    await waitFor('second accepted', () => receiver.accepted.length === 1);
    expect(receiver.received.map((r) => [r.json.data.points, r.status])).to.deep.equal([
      [1, 500],
      [1, 500],
      [1, 500],
      [2, 200],
    ]);
    // The outcome is written once the receiver's answer is back in the worker, a moment after it was sent.
    await waitFor('second marked', async () => (await deliveriesOf(api, app, endpoint.id)).some((d) => d.status === 'succeeded'));
    const deliveries = await deliveriesOf(api, app, endpoint.id);
    expect(deliveries.map((d) => d.status).sort()).to.deep.equal(['dead', 'succeeded']);
    expect(deliveries.find((d) => d.status === 'dead')).to.include({
      attempts: 3,
      last_status_code: 500,
      last_error: 'receiver answered 500',
    });
    const failed = await api.webhooks.queue.getFailed();
    expect(failed.some((j) => j.failedReason === 'gave up after 3 attempts: receiver answered 500')).to.equal(true);
  });

  it('when a delivery lost its job, or a delivery was written without its event, then the sweep sends them in order', async () => {
    const app = await walletApplication(api, ['w1']);
    const [customer] = await api.services.repos.customers.findBySourceIds(app.id, ['w1']);
    const endpoint = await registerEndpoint(api, app, receiver.url);
    const old = new Date(Date.now() - 60_000);
    const event = (n: number) => ({
      id: `evt_sweep${n}${app.id}`,
      applicationId: app.id,
      customerId: customer!.id,
      type: 'wallet.transaction.completed' as const,
      sequence: n,
      requestId: `req-${n}`,
      createdAt: old,
      data: {
        source_id: 'w1',
        customer_id: customer!.id,
        wallet_id: 'loyalty',
        txn_id: `t${n}`,
        type: 'credit' as const,
        origin: 'api' as const,
        points: n,
        previous_loyalty_points: 0,
        loyalty_points: n,
        description: '',
        order_id: null,
      },
    });
    const delivery = (n: number) => ({
      applicationId: app.id,
      endpointId: endpoint.id,
      customerId: customer!.id,
      eventId: event(n).id,
      eventType: event(n).type,
      sequence: n,
      body: renderEvent(event(n)),
      job: `deliver-never-queued-${n}`,
    });
    // 1 and 2: recorded with their deliveries by a job that failed before queueing the deliveries' job.
    await api.services.repos.webhookDeliveries.createMissing([delivery(1), delivery(2)], old);
    await api.services.repos.events.record([event(1), event(2)]);
    // 3: a job that failed between writing the delivery and writing the event.
    await api.services.repos.webhookDeliveries.createMissing([delivery(3)], old);
    expect(await api.services.repos.events.get(event(3).id)).to.equal(null);

    await waitFor('all three delivered', () => receiver.accepted.length === 3, 20_000);
    expect(receiver.accepted.map((r) => r.json.id)).to.deep.equal([event(1).id, event(2).id, event(3).id]);
    expect(receiver.accepted.map((r) => r.body)).to.deep.equal([1, 2, 3].map((n) => renderEvent(event(n))));
    expect(receiver.allSigned(endpoint.secret)).to.equal(true);
    // The sweep put event 3 back in the outbox, as it was sent.
    const restored = await api.services.repos.events.get(event(3).id);
    expect(restored && renderEvent(restored)).to.equal(renderEvent(event(3)));
  });
});
