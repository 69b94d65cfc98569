/**
 * The promotions console (console/, served at /console) in Debian's Chromium against a real stack:
 * an owner signs in with the form, creates an application and rotates its secret, reads a
 * campaign's live usage (a redeem through the client route moves it), filters the audit log; a
 * viewer sees no control that changes anything. Every page gets an axe-core check (0 serious or
 * critical violations). Screenshots go to test-results/console/, or to the folder named by
 * CONSOLE_SCREENSHOTS (`CONSOLE_SCREENSHOTS=docs/console npm test -- test/browser/console.spec.ts`
 * refreshes those of docs/console.md).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { createCampaign, createCustomers, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console test password 1';

/** axe-core in the page: the violations of impact serious or critical, as "rule: target" lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run: (o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

describe('console: the promotions console in a real browser', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  const emails = { owner: `owner-${process.pid}@example.com`, viewer: `viewer-${process.pid}@example.com` };

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    mkdirSync(SHOTS, { recursive: true });
    // scrypt at 2^10: sign-in checks the same way at any cost, and the test signs in a few times.
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    for (const role of ['owner', 'viewer'] as const) {
      const made = await call(api.url, 'POST', '/admin/operators', {
        headers: ADMIN_HEADERS,
        body: { email: emails[role], role, password: PASSWORD },
      });
      expect(made.status, made.text).to.equal(201);
    }
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  async function signedIn(role: 'owner' | 'viewer'): Promise<Page> {
    // bypassCSP: lets the test inject axe-core; the page's own CSP is asserted from the response.
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${api.url}/console/`);
    await page.getByLabel('E-mail').fill(emails[role]);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    expect(errors).to.deep.equal([]);
    return page;
  }

  it('when the sign-in page opens, then it is served with a strict CSP, nothing comes from elsewhere, and a wrong password is answered beside the form', async () => {
    const page = await (await browser.newContext({ bypassCSP: true })).newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const res = await page.goto(`${api.url}/console/`);
    expect(res!.headers()['content-security-policy']).to.include("default-src 'self'");
    await page.getByLabel('E-mail').fill(emails.owner);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').innerText()).to.equal('wrong e-mail or password');
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'sign-in.png') });
    expect(requested.filter((u) => !u.startsWith(`${api.url}/`))).to.deep.equal([]);
    await page.context().close();
  });

  it('when an owner creates an application and rotates its secret, then each secret is shown once and works, and both steps are in the audit log', async () => {
    const page = await signedIn('owner');
    const name = `Console shop ${process.pid}`;
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Currency').fill('EUR');
    await page.getByRole('button', { name: 'Create application' }).click();
    const first = await page.getByTestId('secret').innerText();
    const row = page.getByRole('row').filter({ hasText: name });
    await row.waitFor();
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'applications.png') });

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Rotate secret of ${name}` }).click();
    const second = await page.getByTestId('secret').innerText();
    expect(second).to.not.equal(first);
    const id = (await row.locator('code').first().innerText()).trim();
    const apiKey = (await page.locator('dd code').first().innerText()).trim();
    // The rotated secret answers a client route; the first one no longer does.
    const list = (secret: string) =>
      call(api.url, 'POST', '/coupons/list/all', {
        auth: `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`,
        body: { source_id: 'nobody' },
      });
    // Authenticated: whatever the route answers for an unknown customer, it is not 401.
    const withSecond = await list(second);
    expect(withSecond.status, withSecond.text).to.not.equal(401);
    expect((await list(first)).status).to.equal(401);

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByLabel('Application', { exact: true }).fill(id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('application.rotate_secret').waitFor();
    const text = await page.locator('table.audit').innerText();
    expect(text).to.include('application.create').and.include(emails.owner);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'audit.png'), fullPage: true });
    await page.context().close();
  });

  it('when a coupon is redeemed through the client route, then the campaign page shows its usage move and its budget', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['console-buyer']);
    await createCampaign(api.services, app.id, { code: 'CONSOLE10', name: 'Console ten', limits: { total: 50 } } as never);
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    const row = page.getByRole('row').filter({ hasText: 'Console ten' });
    await row.getByTestId('redeemed').filter({ hasText: '0' }).waitFor();
    expect(await row.innerText()).to.include('50 of 50 left');

    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'console-buyer', coupon_details: [{ coupon_code: 'CONSOLE10' }], order: makeOrder() },
    });
    expect(redeemed.status, redeemed.text).to.equal(200);
    await page.reload();
    await row.getByTestId('redeemed').filter({ hasText: '1' }).waitFor();
    expect(await row.innerText()).to.include('49 of 50 left');
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'campaigns.png') });
    await page.context().close();
  });

  it('when a cart is tried, then the console shows the verdict and amount validate gives, each rule with its figures, and nothing is counted', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['try-buyer']);
    const campaign = await createCampaign(api.services, app.id, { code: 'TRY10', name: 'Try ten' });
    const order = makeOrder();
    const validated = await call(api.url, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { source_id: 'try-buyer', coupon_details: [{ coupon_code: 'TRY10' }], order },
    });
    expect(validated.status, validated.text).to.equal(200);
    expect(validated.body.is_applicable).to.equal(true);
    const discount = validated.body.coupon_savings.order.total_discount;

    const page = await signedIn('viewer'); // a read: viewers may try carts
    await page.goto(`${api.url}/console/#/applications/${app.id}/try`);
    await page.getByLabel('Customer (source_id)').fill('try-buyer');
    await page.getByLabel('Code').fill('TRY10');
    await page.getByLabel('Order (JSON, as sent to validate)').fill(JSON.stringify(order, null, 2));
    await page.getByRole('button', { name: 'Try it' }).click();
    const verdict = page.getByRole('article', { name: 'Try ten: applicable' });
    await verdict.getByTestId('verdict').waitFor();
    expect(await verdict.getByTestId('verdict').innerText()).to.equal(`applicable: ${discount} off`);
    const rules = await verdict.locator('tbody').innerText();
    expect(rules).to.include('availability').and.include('discount').and.include('passed');
    // The discount's own figures: what it was computed on and the amount, validate's.
    expect(rules, rules).to.match(new RegExp(`discount amount\\s+${String(discount).replace('.', '\\.')}(\\s|$)`));
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'try-a-cart.png'), fullPage: true });

    // A bad order is refused beside the field, before anything is sent.
    await page.getByLabel('Order (JSON, as sent to validate)').fill('{ not json');
    await page.getByRole('button', { name: 'Try it' }).click();
    expect(await page.locator('#order-error').innerText()).to.match(/^The order is not JSON/);
    await page.context().close();

    const usage = await call(api.url, 'GET', `/admin/applications/${app.id}/campaigns/${campaign.id}/usage`, { headers: ADMIN_HEADERS });
    expect(usage.body.redeemed).to.equal(0);
  });

  it('when a viewer signs in, then no page offers a change, and the API refuses one made with its session anyway', async () => {
    const page = await signedIn('viewer');
    expect(await page.getByRole('button', { name: 'Create application' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /^Rotate secret/ }).count()).to.equal(0);
    expect(await page.locator('.role').textContent()).to.equal('viewer');
    // The same session, a change through the page's own client: 403 whatever the page shows.
    const status = await page.evaluate(async () => {
      const csrf =
        (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('coupons.csrf') ?? '';
      const res = await fetch('/admin/applications', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: '{"name":"nope"}',
      });
      return res.status;
    });
    expect(status).to.equal(403);
    await page.context().close();
  });

  it('when an owner follows the Queues link, then Bull Board opens with the session (no token prompt)', async () => {
    const page = await signedIn('owner');
    await page.getByRole('link', { name: 'Queues (Bull Board)' }).click();
    await page.getByText('ops-{00}').first().waitFor({ timeout: 30_000 });
    await page.context().close();
  });
});
