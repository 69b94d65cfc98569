import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DEMO_CAMPAIGNS, loadDemoData } from '../../scripts/demo-data.js';
import { makeOrder } from '../fixtures/records.js';
import { call, startTestApi, TEST_ADMIN_TOKEN, testMongoUri, type TestApi } from '../support/context.js';
import { nodeArgsFor } from '../../scripts/service-build.js';

const run = promisify(execFile);

describe('demo data, seed and admin command line', function () {
  this.timeout(120_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });

  it('when the demo set is loaded, then it has the app, 5 customers, a wallet and every campaign, and they answer', async () => {
    const demo = await loadDemoData(api.services);
    const appId = String(demo.application.id);
    expect(await api.services.repos.customers.page(appId, { limit: 100, includeArchived: false })).to.have.length(5);
    expect(await api.services.repos.wallets.listByApplication(appId)).to.have.length(1);
    const campaigns = await api.services.repos.campaigns.listByApplication(appId);
    expect(campaigns).to.have.length(Object.keys(DEMO_CAMPAIGNS).length + 1);
    const bases = new Set(campaigns.map((c) => c.discountCalculatedOn));
    expect(bases.size).to.equal(7);
    const auth = `Basic ${Buffer.from(`${demo.apiKey}:${demo.secret}`).toString('base64')}`;
    const list = await call(api.url, 'POST', '/coupons/list/all', { auth, body: { source_id: 'cust_1', order: makeOrder() } });
    expect(list.status).to.equal(200);
    expect(list.body.map((c: { coupon_code: string }) => c.coupon_code)).to.include.members(['WELCOME10', 'VIPONLY', 'CASHBACK5']);
    // The wallet's earning rule: an order of 1,234.00 reported completed earns 12 points.
    const reported = await call(api.url, 'POST', '/wallets/customer/cust_1/orders/loyalty', {
      auth,
      body: { order: { ...makeOrder({ order_id: 'demo-order' }), selling_price_subtotal: 1234, status: 'completed' } },
    });
    expect(reported.status, reported.text).to.equal(200);
    expect(reported.body).to.include({ points: 12, loyalty_points: 12 });
  });

  it('when `npm run seed` runs, then it prints credentials that work', async () => {
    const { stdout } = await run('node', nodeArgsFor('scripts/seed.ts'), {
      env: { ...process.env, MONGODB_URI: testMongoUri(), LOG_LEVEL: 'silent' },
    });
    const key = /API key:\s+(\S+)/.exec(stdout)![1]!;
    const secret = /secret:\s+(\S+)/.exec(stdout)![1]!;
    const res = await call(api.url, 'POST', '/coupons/list/all', { auth: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}` });
    expect(res.status).to.equal(200);
    expect(res.body.length).to.be.greaterThan(5);
  });

  it('when the admin CLI creates an application and generates codes, then it prints JSON and progress', async () => {
    // The CLI speaks to the admin API only: no database address.
    const env = { ...process.env, COUPONS_URL: api.url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN, MONGODB_URI: '' };
    const created = JSON.parse(
      (
        await run(
          'node',
          [...nodeArgsFor('scripts/admin.ts'), 'create-application', '--name', 'CLI', '--timezone', 'UTC', '--currency', 'EUR'],
          { env },
        )
      ).stdout,
    );
    expect(created).to.include({ name: 'CLI', timezone: 'UTC', currency: 'EUR' });
    expect(created.secret).to.match(/^sk_/);
    // Listings print a page and its next_cursor; --cursor reads the next one.
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const args = [...nodeArgsFor('scripts/admin.ts'), 'list-applications', ...(cursor ? ['--cursor', cursor] : [])];
      const page = JSON.parse((await run('node', args, { env })).stdout) as { applications: { id: string }[]; next_cursor: string | null };
      ids.push(...page.applications.map((a) => a.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(ids).to.include(created.id);
    const bad = await run(
      'node',
      [...nodeArgsFor('scripts/admin.ts'), 'create-application', '--name', 'x', '--timezone', 'Nowhere/Land', '--currency', 'EUR'],
      { env },
    ).catch((e) => e);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('"timezone" must be an IANA timezone');
  });
});
