import { expect } from 'chai';
import type { WorkerFailpoint } from '../../shared/config.js';
import { createCustomers } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { exitOf, startWorkerProcess, tailOf, type WorkerProcess } from '../support/service-process.js';

/**
 * A worker SIGKILLed in the middle of a gift card's spend or refund at checkout (docs/gift-cards.md):
 * the worker kills itself at a named point (WORKER_FAILPOINT) — once the ledger entry is written but
 * before the card moved, or once it moved — a second worker re-runs the stalled job, and the card
 * is debited (or credited back) exactly once: its balance equals its ledger, one entry per step —
 * and its event (`gift_card.debited`, `gift_card.credited`) is recorded once.
 */
describe('worker: a gift card redeem or revert killed mid-way', function () {
  this.timeout(240_000);
  /** A dead worker's job is re-queued within a few seconds, as in crash-recovery.spec.ts. */
  const fastStall = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
  let api: TestApi;
  let app: TestApplication;
  let card: { id: string; code: string };
  const workers: WorkerProcess[] = [];
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' }, { inProcessWorker: false });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => (w.alive() ? w.stop() : null)));
  });
  after(async () => {
    await api.close();
  });
  const admin = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, body });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['cust-1']);
    expect((await admin('PATCH', `/applications/${app.id}`, { gift_cards_at_checkout: true })).status).to.equal(200);
    const issued = await admin('POST', `/applications/${app.id}/gift-cards`, { amount: 100 });
    expect(issued.status, issued.text).to.equal(201);
    card = issued.body;
    // An endpoint, so that events are recorded (nothing listens there).
    expect((await admin('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' })).status).to.equal(201);
  });

  const start = async (env: NodeJS.ProcessEnv = {}) => {
    const w = await startWorkerProcess({ ...fastStall, ...env });
    workers.push(w);
    return w;
  };
  const order = (order_id: string, status: string) => ({
    order_id,
    status,
    selling_price_subtotal: 30,
    original_price_subtotal: 30,
    items: [{ product_id: 'p1', selling_price: 30, original_price: 30, quantity: 1, shipping: 0 }],
  });
  const apply = (type: 'redeem' | 'revert', orderId: string, key: string) =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      headers: { 'idempotency-key': key },
      body: {
        source_id: 'cust-1',
        coupon_details: [{ coupon_id: card.code, coupon_code: card.code }],
        order: order(orderId, type === 'redeem' ? 'completed' : 'reverted'),
      },
    });
  /** The answer, asked again with the same key while it is a 503 (not known in time). */
  async function answerOf(first: ReturnType<typeof apply>, again: () => ReturnType<typeof apply>) {
    let res = await first;
    for (let retries = 0; res.status === 503 && retries < 5; retries++) res = await again();
    return res;
  }
  /** The apply sent to a worker that kills itself at `at` (checked), then a normal worker; the answer. */
  async function killedAt(at: WorkerFailpoint, type: 'redeem' | 'revert', orderId: string) {
    const victim = await start({ WORKER_FAILPOINT: at });
    victim.deliberatelyEnded = true; // it kills itself: the fault under test
    const key = `${type}-${orderId}`;
    const first = apply(type, orderId, key);
    const ended = await Promise.race([exitOf(victim.child).then(() => 'killed'), first.then(() => 'answered')]);
    expect(ended, `the job finished without reaching ${at}; the worker's output:\n${tailOf(victim.log)}`).to.equal('killed');
    expect(victim.exit?.signal).to.equal('SIGKILL');
    await start();
    return answerOf(first, () => apply(type, orderId, key));
  }
  /** The card as stored, and its ledger: the balance equals the sum of the entries, and the version their count. */
  async function ledger() {
    const stored = await api.services.repos.giftCards.findById(app.id, card.id);
    const entries = await api.services.repos.giftCards.entries(app.id, card.id);
    expect(stored!.balance).to.equal(entries.reduce((sum, e) => sum + e.amount, 0));
    expect(stored!.version).to.equal(entries.length);
    return { balance: stored!.balance, kinds: entries.map((e) => `${e.kind} ${e.amount}`) };
  }
  /** The application's events in sequence order: type and what they name. */
  async function events() {
    const res = await admin('GET', `/applications/${app.id}/events?limit=100`);
    expect(res.status, res.text).to.equal(200);
    return (res.body.events as { type: string; sequence: number; data: { txn_id?: string; coupon_code: string } }[])
      .sort((a, b) => a.sequence - b.sequence)
      .map((e) => [e.type, e.data.txn_id ?? e.data.coupon_code]);
  }

  for (const at of ['gift-card-after-entry', 'gift-card-after-move'] as const)
    it(`when the worker dies in a redeem at ${at}, then the re-run answers it and the card is debited once`, async () => {
      const res = await killedAt(at, 'redeem', `o-${at}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.gift_card).to.deep.equal({ amount: 30, balance: 70 });
      expect(await ledger()).to.deep.equal({ balance: 7000, kinds: ['issue 10000', 'spend -3000'] });
      expect(await events()).to.deep.equal([['gift_card.debited', `spend:o-${at}:1`]]);
    });

  for (const at of ['gift-card-after-entry', 'gift-card-after-move'] as const)
    it(`when the worker dies in a revert at ${at}, then the re-run credits the card back once`, async () => {
      const worker = await start();
      expect((await apply('redeem', 'o-r', 'redeem-o-r')).status).to.equal(200);
      await worker.stop();
      const res = await killedAt(at, 'revert', 'o-r');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.gift_card).to.deep.equal({ amount: 30, balance: 100 });
      expect(await ledger()).to.deep.equal({ balance: 10000, kinds: ['issue 10000', 'spend -3000', 'refund 3000'] });
      expect(await events()).to.deep.equal([
        ['gift_card.debited', 'spend:o-r:1'],
        ['gift_card.credited', 'refund:o-r:1'],
      ]);
    });

  it('when the worker dies in a redeem of coupons and a card (stacking) once the card entry is written, then the re-run redeems the coupon once and debits the card once', async () => {
    await admin('PATCH', `/applications/${app.id}`, { stacking: { max_coupons: 2 } });
    const made = await admin('POST', `/applications/${app.id}/campaigns`, {
      name: 'Five off',
      code: 'FIVE',
      discount: { kind: 'discount', type: 'flat', value: 5 },
    });
    expect(made.status, made.text).to.equal(201);
    const victim = await start({ WORKER_FAILPOINT: 'gift-card-after-entry' });
    victim.deliberatelyEnded = true;
    const send = () =>
      call(api.url, 'POST', '/coupons/apply?type=redeem', {
        auth: app.auth,
        headers: { 'idempotency-key': 'stack-o-s' },
        body: {
          source_id: 'cust-1',
          coupon_details: [{ coupon_code: 'FIVE' }, { coupon_code: card.code }],
          order: order('o-s', 'completed'),
        },
      });
    const first = send();
    const ended = await Promise.race([exitOf(victim.child).then(() => 'killed'), first.then(() => 'answered')]);
    expect(ended, `the job finished without reaching the failpoint; the worker's output:\n${tailOf(victim.log)}`).to.equal('killed');
    await start();
    const res = await answerOf(first, send);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.coupons.map((c: { coupon_code: string; discount: number }) => [c.coupon_code, c.discount])).to.deep.equal([
      ['FIVE', 5],
    ]);
    expect(res.body.gift_card).to.deep.equal({ amount: 25, balance: 75 });
    expect(await ledger()).to.deep.equal({ balance: 7500, kinds: ['issue 10000', 'spend -2500'] });
    const redemptions = await admin('GET', `/applications/${app.id}/redemptions?order_id=o-s`);
    expect(redemptions.body.redemptions.map((r: { state: string }) => r.state)).to.deep.equal(['completed']);
    expect(await events()).to.deep.equal([
      ['redemption.completed', 'FIVE'],
      ['gift_card.debited', 'spend:o-s:1'],
    ]);
  });

  it('when a spend was written but its worker died before moving the card, then the next writer (an admin top-up) rolls it forward first', async () => {
    const victim = await start({ WORKER_FAILPOINT: 'gift-card-after-entry' });
    victim.deliberatelyEnded = true;
    const first = apply('redeem', 'o-roll', 'redeem-o-roll');
    await exitOf(victim.child);
    // The card has not moved yet: its ledger has the spend at the current slot.
    const stuck = await api.services.repos.giftCards.findById(app.id, card.id);
    expect(stuck!.balance).to.equal(10000);
    const topUp = await admin('POST', `/applications/${app.id}/gift-cards/${card.id}/top-up`, { amount: 1 });
    expect(topUp.body.balance).to.equal(71);
    await start();
    const res = await answerOf(first, () => apply('redeem', 'o-roll', 'redeem-o-roll'));
    expect(res.body.gift_card).to.deep.equal({ amount: 30, balance: 70 });
    expect(await ledger()).to.deep.equal({ balance: 7100, kinds: ['issue 10000', 'spend -3000', 'top_up 100'] });
  });
});
