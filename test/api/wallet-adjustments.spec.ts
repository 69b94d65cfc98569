/**
 * An operator's manual adjustment of a customer's points (`POST …/customers/:customer/wallets/:wallet/adjustments`,
 * docs/admin-api.md#adjusting-points): applied by the worker like every wallet operation — once per
 * key, a debit above the balance refused — in the ledger with origin `admin` and the reason, and in
 * the audit log exactly when it applied.
 */
import { expect } from 'chai';
import { PACE_MARGIN } from '../support/pace.js';
import { ADMIN_HEADERS, adminHelpers } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

describe('admin API: manual wallet adjustments', () => {
  let api: TestApi;
  before(async () => {
    // A loopback endpoint may be registered: the events of an adjustment are recorded for it.
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  });
  after(async () => {
    await api.close();
  });
  const { admin, newApp, must } = adminHelpers(() => api);
  const adjustments = (app: string, customer: string, wallet = 'points') =>
    `/applications/${app}/customers/${customer}/wallets/${wallet}/adjustments`;
  const entriesOf = async (app: string) => (await must('GET', `/audit?application=${app}&action=customer.adjust_points`)).entries as any[];

  async function shop() {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'adj-1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'points' });
    return app;
  }

  it('when an operator credits and debits with a reason, then the ledger and the events show each with origin admin and the reason, a retry with the key replays the answer, the key with another request is 409, and each adjustment is audited once', async () => {
    const app = await shop();
    await must('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    const credit = await call(api.url, 'POST', `/admin${adjustments(app.id, 'adj-1')}`, {
      headers: { ...ADMIN_HEADERS, 'idempotency-key': 'goodwill-1' },
      body: { type: 'credit', points: 25.5, reason: 'goodwill: late delivery' },
    });
    expect(credit.status, credit.text).to.equal(200);
    expect(credit.headers.get('idempotency-key')).to.equal('goodwill-1');
    expect(credit.body).to.include({
      wallet_id: 'points',
      points: 25.5,
      loyalty_points: 25.5,
      previous_loyalty_points: 0,
      description: 'goodwill: late delivery',
    });
    const again = await call(api.url, 'POST', `/admin${adjustments(app.id, 'adj-1')}`, {
      headers: { ...ADMIN_HEADERS, 'idempotency-key': 'goodwill-1' },
      body: { type: 'credit', points: 25.5, reason: 'goodwill: late delivery' },
    });
    expect(again.status, again.text).to.equal(200);
    expect(again.text).to.equal(credit.text);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    const reused = await call(api.url, 'POST', `/admin${adjustments(app.id, 'adj-1')}`, {
      headers: { ...ADMIN_HEADERS, 'idempotency-key': 'goodwill-1' },
      body: { type: 'credit', points: 99, reason: 'goodwill: late delivery' },
    });
    expect(reused.status, reused.text).to.equal(409);
    expect(reused.body).to.include({ message: 'Idempotency-Key reused', key: 'Idempotency-Key' });
    const debit = await admin('POST', adjustments(app.id, 'adj-1'), { type: 'debit', points: 5, reason: 'correction' });
    expect(debit.status, debit.text).to.equal(200);
    expect(debit.body.loyalty_points).to.equal(20.5);

    const ledger = await must('GET', `/applications/${app.id}/customers/adj-1/wallets/points/ledger`);
    expect(ledger.balance).to.equal(20.5);
    expect(ledger.entries.map((e: any) => [e.type, e.points, e.origin, e.description])).to.deep.equal([
      ['credit', 25.5, 'admin', 'goodwill: late delivery'],
      ['debit', 5, 'admin', 'correction'],
    ]);
    const events = (await must('GET', `/applications/${app.id}/events?type=wallet.transaction.completed`)).events as any[];
    expect(events.map((e) => [e.data.origin, e.data.description]).sort()).to.deep.equal([
      ['admin', 'correction'],
      ['admin', 'goodwill: late delivery'],
    ]);
    const audited = await entriesOf(app.id);
    expect(audited).to.have.length(2); // the replay changed nothing: not audited
    expect(new Set(audited.map((e) => e.changes.request.after.txn_id)).size).to.equal(2);
    expect(audited.every((e) => e.target.type === 'customer' && e.actor.kind === 'admin_token')).to.equal(true);
  });

  it('when an adjustment is refused, then nothing moves and nothing is audited: a debit above the balance, bad input named by field, an archived customer, an unknown wallet', async () => {
    const app = await shop();
    const over = await admin('POST', adjustments(app.id, 'adj-1'), { type: 'debit', points: 1, reason: 'too much' });
    expect(over.status, over.text).to.equal(400);
    const noReason = await admin('POST', adjustments(app.id, 'adj-1'), { type: 'credit', points: 1 });
    expect(noReason.status).to.equal(400);
    expect(Object.keys(noReason.body.fields)).to.deep.equal(['reason']);
    const decimals = await admin('POST', adjustments(app.id, 'adj-1'), { type: 'credit', points: 1.234, reason: 'x' });
    expect(decimals.status).to.equal(400);
    expect(Object.keys(decimals.body.fields)).to.deep.equal(['points']);
    expect((await admin('POST', adjustments(app.id, 'adj-1', 'nope'), { type: 'credit', points: 1, reason: 'x' })).status).to.equal(404);
    await must('POST', `/applications/${app.id}/customers/adj-1/archive`);
    const archived = await admin('POST', adjustments(app.id, 'adj-1'), { type: 'credit', points: 1, reason: 'x' });
    expect(archived.status, archived.text).to.equal(409);
    expect(Object.keys(archived.body.fields)).to.deep.equal(['customer']);
    const ledger = await must('GET', `/applications/${app.id}/customers/adj-1/wallets/points/ledger`);
    expect(ledger.balance).to.equal(0);
    expect(ledger.entries.filter((e: any) => e.state === 'applied')).to.deep.equal([]);
    expect(await entriesOf(app.id)).to.deep.equal([]);
  });
});

