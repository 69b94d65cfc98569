import { expect } from 'chai';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { assertMatchesSchema } from '../support/openapi.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/**
 * Events of real worker processes to a real receiver on 127.0.0.1 (loopback allowed explicitly):
 * a worker SIGKILLed mid-burst, and a receiver down for 30 s. Nothing may be lost; a duplicate
 * may only repeat an event id with the same body.
 */
const WEBHOOKS = {
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_MS: '2000',
  WEBHOOK_MAX_ATTEMPTS: '60',
  WEBHOOK_TIMEOUT_MS: '2000',
};
const FAST_STALL = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

interface Burst {
  app: TestApplication;
  secret: string;
  sourceIds: string[];
  /** Distinct events the accepted answers imply. */
  expected: () => number;
  done: Promise<void>;
}

/** Credits, cashback redeems and limited redeems for 8 customers, all sent at once. */
async function startBurst(api: TestApi, receiver: WebhookReceiver): Promise<Burst> {
  const app = await createTestApplication(api.services);
  const sourceIds = Array.from({ length: 8 }, (_, i) => `k${i}`);
  await createCustomers(api.services, app.id, sourceIds);
  await createWallet(api.services, app.id);
  const cashback = await createCampaign(api.services, app.id, {
    code: 'KILLCB',
    discount: { kind: 'cashback', type: 'flat', value: 300, maxCents: null, walletId: 'loyalty' },
  });
  const limited = await createCampaign(api.services, app.id, { code: 'KILL20', limits: { total: 20 } });
  const registered = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, { auth: ADMIN, body: { url: receiver.url } });
  expect(registered.status, registered.text).to.equal(201);
  const redeem = (i: number, code: string, couponId: string) =>
    call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: {
        source_id: sourceIds[i % sourceIds.length],
        coupon_details: [{ coupon_id: couponId, coupon_code: code }],
        order: makeOrder(),
      },
    });
  const credits = Array.from({ length: 80 }, (_, i) =>
    call(api.url, 'PUT', `/wallets/customer/${sourceIds[i % sourceIds.length]}/transactions/loyalty`, {
      auth: app.auth,
      body: { type: 'credit', points: (i % 4) + 1 },
    }),
  );
  const cashbacks = Array.from({ length: 24 }, (_, i) => redeem(i, 'KILLCB', cashback.id));
  const limits = Array.from({ length: 32 }, (_, i) => redeem(i, 'KILL20', limited.id));
  let expected = -1;
  const done = (async () => {
    const [c, cb, l] = await Promise.all([Promise.all(credits), Promise.all(cashbacks), Promise.all(limits)]);
    for (const r of [...c, ...cb, ...l]) expect([200, 400], r.text).to.include(r.status);
    expect(c.every((r) => r.status === 200) && cb.every((r) => r.status === 200)).to.equal(true);
    expect(l.filter((r) => r.status === 200)).to.have.length(20);
    // A credit: one event; a cashback redeem: the redemption and its credit; a limited redeem: completed or refused.
    expected = c.length + 2 * cb.length + l.length;
  })();
  return { app, secret: registered.body.secret, sourceIds, expected: () => expected, done };
}

