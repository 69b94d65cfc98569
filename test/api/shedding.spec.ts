import { connect } from 'node:net';
import { expect } from 'chai';
import { Types } from 'mongoose';
import { TICK_MS } from '../../shared/ops/event-loop.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/** The bound this API runs with: short, so that a test can make its event loop later than it. */
const SHED_LATENESS_MS = 200;
/** How long the test holds the event loop: past the bound however the sampling timer last fired. */
const STALL_MS = SHED_LATENESS_MS + 2 * TICK_MS;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * Sends one request whole on a socket of its own, then holds this process's event loop (which the
 * in-process API shares) for {@link STALL_MS}: the API reads the request only after the stall, as a
 * starved process reads what waited in its socket.
 */
async function sendDuringStall(
  url: string,
  method: string,
  path: string,
  auth: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const text = body === undefined ? '' : JSON.stringify(body);
  const head = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Authorization: ${auth}`,
    'Connection: close',
    ...(body === undefined ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`]),
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  const chunks: Buffer[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('end', resolve).once('error', reject);
  });
  socket.write(`${head.join('\r\n')}\r\n\r\n${text}`);
  const until = Date.now() + STALL_MS;
  while (Date.now() < until); // the stall: nothing else of this process runs meanwhile
  await ended;
  // The loop on time again before the test goes on: the sampling timer has fired on time since.
  await new Promise((r) => setTimeout(r, 3 * TICK_MS));
  const raw = Buffer.concat(chunks).toString('utf8');
  const [top = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = top.split('\r\n');
  const answerHeaders = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers: answerHeaders, body: JSON.parse(rest.join('\r\n\r\n')) } as RawAnswer;
}

describe('shedding: an API whose event loop is later than SHED_LATENESS_MS answers at once, having done nothing', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: TestApplication;
  let customerId: string;
  before(async () => {
    api = await startTestApi({ SHED_LATENESS_MS: String(SHED_LATENESS_MS) });
  });
  after(() => api.close());
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    customerId = (await createCustomers(api.services, app.id, ['cust-1']))[0]!.id;
    await createWallet(api.services, app.id, 'loyalty');
  });

  /**
   * A request as the contract advises a storefront to send it: again after a 503, with the key it
   * names. This process runs beside others: its loop may be late of itself now and then, and the
   * API then sheds — what is asserted is the final answer.
   */
  const untilFinal = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    for (let attempt = 1; ; attempt++) {
      const res = await call(api.url, method, path, { auth: app.auth, body, headers });
      if (res.status !== 503 || attempt === 5) return res;
      if (typeof res.body.idempotency_key === 'string') headers = { 'idempotency-key': res.body.idempotency_key };
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  const creditPath = '/wallets/customer/cust-1/transactions/loyalty';
  /** The customer's balance in the database, in points. */
  const balance = async () => {
    const [row] = await api.services.repos.walletBalances.listByCustomer(app.id, customerId);
    return (row?.points ?? 0) / 100;
  };
  const records = (key: string) =>
    api.services.db.models.IdempotencyRecord.countDocuments({ application: new Types.ObjectId(app.id), key });
  const shedCount = async () => {
    const metric = await api.metrics.registry.getSingleMetric('coupons_http_requests_shed_total')!.get();
    return metric.values[0]?.value ?? 0;
  };

  it('when a credit without a key is read late, then 503 "not applied" naming a generated key, and it is never applied', async () => {
    const shedBefore = await shedCount();
    const res = await sendDuringStall(api.url, 'PUT', creditPath, app.auth, { type: 'credit', points: 7 });
    expect(res.status).to.equal(503);
    expect(res.headers['retry-after']).to.equal('1');
    expect(res.body).to.include({ applied: false, idempotency_key: res.headers['idempotency-key'] });
    expect(res.body.details).to.match(/^the operation was not applied; retry the request/);
    expect(await shedCount()).to.equal(shedBefore + 1);
    // The customer's operations run in order: a credit answered after it means it would have run by now.
    const later = await untilFinal('PUT', creditPath, { type: 'credit', points: 1 });
    expect(later.status, JSON.stringify(later.body)).to.equal(200);
    expect(await balance()).to.equal(1);
  });

  it('when a credit with the client\'s key is read late, then 503 naming that key without "applied", nothing claimed; the retry applies it once', async () => {
    const key = `shed-${Date.now()}`;
    const res = await sendDuringStall(api.url, 'PUT', creditPath, app.auth, { type: 'credit', points: 7 }, { 'Idempotency-Key': key });
    expect(res.status).to.equal(503);
    expect(res.body).to.include({ idempotency_key: key });
    expect(res.body).not.to.have.property('applied');
    expect(await records(key), 'idempotency records of the key').to.equal(0);
    const retry = await call(api.url, 'PUT', creditPath, {
      auth: app.auth,
      body: { type: 'credit', points: 7 },
      headers: { 'idempotency-key': key },
    });
    expect(retry.status).to.equal(200);
    expect(await balance()).to.equal(7);
  });

  it('when a validate is read late, then 503 "a dependency is unavailable"; on time again, it answers', async () => {
    const body = { coupon_details: [{ coupon_code: 'NONE' }], order: { amount: 100, items: [] } };
    const res = await sendDuringStall(api.url, 'POST', '/coupons/validate', app.auth, body);
    expect(res.status).to.equal(503);
    expect(res.body.details).to.match(/^a dependency is unavailable; retry later \(error id [0-9a-f-]{36}\)$/);
    expect((await untilFinal('POST', '/coupons/validate', body)).status).not.to.equal(503);
  });
});
