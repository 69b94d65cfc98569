/**
 * The operations surface: probes, Prometheus metrics (API and worker), Bull Board's protection,
 * and the worker's failure logs. docs/operations.md describes what is checked here.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { Queue } from 'bullmq';
import { expect } from 'chai';
import express from 'express';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { readiness } from '../../shared/ops/health.js';
import { createMetrics } from '../../shared/ops/metrics.js';
import { routeTemplateOf } from '../../api/ops/route-template.js';
import { WorkerPool } from '../../worker/worker-pool.js';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import {
  call,
  createTestApplication,
  startTestApi,
  testConfig,
  testDatabase,
  TEST_ADMIN_TOKEN,
  TEST_QUEUE_PREFIX,
  type TestApi,
  type TestApplication,
} from '../support/context.js';
import { startWorkerProcess } from '../support/service-process.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const SCRAPE = { headers: { authorization: `Bearer ${METRICS_TOKEN}` } };

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
    api = await startTestApi({ METRICS_TOKEN }, { inProcessWorker: false });
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['c1']);
    await createWallet(api.services, app.id);
    await createCampaign(api.services, app.id, { code: 'OPS', limits: { total: 1 } });
  });
  after(async () => {
    await api.close();
  });

  it('when /healthz and /readyz are asked, then alive and ready with both dependencies up, without credentials', async () => {
    const live = await call(api.url, 'GET', '/healthz');
    expect([live.status, live.body]).to.deep.equal([200, { status: 'ok' }]);
    const ready = await call(api.url, 'GET', '/readyz');
    expect([ready.status, ready.body]).to.deep.equal([200, { status: 'ready', mongodb: 'up', redis: 'up' }]);
  });

  it('when Redis is unreachable, then readiness is 503 naming it', async () => {
    // A listener that cuts every connection at once: a Redis that cannot be reached (on a port of
    // its own, which nothing else can take while it listens).
    const cutter = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => cutter.listen(0, '127.0.0.1', () => r()));
    const dead = new Redis(`redis://127.0.0.1:${(cutter.address() as AddressInfo).port}`, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const r = await readiness(await testDatabase(), dead);
    dead.disconnect();
    cutter.close();
    expect(r).to.deep.equal({ status: 503, body: { status: 'not_ready', mongodb: 'up', redis: 'down' } });
  });

  it('when a dependency hangs or the database was never connected, then readiness answers down within its budget', async () => {
    const hanging = { ping: () => new Promise(() => {}) } as unknown as Redis;
    const neverConnected = { connection: { db: undefined } } as unknown as Parameters<typeof readiness>[0];
    const started = Date.now();
    const r = await readiness(neverConnected, hanging, 200);
    expect(Date.now() - started).to.be.below(1000);
    expect(r).to.deep.equal({ status: 503, body: { status: 'not_ready', mongodb: 'down', redis: 'down' } });
  });

  it('when operations run, then /metrics counts outcomes, routes by template and queue depth; the worker reports job durations', async () => {
    const worker = await startWorkerProcess({ METRICS_TOKEN });
    const port = worker.port;
    try {
      const apply = (type: string, order: ReturnType<typeof makeOrder>) =>
        call(api.url, 'POST', `/coupons/apply?type=${type}`, {
          auth: app.auth,
          body: { source_id: 'c1', coupon_details: [{ coupon_code: 'OPS' }], order },
        });
      const order = makeOrder();
      expect((await apply('redeem', order)).status).to.equal(200);
      expect((await apply('redeem', makeOrder())).status).to.equal(400); // total limit 1
      expect((await apply('revert', order)).status).to.equal(200);
      const tx = (body: object) => call(api.url, 'PUT', '/wallets/customer/c1/transactions/loyalty', { auth: app.auth, body });
      expect((await tx({ type: 'credit', points: 3 })).status).to.equal(200);
      expect((await tx({ type: 'debit', points: 300 })).status).to.equal(400);
      // An order reported to a wallet without earning rules: answered, nothing moved.
      const reported = await call(api.url, 'POST', '/wallets/customer/c1/orders/loyalty', {
        auth: app.auth,
        body: { order: { ...makeOrder(), status: 'completed' } },
      });
      expect(reported.status, reported.text).to.equal(200);
      expect((await call(api.url, 'POST', '/coupons/validate', { auth: app.auth, rawBody: '{' })).status).to.equal(400);
      expect((await call(api.url, 'GET', '/no/such/route')).status).to.equal(404);

      expect((await call(api.url, 'GET', '/metrics')).status).to.equal(401);
      const scrape = await call(api.url, 'GET', '/metrics', SCRAPE);
      expect(scrape.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const text = scrape.text;
      const count = (name: string, labels: Record<string, string>) => metric(text, name, labels);
      expect(count('coupons_redemptions_total', { type: 'redeem', outcome: 'completed', reason: '', component: 'api' })).to.equal(1);
      expect(count('coupons_redemptions_total', { type: 'redeem', outcome: 'refused', reason: 'total_limit' })).to.equal(1);
      expect(count('coupons_redemptions_total', { type: 'revert', outcome: 'completed', reason: '' })).to.equal(1);
      expect(count('coupons_wallet_transactions_total', { type: 'credit', outcome: 'applied' })).to.equal(1);
      expect(count('coupons_wallet_transactions_total', { type: 'debit', outcome: 'refused' })).to.equal(1);
      expect(count('coupons_order_reports_total', { status: 'completed', outcome: 'nothing' })).to.equal(1);
      const http = (method: string, route: string, status: string) =>
        count('coupons_http_request_duration_seconds_count', { method, route, status });
      expect(http('POST', '/coupons/apply', '200')).to.equal(2);
      expect(http('PUT', '/wallets/customer/:sourceId/transactions/:walletId', '200')).to.equal(1);
      // Refused by the body parser before routing, still counted under its route.
      expect(http('POST', '/coupons/validate', '400')).to.equal(1);
      expect(http('GET', 'unmatched', '404')).to.equal(1);
      expect(text).not.to.include('/wallets/customer/c1');
      expect(count('coupons_queue_jobs', { queue: 'ops-{00}', state: 'waiting' })).to.be.a('number');
      expect(count('coupons_queue_jobs', { queue: 'ops-{03}', state: 'failed' })).to.be.a('number');
      expect(count('coupons_queue_jobs', { queue: 'webhooks-{wh}', state: 'delayed' })).to.be.a('number');
      expect(text).to.include('process_cpu_user_seconds_total');

      const w = `http://127.0.0.1:${port}`;
      expect((await call(w, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
      expect((await call(w, 'GET', '/readyz?probe=1')).body).to.deep.equal({ status: 'ready', mongodb: 'up', redis: 'up' });
      expect((await call(w, 'GET', '/metrics')).status).to.equal(401);
      expect((await call(w, 'GET', '/nope')).status).to.equal(404);
      const wm = (await call(w, 'GET', '/metrics', SCRAPE)).text;
      const jobs = (name: string) => metric(wm, 'coupons_job_duration_seconds_count', { name, outcome: 'completed', component: 'worker' });
      // Refusals are completed jobs with a refusal result, not failures.
      expect([jobs('redeem'), jobs('revert'), jobs('wallet-transaction')]).to.deep.equal([2, 1, 2]);
    } finally {
      expect(await worker.stop()).to.equal(0);
    }
  });

  it('when a request is still arriving, then /metrics counts it in flight until its client goes', async () => {
    const inFlight = async () =>
      metric((await call(api.url, 'GET', '/metrics', SCRAPE)).text, 'coupons_http_requests_in_flight', { component: 'api' });
    expect(await inFlight()).to.equal(1); // the scrape itself
    // Headers sent, the body not yet: the API holds the request while it waits for the rest.
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(Number(new URL(api.url).port), '127.0.0.1', () => resolve(s));
      s.once('error', reject);
    });
    socket.write(
      'PUT /wallets/customer/c1/transactions/loyalty HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    );
    let held = await inFlight();
    while (held === 1) held = await inFlight(); // until the API has read the headers
    expect(held).to.equal(2);
    socket.destroy();
    let after = await inFlight();
    while (after === 2) after = await inFlight(); // until the API has seen the close
    expect(after).to.equal(1);
  });

  it('when Redis does not answer a scrape, then /metrics still answers within a second, without queue depth', async () => {
    const hanging = { name: 'ops-{00}', getJobCounts: () => new Promise(() => {}) } as unknown as Queue;
    const metrics = createMetrics('api', () => [hanging]);
    const started = Date.now();
    const text = await metrics.registry.metrics();
    expect(Date.now() - started).to.be.below(2000);
    expect(text).to.include('process_cpu_user_seconds_total');
    expect(metric(text, 'coupons_queue_jobs', { queue: 'ops-{00}' })).to.equal(undefined);
  });

  it('when paths are resolved to route templates, then params, case, trailing slashes and nested routers follow Express', () => {
    const app = express();
    const inner = express.Router();
    inner.get('/customers/:customer/ledger', () => {});
    app.use('/admin', inner);
    app.post('/coupons/validate', () => {});
    expect(routeTemplateOf(app.router, 'GET', '/admin/customers/c1/ledger')).to.equal('/admin/customers/:customer/ledger');
    expect(routeTemplateOf(app.router, 'POST', '/Coupons/Validate/')).to.equal('/coupons/validate');
    expect(routeTemplateOf(app.router, 'GET', '/coupons/validate')).to.equal(undefined);
    expect(routeTemplateOf(app.router, 'GET', '/admin/customers//ledger')).to.equal(undefined);
    expect(routeTemplateOf({}, 'GET', '/admin')).to.equal(undefined);
  });

  it('when Bull Board is opened without the admin token, then 401 with a Basic challenge; with it, it lists every partition queue, the webhook queue and the backtest queue read-only', async () => {
    const anon = await call(api.url, 'GET', '/admin/queues');
    expect(anon.status).to.equal(401);
    expect(anon.headers.get('www-authenticate')).to.equal('Basic realm="coupons-admin"');
    const wrong = `Basic ${Buffer.from('admin:not-the-token').toString('base64')}`;
    expect((await call(api.url, 'GET', '/admin/queues', { headers: { authorization: wrong } })).status).to.equal(401);
    const page = await call(api.url, 'GET', '/admin/queues', { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<div id="root">');
    const basic = `Basic ${Buffer.from(`anyone:${TEST_ADMIN_TOKEN}`).toString('base64')}`;
    const queues = await call(api.url, 'GET', '/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10', {
      headers: { authorization: basic },
    });
    expect(queues.status).to.equal(200);
    const names = queues.body.queues.map((q: { name: string }) => q.name).sort();
    expect(names).to.deep.equal(['backtests-{bt}', 'ops-{00}', 'ops-{01}', 'ops-{02}', 'ops-{03}', 'webhooks-{wh}']);
    expect(queues.body.queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).to.equal(true);
    // Read-only on the server too, not only in the UI: a retry through the board's API is refused.
    const retry = await call(api.url, 'PUT', '/admin/queues/api/queues/ops-%7B00%7D/retry/failed', { headers: { authorization: basic } });
    expect(retry.status).to.equal(405);
  });

  it('when no admin token is configured, then Bull Board is off (404 plain text)', async () => {
    const off = await startTestApi({ ADMIN_TOKEN: undefined }, { inProcessWorker: false });
    try {
      const res = await call(off.url, 'GET', '/admin/queues');
      expect([res.status, res.text]).to.deep.equal([404, 'Cannot GET /admin/queues']);
    } finally {
      await off.close();
    }
  });

  it('when no metrics token is configured, then the API has no /metrics on its public port (404)', async () => {
    const off = await startTestApi({}, { inProcessWorker: false });
    try {
      const res = await call(off.url, 'GET', '/metrics');
      expect([res.status, res.text]).to.deep.equal([404, 'Cannot GET /metrics']);
    } finally {
      await off.close();
    }
  });

  it('when a job fails in a worker, then the error log names the job id and job name', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const config = testConfig({ QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-fail`, QUEUE_PARTITIONS: '1' });
    const pool = new WorkerPool(config, pino({ name: 'worker' }, sink), async () => {
      throw new Error('boom');
    });
    const probe = await startTestApi({ QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-fail`, QUEUE_PARTITIONS: '1' }, { inProcessWorker: false });
    await pool.start();
    try {
      const answer = await probe.jobs.queueAndWait(
        { name: 'noop', customerId: 'k', payload: {} },
        { applicationId: 'a', operationKey: 'k', fresh: true },
      );
      // Not answered: pending, under an error id the client's 503 names — never the worker's error text.
      expect(answer).to.deep.include({ answered: false, standing: 'pending' });
      expect((answer as { errorId?: string }).errorId).to.match(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(answer)).to.not.include('boom');
      // The API hears of the failure through Redis; the worker's own log line may land just after.
      for (let i = 0; i < 50 && !lines.some((l) => l.msg === 'job failed'); i++) await new Promise((r) => setTimeout(r, 20));
      const log = lines.find((l) => l.msg === 'job failed');
      expect(log).to.include({ name: 'worker', jobName: 'noop', queue: 'ops-{00}' });
      expect(log!.jobId).to.be.a('string').and.not.equal('');
      expect((log!.err as { message: string }).message).to.equal('boom');
    } finally {
      await pool.close();
      await Promise.all(probe.jobs.partitionQueues.map((q) => q.obliterate({ force: true })));
      await probe.close();
    }
  });
});