/** Every accepted event of the burst arrived, signed; one id per change; copies identical. */
async function expectAllDelivered(receiver: WebhookReceiver, burst: Burst, timeoutMs: number) {
  const distinct = () => new Set(receiver.accepted.map((r) => r.json.id)).size;
  await waitFor(`${burst.expected()} events`, () => distinct() >= burst.expected(), timeoutMs, 250);
  await new Promise((r) => setTimeout(r, 1500));
  expect(distinct()).to.equal(burst.expected());
  expect(receiver.allSigned(burst.secret), 'every signature verifies').to.equal(true);
  const first = new Map<string, any>();
  for (const r of receiver.received) {
    const seen = first.get(r.json.id);
    if (seen) expect(r.body, 'a duplicate repeats its event').to.equal(seen.body);
    else first.set(r.json.id, r);
  }
  const events = [...first.values()].map((r) => r.json);
  for (const e of events) assertMatchesSchema('WebhookEvent', e);
  // One event per change: per ledger entry, per redemption cycle.
  const keys = events.map((e) => `${e.type}|${e.data.txn_id ?? e.data.redemption_id ?? e.id}`);
  expect(new Set(keys).size).to.equal(keys.length);
  expect(events.filter((e) => e.type === 'redemption.refused')).to.have.length(12);
  // Per customer, accepted in sequence order; balances chain from 0 to what the API reads.
  for (const s of burst.sourceIds) {
    const mine = receiver.accepted.filter((r) => r.json.data.source_id === s).map((r) => r.json);
    const firstOfEach = mine.filter((e, i) => mine.findIndex((x) => x.id === e.id) === i);
    const sequences = firstOfEach.map((e) => e.sequence);
    expect(sequences, s).to.deep.equal([...sequences].sort((a, b) => a - b));
    let balance = 0;
    for (const w of firstOfEach.filter((e) => e.type === 'wallet.transaction.completed')) {
      expect(w.data.previous_loyalty_points, s).to.equal(balance);
      balance = w.data.loyalty_points;
    }
  }
}

describe('webhooks from real worker processes', function () {
  this.timeout(240_000);
  let api: TestApi;
  let receiver: WebhookReceiver;
  let workers: WorkerProcess[] = [];
  before(async () => {
    api = await startTestApi({ ...WEBHOOKS, JOB_WAIT_TIMEOUT_MS: '120000' }, { inProcessWorker: false });
  });
  beforeEach(async () => {
    receiver = await new WebhookReceiver().up();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop().catch(() => null)));
    workers = [];
    await receiver.close();
  });
  after(async () => {
    await api.close();
  });

  it('when SIGKILL hits a worker mid-burst, then every event is still delivered, duplicates only under the same id', async () => {
    // Its phases, printed: in a busy suite this test can take ten times its time alone.
    const t0 = Date.now();
    const phases: string[] = [];
    const at = (what: string) => phases.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const victim = await startWorkerProcess({ ...WEBHOOKS, ...FAST_STALL });
    const survivor = await startWorkerProcess({ ...WEBHOOKS, ...FAST_STALL });
    workers = [victim, survivor];
    at('workers up');
    const burst = await startBurst(api, receiver);
    at('burst sent');
    // Kill once deliveries are flowing too: the victim dies with operations and deliveries in hand.
    let answered = false;
    void burst.done.then(() => (answered = true));
    await waitFor('first deliveries', () => receiver.arrivals >= 5, 60_000, 20);
    at('first deliveries');
    await victim.kill();
    expect(answered, 'operations were still in flight when the worker died').to.equal(false);
    await burst.done;
    at('burst answered');
    await expectAllDelivered(receiver, burst, 120_000);
    at('all delivered');
    console.log(`      phases: ${phases.join(', ')}`);
  });

  it('when the receiver is down for 30 s, then every event is delivered after it returns', async () => {
    workers = [await startWorkerProcess(WEBHOOKS)];
    await receiver.down();
    const burst = await startBurst(api, receiver);
    await burst.done;
    await new Promise((r) => setTimeout(r, 30_000));
    expect(receiver.arrivals).to.equal(0);
    await receiver.up();
    await expectAllDelivered(receiver, burst, 60_000);
  });

  it('when operations and deliveries run in separate workers (WORKER_OPERATIONS=false), then the delivery replica takes no operation and delivers every event', async () => {
    const deliverer = await startWorkerProcess({ ...WEBHOOKS, WORKER_OPERATIONS: 'false' });
    workers = [deliverer];
    const burst = await startBurst(api, receiver);
    let answered = false;
    void burst.done.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 3000));
    expect(answered, 'no operation is applied by a delivery replica').to.equal(false);
    workers.push(await startWorkerProcess({ ...WEBHOOKS, WEBHOOK_CONCURRENCY: '0' }));
    await burst.done;
    await expectAllDelivered(receiver, burst, 120_000);
  });
});
