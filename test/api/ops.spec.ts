import { expect } from 'chai';
import { Redis } from 'ioredis';
import { readiness } from '../../api/ops/health.js';
import { freePort } from '../../scripts/embedded-servers.js';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import {
  call,
  createTestApplication,
  startTestApi,
  testDatabase,
  TEST_ADMIN_TOKEN,
  type TestApi,
  type TestApplication,
} from '../support/context.js';
import { startWorkerProcess } from '../support/worker-process.js';

/** The value of the sample `name` whose labels include `labels` (any order), or undefined. */
function metric(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('operations: health, metrics, Bull Board', function () {
  this.timeout(120_000);
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi({ METRICS_TOKEN: 'metrics-token-0123456789' }, { inProcessWorker: false });
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['c1']);
    await createWallet(api.services, app.id);
    await createCampaign(api.services, app.id, { code: 'OPS', limits: { total: 1 } });
  });
  after(async () => {
    await api.close();
  });

  it('when /healthz and /readyz are asked, then alive and ready with both dependencies up', async () => {
    expect((await call(api.url, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await call(api.url, 'GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ready', mongodb: 'up', redis: 'up' });
  });

  it('when Redis is unreachable, then readiness is 503 naming it', async () => {
    const dead = new Redis(`redis://127.0.0.1:${await freePort()}`, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const r = await readiness(await testDatabase(), dead);
    dead.disconnect();
    expect(r).to.deep.equal({ status: 503, body: { status: 'not_ready', mongodb: 'up', redis: 'down' } });
  });

  it('when operations run, then /metrics counts outcomes, routes by template and queue depth; the worker reports job durations', async () => {
    const port = await freePort();
    const worker = await startWorkerProcess({ WORKER_PORT: String(port), METRICS_TOKEN: 'metrics-token-0123456789' });
    try {
      const redeem = (order = makeOrder()) =>
        call(api.url, 'POST', '/coupons/apply?type=redeem', {
          auth: app.auth,
          body: { source_id: 'c1', coupon_details: [{ coupon_code: 'OPS' }], order },
        });
      expect((await redeem()).status).to.equal(200);
      expect((await redeem()).status).to.equal(400); // total limit 1
      await call(api.url, 'PUT', '/wallets/customer/c1/transactions/loyalty', { auth: app.auth, body: { type: 'credit', points: 3 } });
      expect((await call(api.url, 'GET', '/metrics')).status).to.equal(401);
      const text = (await call(api.url, 'GET', '/metrics', { headers: { authorization: 'Bearer metrics-token-0123456789' } })).text;
      expect(metric(text, 'coupons_redemptions_total', { type: 'redeem', outcome: 'completed', reason: '' })).to.equal(1);
      expect(metric(text, 'coupons_redemptions_total', { type: 'redeem', outcome: 'refused', reason: 'total_limit' })).to.equal(1);
      expect(metric(text, 'coupons_wallet_transactions_total', { type: 'credit', outcome: 'applied' })).to.equal(1);
      expect(
        metric(text, 'coupons_http_request_duration_seconds_count', { method: 'POST', route: '/coupons/apply', status: '200' }),
      ).to.equal(1);
      expect(
        metric(text, 'coupons_http_request_duration_seconds_count', {
          method: 'PUT',
          route: '/wallets/customer/:sourceId/transactions/:walletId',
          status: '200',
        }),
      ).to.equal(1);
      expect(metric(text, 'coupons_queue_jobs', { queue: 'ops-{00}', state: 'waiting' })).to.be.a('number');
      expect(text).to.include('process_cpu_user_seconds_total');
      const w = `http://127.0.0.1:${port}`;
      expect((await call(w, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
      expect((await call(w, 'GET', '/readyz')).body.status).to.equal('ready');
      const wm = (await call(w, 'GET', '/metrics', { headers: { authorization: 'Bearer metrics-token-0123456789' } })).text;
      expect(metric(wm, 'coupons_job_duration_seconds_count', { name: 'redeem', outcome: 'completed', component: 'worker' })).to.equal(2);
      expect(
        metric(wm, 'coupons_job_duration_seconds_count', { name: 'wallet-transaction', outcome: 'completed', component: 'worker' }),
      ).to.equal(1);
    } finally {
      expect(await worker.stop()).to.equal(0);
    }
  });

  it('when Bull Board is opened without the admin token, then 401 with a Basic challenge; with it, it lists every partition queue read-only', async () => {
    const anon = await call(api.url, 'GET', '/admin/queues');
    expect(anon.status).to.equal(401);
    expect(anon.headers.get('www-authenticate')).to.equal('Basic realm="coupons-admin"');
    const page = await call(api.url, 'GET', '/admin/queues', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<div id="root">');
    const basic = `Basic ${Buffer.from(`admin:${TEST_ADMIN_TOKEN}`).toString('base64')}`;
    const queues = await call(api.url, 'GET', '/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10', {
      headers: { authorization: basic },
    });
    expect(queues.status).to.equal(200);
    const names = queues.body.queues.map((q: { name: string }) => q.name).sort();
    expect(names).to.deep.equal(['ops-{00}', 'ops-{01}', 'ops-{02}', 'ops-{03}']);
    expect(queues.body.queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).to.equal(true);
  });

  it('when no admin token is configured, then Bull Board is off (404)', async () => {
    const off = await startTestApi({ ADMIN_TOKEN: undefined }, { inProcessWorker: false });
    try {
      expect((await call(off.url, 'GET', '/admin/queues')).status).to.equal(404);
    } finally {
      await off.close();
    }
  });
});
