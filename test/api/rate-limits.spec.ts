/**
 * Per-application rate limits on the client routes (docs/rate-limits.md): the standard headers,
 * 429 with Retry-After that applies nothing, exact across two API replicas sharing Redis, a
 * changed limit taking effect, and a Redis outage letting requests through.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { PrivateRedis } from '../support/private-servers.js';
import { adminHelpers, settle, type AdminApp } from '../support/admin.js';
import { batchFor } from '../../api/middleware/rate-limit.js';
import { redisConnection } from '../../shared/queue/redis.js';
import { call, startTestApi, TEST_QUEUE_PREFIX, useTestApi, type TestApi } from '../support/context.js';

describe('rate limits: per application, on Redis', function () {
  const api = useTestApi();
  const { admin, basic, client, newApp, must } = adminHelpers(api);
  const limitTo = async (app: AdminApp, rate_limit: { requests: number; window_seconds?: number } | null) => {
    const res = await must('PATCH', `/applications/${app.id}`, { rate_limit });
    await settle();
    return res;
  };
  const validate = (app: AdminApp, url = api().url) =>
    call(url, 'POST', '/coupons/validate', { auth: basic(app), body: { coupon_details: [{ coupon_code: 'NONE' }] } });

  it('when an application has a limit, then answers count down in RateLimit headers and the one past it is 429 with Retry-After', async () => {
    const [app, other] = [await newApp(), await newApp()];
    expect((await limitTo(app, { requests: 5, window_seconds: 3600 })).rate_limit).to.deep.equal({ requests: 5, window_seconds: 3600 });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await validate(app);
      expect(res.status, res.text).to.equal(400); // the coupon does not exist: the request itself is let through
      expect(res.headers.get('ratelimit-limit')).to.equal('5');
      remaining.push(res.headers.get('ratelimit-remaining')!);
      expect(Number(res.headers.get('ratelimit-reset'))).to.be.within(1, 3600);
    }
    expect(remaining).to.deep.equal(['4', '3', '2', '1', '0']);
    const refused = await validate(app);
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body).to.deep.include({ code: 429, message: 'Too Many Requests' });
    expect(refused.body.details).to.include('5 requests per 3600 s');
    expect(refused.body.request_id).to.equal(refused.headers.get('x-request-id'));
    expect(refused.headers.get('coupon-reason')).to.equal('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
    expect(refused.headers.get('ratelimit-remaining')).to.equal('0');
    // Another application has its own count (none here: no limit, no headers).
    const free = await validate(other);
    expect(free.status).to.equal(400);
    expect(free.headers.get('ratelimit-limit')).to.equal(null);
  });

  it('when a wallet credit is refused by the limit, then 429 and nothing is applied', async () => {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty' });
    await limitTo(app, { requests: 2, window_seconds: 3600 });
    const credit = () => client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points: 10 });
    expect((await credit()).status).to.equal(200);
    expect((await credit()).status).to.equal(200);
    const refused = await credit();
    expect(refused.status).to.equal(429);
    await limitTo(app, null);
    const read = await client(app, 'GET', '/wallets/customer/c1');
    expect(read.status).to.equal(200);
    expect(read.body[0].loyalty_points).to.equal(20);
    expect(read.headers.get('ratelimit-limit'), 'back to the default: no limit').to.equal(null);
  });

  describe('with a second API replica on the same Redis', () => {
    let replica: TestApi;
    before(async () => {
      replica = await startTestApi({}, { inProcessWorker: false });
    });
    after(async () => {
      await replica?.close();
    });

    it('when 120 requests race through both replicas against a limit of 40, then exactly 40 pass and 80 are 429', async () => {
      const app = await newApp();
      await limitTo(app, { requests: 40, window_seconds: 3600 });
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => validate(app, i % 2 ? replica.url : api().url)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 400)).to.have.length(40);
      expect(statuses.filter((s) => s === 429)).to.have.length(80);
      const remaining = answers.filter((a) => a.status === 400).map((a) => Number(a.headers.get('ratelimit-remaining')));
      expect(remaining.sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
    });

    it('when 1,500 requests race through both replicas against a limit of 1,000, then at most 1,000 pass, short of it by no more than one batch per replica', async function () {
      const app = await newApp();
      await limitTo(app, { requests: 1000, window_seconds: 3600 });
      /** Status, and whether it carried a permit (a request let through while Redis did not answer has no RateLimit-* headers). */
      const answers: { status: number; permit: boolean }[] = [];
      const waves = Math.ceil(1500 / 64);
      const started = Date.now();
      // 64 at once, as a storefront's checkout traffic would come.
      for (let i = 0; i < 1500; i += 64) {
        // The time this test may take comes from its own first wave (a loaded machine is slower for
        // every wave alike): the remaining waves at 3 times that pace, plus 10 s.
        if (i === 64) this.timeout((Date.now() - started) * waves * 3 + 10_000);
        const n = Math.min(64, 1500 - i);
        answers.push(
          ...(await Promise.all(Array.from({ length: n }, (_, j) => validate(app, (i + j) % 2 ? replica.url : api().url)))).map((a) => ({
            status: a.status,
            permit: a.headers.has('ratelimit-limit'),
          })),
        );
      }
      expect(answers.filter((a) => a.status !== 400 && a.status !== 429)).to.deep.equal([]);
      const passed = answers.filter((a) => a.status === 400 && a.permit).length;
      // Fail open (docs/rate-limits.md): on a machine so busy that Redis does not answer within the
      // command timeout, a request is let through without a permit, and says so by having no
      // RateLimit-* headers. Those permitted stay within the limit either way.
      const letThrough = answers.filter((a) => a.status === 400 && !a.permit).length;
      expect(passed, `${letThrough} let through without a permit`).to.be.at.most(1000);
      // Permits a replica took and did not use when its requests ended: at most its last batch. (A
      // command that timed out may have been counted by Redis without its answer: only when none did.)
      if (letThrough === 0) expect(passed).to.be.at.least(1000 - 2 * batchFor(1000));
    });
  });

  it('when far from the limit, then a process takes permits from Redis in batches: one call for the first request, then one per batch', async () => {
    const app = await newApp();
    await limitTo(app, { requests: 10_000, window_seconds: 3600 });
    for (let i = 0; i < 50; i++) expect((await validate(app)).status).to.equal(400);
    // What Redis counted: 1 (the window's first request learns what remains), then one batch of
    // which 49 were used — where a call per request would have counted 50.
    const redis = redisConnection(api().services.config.redisUrl!);
    try {
      const counted = Number(await redis.get(`${api().services.config.queuePrefix}:ratelimit:10000/3600:${app.id}`));
      expect(counted).to.equal(1 + batchFor(10_000 - 1));
    } finally {
      redis.disconnect();
    }
  });

  for (const [label, body] of [
    ['requests below 0', { rate_limit: { requests: -1 } }],
    ['a window of 0 s', { rate_limit: { requests: 5, window_seconds: 0 } }],
    ['a window over an hour', { rate_limit: { requests: 5, window_seconds: 3601 } }],
    ['no requests', { rate_limit: { window_seconds: 5 } }],
  ] as const) {
    it(`when a limit with ${label} is set, then 400 naming rate_limit`, async () => {
      const app = await newApp();
      const res = await admin('PATCH', `/applications/${app.id}`, body);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.details).to.include('rate_limit');
    });
  }

  describe('when Redis is down', () => {
    let redis: PrivateRedis;
    let isolated: TestApi;
    before(async () => {
      redis = await PrivateRedis.start(join(tmpdir(), `coupons-ratelimit-redis-${process.pid}`));
      isolated = await startTestApi({ REDIS_URL: redis.url, QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-rl` }, { inProcessWorker: false });
    });
    after(async () => {
      await isolated?.close();
      await redis?.stop();
    });

    it('then limited requests are let through (fail open), never refused or answered 5xx, and counted again once it is back', async () => {
      const app = await newApp();
      await limitTo(app, { requests: 3, window_seconds: 3600 });
      expect((await validate(app, isolated.url)).headers.get('ratelimit-remaining')).to.equal('2');
      await redis.kill();
      const during = await Promise.all(Array.from({ length: 6 }, () => validate(app, isolated.url)));
      expect(during.map((a) => a.status)).to.deep.equal(Array(6).fill(400));
      expect(during.every((a) => a.headers.get('ratelimit-limit') === null)).to.equal(true);
      await redis.launch();
      let back = await validate(app, isolated.url);
      for (let i = 0; i < 50 && back.headers.get('ratelimit-limit') === null; i++) {
        await new Promise((r) => setTimeout(r, 200));
        back = await validate(app, isolated.url);
      }
      expect(back.headers.get('ratelimit-limit')).to.equal('3');
    });
  });
});