describe('admin API: an adjustment whose wait ends before a worker runs it', function () {
  this.timeout(120_000);
  let api: TestApi;
  let worker: WorkerProcess | undefined;
  before(async () => {
    // No worker at first, and a short wait: the job is withdrawn unstarted ("not applied").
    api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '1000' }, { inProcessWorker: false });
  });
  after(async () => {
    await worker?.stop();
    await api.close();
  });
  const { admin, newApp, must } = adminHelpers(() => api);

  it('when it is answered "not applied", then no audit entry shows it; the retry with its key, once a worker runs, applies it once and is audited', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'late-1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'points' });
    const path = `/admin/applications/${app.id}/customers/late-1/wallets/points/adjustments`;
    const body = { type: 'credit', points: 3, reason: 'apology' };
    const first = await call(api.url, 'POST', path, { headers: ADMIN_HEADERS, body });
    expect(first.status, first.text).to.equal(503);
    expect(first.body.applied).to.equal(false);
    const key = first.headers.get('idempotency-key')!;
    const audit = async () => (await must('GET', `/audit?application=${app.id}&action=customer.adjust_points`)).entries as any[];
    expect(await audit()).to.deep.equal([]);

    const starting = Date.now();
    worker = await startWorkerProcess();
    // Retried with its key as the 503 advises, until the answer is final: each retry waits the API's
    // 1 s; the worker just started may take a few on a busy machine. Bound: the worker's own start-up
    // and one wait, with the margin.
    const deadline = Date.now() + PACE_MARGIN * (Date.now() - starting + 1000);
    let retried = await call(api.url, 'POST', path, { headers: { ...ADMIN_HEADERS, 'idempotency-key': key }, body });
    while (retried.status === 503 && retried.body.applied === undefined && Date.now() < deadline)
      retried = await call(api.url, 'POST', path, { headers: { ...ADMIN_HEADERS, 'idempotency-key': key }, body });
    expect(retried.status, retried.text).to.equal(200);
    expect(retried.body.loyalty_points).to.equal(3);
    const entries = await audit();
    expect(entries).to.have.length(1);
    expect(entries[0].changes.request.after).to.include({ type: 'credit', points: 3, reason: 'apology', wallet_id: 'points' });
    const ledger = await must('GET', `/applications/${app.id}/customers/late-1/wallets/points/ledger`);
    expect(ledger.entries.map((e: any) => [e.origin, e.points, e.state])).to.deep.equal([['admin', 3, 'applied']]);
    expect((await admin('GET', `/applications/${app.id}/customers/late-1`)).body.wallets[0].loyalty_points).to.equal(3);
  });
});
