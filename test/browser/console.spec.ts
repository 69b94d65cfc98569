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
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { WHEN } from '../../console/src/when.js';
import {
  LOCALE,
  PHONE,
  chromiumOrSkip,
  coveredControls,
  inCurrency,
  seriousViolations,
  sidewaysScroll,
  signInToConsole,
} from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { DISCOUNT_BASES } from '../../shared/domain/types.js';
import { createCampaign, createCustomers, makeOrder } from '../fixtures/records.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console test password 1';

/** The width the console's pages are signed in at (a phone's is set where a test checks one). */
const DESKTOP = { width: 1280, height: 800 };

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
    // Loopback receivers allowed (the webhooks page registers one), retries fast.
    api = await startTestApi({ PASSWORD_HASH_COST: '10', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_BASE_MS: '200' });
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

  const signedIn = (role: 'owner' | 'viewer') => signInToConsole(browser, api.url, emails[role], PASSWORD, DESKTOP);

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
    // The form's fields by their exact labels: other applications listed beside it (their buttons
    // are labelled with their names: "Archive No currency") must not match.
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Currency', { exact: true }).fill('EUR');
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
    await page.getByLabel(/Paste the order as JSON/).check();
    await page.getByLabel('Order (JSON, as sent to validate)').fill(JSON.stringify(order, null, 2));
    await page.getByRole('button', { name: 'Try it' }).click();
    const verdict = page.getByRole('article', { name: 'Try ten: applicable' });
    await verdict.getByTestId('verdict').waitFor();
    expect(await verdict.getByTestId('verdict').innerText()).to.equal(`applicable: ${inCurrency(discount, 'INR')} off`);
    const rules = await verdict.locator('tbody').innerText();
    expect(rules).to.include('When it applies').and.include('Discount').and.include('passed');
    // The discount's own figures, in words: what it was computed on and the amount (validate's, in the application's currency); nothing unsent shown as null.
    expect(rules, rules).to.include('The order subtotal');
    expect(rules, rules).to.match(new RegExp(`discount amount\\s+${inCurrency(discount, 'INR').replace(/[.$]/g, '\\$&')}(\\s|$)`));
    expect(rules, rules).not.to.include('null');
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

  it("when a manager builds a cart item by item, then the verdict is validate's for the same order in the application's currency, a checkout's refusal of a pasted order is said, and it fits a phone", async () => {
    const app = await createTestApplication(api.services); // INR
    await createCustomers(api.services, app.id, ['build-buyer']);
    await createCampaign(api.services, app.id, { code: 'BUILD10', name: 'Build ten' });
    await createCampaign(api.services, app.id, {
      code: 'UPI5',
      name: 'UPI five',
      cartConditions: [{ field: 'payment_mode', operator: 'in', value: ['UPI'] }],
    } as never);
    await createCampaign(api.services, app.id, {
      code: 'APP5',
      name: 'App five',
      metadataKeys: [{ key: 'channel', type: 'string', scope: 'both' }],
      cartConditions: [{ field: 'metadata.channel', operator: 'eq', value: 'app' }],
    } as never);
    const page = await signedIn('viewer');
    await page.goto(`${api.url}/console/#/applications/${app.id}/try`);
    await page.getByLabel('Customer (source_id)').fill('build-buyer');
    await page.getByLabel('Code').fill('BUILD10');
    const first = page.getByRole('group', { name: 'Item 1' });
    await first.getByLabel('Product').fill('Shirt');
    await first.getByLabel('SKU').fill('SHIRT-1');
    await first.getByLabel('Price (INR)', { exact: true }).fill('600');
    await first.getByLabel('Price before markdown (INR)').fill('700');
    await page.getByRole('button', { name: 'Add an item' }).click();
    const second = page.getByRole('group', { name: 'Item 2' });
    await second.getByLabel('Product').fill('Socks');
    await second.getByLabel('SKU').fill('SOCKS-1');
    await second.getByLabel('Price (INR)', { exact: true }).fill('200');
    await second.getByLabel('Quantity').fill('2');
    const inr = (n: number) => new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'INR' }).format(n);
    expect(await page.getByTestId('cart-subtotal').innerText()).to.equal(`Subtotal ${inr(1000)} (before markdown ${inr(1100)})`);

    // The order the builder sends is one a storefront would send: validate's answer for it is the verdict's.
    const order = {
      order_id: 'try-a-cart',
      status: 'completed',
      original_price_subtotal: 1100,
      selling_price_subtotal: 1000,
      items: [
        { product_id: 'SHIRT-1', sku: 'SHIRT-1', name: 'Shirt', original_price: 700, selling_price: 600, quantity: 1, shipping: 0 },
        { product_id: 'SOCKS-1', sku: 'SOCKS-1', name: 'Socks', original_price: 200, selling_price: 200, quantity: 2, shipping: 0 },
      ],
    };
    const validated = await call(api.url, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { source_id: 'build-buyer', coupon_details: [{ coupon_code: 'BUILD10' }], order },
    });
    expect(validated.status, validated.text).to.equal(200);
    await page.getByRole('button', { name: 'Try it' }).click();
    const verdict = page.getByRole('article', { name: 'Build ten: applicable' });
    await verdict.getByTestId('verdict').waitFor();
    expect(await verdict.getByTestId('verdict').innerText()).to.equal(
      `applicable: ${inr(validated.body.coupon_savings.order.total_discount)} off`,
    );
    expect(await page.getByTestId('redeem-refusal').count(), 'a built cart is one a checkout can redeem').to.equal(0);
    // A condition on what the cart did not send (no payment method) is said as not checked, not as passed.
    await page.getByLabel('Code').fill('UPI5');
    await page.getByRole('button', { name: 'Try it' }).click();
    const upi = page.getByRole('article', { name: 'UPI five: applicable' });
    await upi.getByRole('row').filter({ hasText: 'Cart condition' }).filter({ hasText: 'not checked: not sent' }).waitFor();
    // The payment method and the order's shop data, typed in the builder, are what the rules read.
    await page.getByLabel('Payment method (blank: not sent)').fill('card');
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.getByRole('article', { name: 'UPI five: not applicable' }).waitFor();
    await page.getByLabel('Payment method (blank: not sent)').fill('UPI');
    await page.getByRole('button', { name: 'Try it' }).click();
    await upi.getByRole('row').filter({ hasText: 'Cart condition' }).filter({ hasText: 'passed' }).waitFor();
    await page.getByLabel('Code').fill('APP5');
    await page.getByRole('button', { name: "Add shop data (for rules on the order's data)" }).click();
    const shopData = page.getByRole('group', { name: 'Shop data 1' });
    await shopData.getByLabel('Name').fill('channel');
    await shopData.getByLabel('Value').fill('app');
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.getByRole('article', { name: 'App five: applicable' }).waitFor();
    await shopData.getByRole('button', { name: 'Remove shop data 1' }).click();
    await page.getByLabel('Payment method (blank: not sent)').fill('');
    await page.getByLabel('Code').fill('BUILD10');
    await page.getByRole('button', { name: 'Try it' }).click();
    await verdict.getByTestId('verdict').waitFor();
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.setViewportSize(PHONE);
    expect((await sidewaysScroll(page)).scroll).to.equal(0);
    await page.screenshot({ path: join(SHOTS, 'try-a-cart-builder-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Pasted as JSON, starting from the built cart: items without shipping pass validate, and the page says a redeem would not.
    await page.getByLabel(/Paste the order as JSON/).check();
    const pasted = JSON.parse(await page.getByLabel('Order (JSON, as sent to validate)').inputValue());
    expect(pasted).to.deep.equal(order);
    const withoutShipping = { ...order, items: order.items.map(({ shipping: _, ...rest }) => rest) };
    await page.getByLabel('Order (JSON, as sent to validate)').fill(JSON.stringify(withoutShipping));
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.getByTestId('redeem-refusal').waitFor();
    expect(await page.getByTestId('redeem-refusal').innerText()).to.include('would be refused: shipping is required');
    await page.context().close();
  });

  /** Every audit entry of one application, oldest first, as `action` strings. */
  async function auditedActions(app: string): Promise<string[]> {
    const res = await call(api.url, 'GET', `/admin/audit?application=${app}&limit=200`, { headers: ADMIN_HEADERS });
    expect(res.status, res.text).to.equal(200);
    return (res.body.entries as { action: string }[]).map((e) => e.action).reverse();
  }

  it('when an owner generates codes, imports a CSV with a bad line and exports them, then the bad line is named, nothing of that file is added, and the export holds every code', async () => {
    const app = await createTestApplication(api.services);
    const campaign = await createCampaign(api.services, app.id, { codeType: 'bulk', code: undefined, name: 'Console bulk' } as never);
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    await page.getByRole('link', { name: 'Codes of Console bulk' }).click();
    await page.getByRole('heading', { name: 'Codes of Console bulk' }).waitFor();

    await page.getByLabel('How many').fill('5');
    await page.getByLabel('Prefix', { exact: true }).fill('GEN-');
    await page.getByRole('button', { name: 'Generate codes' }).click();
    await page.getByText('5 added; the campaign has 5 codes.').waitFor();
    // A prefix the API refuses: its message beside the field, not a generic line.
    await page.getByLabel('Prefix', { exact: true }).fill('no spaces');
    await page.getByRole('button', { name: 'Generate codes' }).click();
    expect(await page.locator('#field-prefix-error').innerText()).to.equal('Prefix may use only letters, digits, “-” and “_”.');

    const file = (text: string) => ({ name: 'codes.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });
    await page.getByLabel('CSV file').setInputFiles(file('code\nIMPORT-A\nIMPORT B\nIMPORT-C\n'));
    const refused = page.getByRole('alert').filter({ hasText: 'Not imported' });
    await refused.waitFor();
    expect(await refused.innerText()).to.include('line 3: "IMPORT B" — The code may use only letters, digits, “-” and “_”.');
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'codes.png'), fullPage: true });
    const afterRefusal = await call(api.url, 'GET', `/admin/applications/${app.id}/campaigns/${campaign.id}/codes?limit=100`, {
      headers: ADMIN_HEADERS,
    });
    expect(afterRefusal.body.codes.map((c: { code: string }) => c.code)).to.not.include('IMPORT-A');

    await page.getByLabel('CSV file').setInputFiles(file('code\nIMPORT-A\nIMPORT-B\nIMPORT-C\n'));
    await page.getByText('3 added; the campaign has 8 codes.').waitFor();
    // Per-code usage: a code redeemed once (of its one use) is used up; the others are not.
    await createCustomers(api.services, app.id, ['code-buyer']);
    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'code-buyer', coupon_details: [{ coupon_id: 'bulk', coupon_code: 'IMPORT-A' }], order: makeOrder() },
    });
    expect(redeemed.status, redeemed.text).to.equal(200);
    await page.reload();
    const codeRow = (code: string) => page.getByRole('row').filter({ has: page.getByText(code, { exact: true }) });
    await codeRow('IMPORT-A').getByRole('cell', { name: '1 of 1: used up' }).waitFor();
    await codeRow('IMPORT-B').getByRole('cell', { name: '0 of 1', exact: true }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export codes as CSV' }).click(),
    ]);
    const exported = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(exported[0]).to.equal('code,id,kind,used,uses_allowed');
    expect(exported.find((l) => l.startsWith('IMPORT-A,'))).to.match(/,bulk,1,1$/);
    const listed = await call(api.url, 'GET', `/admin/applications/${app.id}/campaigns/${campaign.id}/codes?limit=100`, {
      headers: ADMIN_HEADERS,
    });
    expect(
      exported
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).to.deep.equal(listed.body.codes.map((c: { code: string }) => c.code).sort());
    expect(exported).to.have.length(9);
    await page.context().close();
    // Both additions left an audit entry; the refused import none.
    expect((await auditedActions(app.id)).filter((a) => a === 'campaign.add_codes')).to.have.length(2);
  });

  it('when redemptions are searched by the beginning of an order number, what happened, customer and campaign name, then the console lists exactly the matching cycles with names, money and times as a manager reads them', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['search-buyer', 'other-buyer']);
    await api.services.repos.customers.upsertMany(app.id, [{ sourceId: 'search-buyer', name: 'Asha Rao' }]);
    await createCampaign(api.services, app.id, { code: 'SEARCH10', name: 'Search ten' });
    await createCampaign(api.services, app.id, { code: 'OTHER10', name: 'Another ten' });
    const stem = `web-${Date.now()}`;
    const orders = [makeOrder({ order_id: `${stem}-1` }), makeOrder({ order_id: `${stem}-2` }), makeOrder()];
    for (const [i, order] of orders.entries()) {
      const res = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
        auth: app.auth,
        body: {
          source_id: i === 0 ? 'search-buyer' : 'other-buyer',
          coupon_details: [{ coupon_code: i === 2 ? 'OTHER10' : 'SEARCH10' }],
          order,
        },
      });
      expect(res.status, res.text).to.equal(200);
    }
    const reverted = await call(api.url, 'POST', '/coupons/apply?type=revert', {
      auth: app.auth,
      body: { source_id: 'search-buyer', coupon_details: [{ coupon_code: 'SEARCH10' }], order: orders[0] },
    });
    expect(reverted.status, reverted.text).to.equal(200);
    const { currency, timezone } = (await api.services.repos.applications.findById(app.id))!;

    const page = await signedIn('viewer'); // a read
    await page.goto(`${api.url}/console/#/applications/${app.id}/redemptions`);
    const rows = page.locator('tbody tr');
    await rows.nth(2).waitFor();
    expect(await rows.count()).to.equal(3);
    // Names, not ids: the campaign by its name, the customer by name and shop id; the ids on hover.
    const first = rows.filter({ hasText: orders[0]!.order_id });
    await first.getByText('Search ten').waitFor();
    expect(await first.getByText('Asha Rao (search-buyer)').getAttribute('title')).to.match(/^[0-9a-f]{24}$/);
    expect(await page.locator('tbody').innerText()).to.not.match(/[0-9a-f]{24}/);
    // Money in the application's currency; times in its timezone, said so.
    const discount = await call(api.url, 'GET', `/admin/applications/${app.id}/redemptions?order_id=${orders[1]!.order_id}`, {
      headers: ADMIN_HEADERS,
    });
    const cycle = discount.body.redemptions[0];
    const money = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: currency! }).format(cycle.discount);
    await rows.filter({ hasText: orders[1]!.order_id }).getByText(money).first().waitFor();
    const when = new Intl.DateTimeFormat(LOCALE, { ...WHEN, timeZone: timezone }).format(new Date(cycle.created_at));
    await rows.filter({ hasText: orders[1]!.order_id }).getByText(when).waitFor();
    await page.getByText(`Times are in ${timezone}.`).waitFor();

    // The beginning of an order number finds both orders under it, newest first.
    await page.getByLabel('Order number').fill(stem);
    await page.getByRole('button', { name: 'Search' }).click();
    await rows.filter({ hasText: orders[2]!.order_id }).waitFor({ state: 'detached' });
    await rows.filter({ hasText: orders[1]!.order_id }).waitFor();
    expect(await rows.allInnerTexts()).to.have.length(2);
    expect((await rows.nth(0).innerText()).includes(orders[1]!.order_id)).to.equal(true);
    // Customer and what happened narrow it.
    await page.getByLabel('Order number').fill('');
    await page.getByLabel('Customer').fill('search-buyer');
    await page.getByLabel('What happened').selectOption({ label: 'reverted (order returned or cancelled)' });
    await page.getByRole('button', { name: 'Search' }).click();
    await rows.filter({ hasText: orders[1]!.order_id }).waitFor({ state: 'detached' });
    await rows.filter({ hasText: orders[0]!.order_id }).waitFor();
    expect(await rows.count()).to.equal(1);
    // A campaign chosen by its name.
    await page.getByLabel('Customer').fill('');
    await page.getByLabel('What happened').selectOption({ label: 'anything' });
    await page.getByLabel('Campaign').selectOption({ label: 'Another ten' });
    await page.getByRole('button', { name: 'Search' }).click();
    await rows.filter({ hasText: orders[0]!.order_id }).waitFor({ state: 'detached' });
    await rows.filter({ hasText: orders[2]!.order_id }).getByText('Another ten').waitFor();
    expect(await rows.count()).to.equal(1);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'redemptions.png'), fullPage: true });
    await page.context().close();
  });

  it('when an owner pauses, resumes, ends and archives several campaigns at once and duplicates one, then each is changed and audited, the copy has every rule, no code and starts paused, and the list says what was done', async () => {
    const app = await createTestApplication(api.services);
    const made = [];
    for (const [code, name] of [
      ['BULKA', 'Autumn socks'],
      ['BULKB', 'Winter hats'],
      ['BULKC', 'Spring shoes'],
    ] as const)
      made.push(await createCampaign(api.services, app.id, { code, name, limits: { total: 7, perCustomer: 2 } }));
    const read = async (id: string) =>
      (await call(api.url, 'GET', `/admin/applications/${app.id}/campaigns/${id}`, { headers: ADMIN_HEADERS })).body;
    const page = await signedIn('owner');
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: `Edit ${name}` }) });
    await row('Spring shoes').waitFor();

    // Pause two; the third is left as it was.
    await page.getByLabel('Select Autumn socks').check();
    await page.getByLabel('Select Winter hats').check();
    await page.getByText('2 selected: Autumn socks, Winter hats').waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('status').getByText('2 campaigns paused.').waitFor();
    await row('Winter hats').getByRole('cell', { name: 'paused', exact: true }).waitFor();
    expect([(await read(made[0]!.id)).status, (await read(made[1]!.id)).status, (await read(made[2]!.id)).status]).to.deep.equal([
      'disabled',
      'disabled',
      'active',
    ]);
    // Resume one; end two on a date typed in the application's timezone.
    await page.getByLabel('Select Autumn socks').check();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('status').getByText('1 campaign resumed.').waitFor();
    expect((await read(made[0]!.id)).status).to.equal('active');
    await page.getByLabel('Select Autumn socks').check();
    await page.getByLabel('Select Spring shoes').check();
    await page.getByLabel('End on').fill('2031-12-24T18:00');
    await page.getByRole('button', { name: 'Set end' }).click();
    await page
      .getByRole('status')
      .getByText(/^2 campaigns now end 2031-12-24 18:00\.$/)
      .waitFor();
    const { timezone } = (await api.services.repos.applications.findById(app.id))!;
    expect(timezone).to.equal('Asia/Kolkata');
    for (const c of [made[0]!, made[2]!]) expect((await read(c.id)).valid_until).to.equal('2031-12-24T12:30:00.000Z');
    // Archive one (confirmed): it leaves the list of live campaigns.
    await page.getByLabel('Select Winter hats').check();
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('status').getByText('1 campaign archived.').waitFor();
    await row('Winter hats').waitFor({ state: 'detached' });
    expect((await read(made[1]!.id)).archived_at).to.be.a('string');
    const actions = await auditedActions(app.id);
    expect(actions.filter((a) => a === 'campaign.update')).to.have.length(5);
    expect(actions.filter((a) => a === 'campaign.archive')).to.have.length(1);
    // The application's audit log reads on its clock (Asia/Kolkata), and says so.
    await page.goto(`${api.url}/console/#/audit/${app.id}`);
    await page.getByText('Times are in Asia/Kolkata.').waitFor();
    const when = page.locator('table.audit tbody tr').first().locator('td').first();
    await when.waitFor();
    expect(await when.innerText()).to.include('GMT+5:30');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);

    // Duplicate: every rule, no code, paused; saved under a code of its own, and the list says so.
    await page.getByRole('link', { name: 'Duplicate Spring shoes' }).click();
    await page.getByRole('heading', { name: 'Copy of Spring shoes' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).to.equal('Copy of Spring shoes');
    expect(await page.getByLabel('Code', { exact: true }).inputValue()).to.equal('');
    await page.getByLabel('Code', { exact: true }).fill('BULKD');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('status').getByText('Campaign “Copy of Spring shoes” created.').waitFor();
    const listed = await call(api.url, 'GET', `/admin/applications/${app.id}/campaigns`, { headers: ADMIN_HEADERS });
    const copy = listed.body.campaigns.find((c: { name: string }) => c.name === 'Copy of Spring shoes');
    const original = await read(made[2]!.id);
    expect(copy).to.include({ code: 'BULKD', status: 'disabled' });
    for (const rule of ['discount', 'limits', 'cart_conditions', 'discount_calculated_on', 'valid_until'])
      expect(copy[rule], rule).to.deep.equal(original[rule]);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'campaigns-bulk.png'), fullPage: true });
    await page.context().close();
  });

  it('when an owner invites someone to one application, changes their role, makes and revokes their token and disables them, then each works as said and is audited', async () => {
    const app = await createTestApplication(api.services);
    const { name: appName } = (await api.services.repos.applications.findById(app.id))!;
    const email = `invited-${process.pid}-${Date.now()}@example.com`;
    const page = await signedIn('owner');
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { name: 'People' }).waitFor();
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('E-mail').fill(email);
    await invite.getByLabel('Name').fill('Ines Invited');
    await invite.getByLabel('Role').selectOption({ label: 'Editor: changes campaigns, codes, customers, wallets and webhooks' });
    await invite.getByLabel('All applications, and those added later').uncheck();
    await invite.getByLabel(appName, { exact: true }).check();
    await invite.getByRole('button', { name: 'Invite' }).click();
    const password = await page.getByTestId('new-password').innerText();
    const row = page.getByRole('row').filter({ hasText: email });
    await row.getByRole('cell', { name: appName, exact: true }).waitFor();
    const operators = await call(api.url, 'GET', '/admin/operators?limit=1000', { headers: ADMIN_HEADERS });
    const made = operators.body.operators.find((o: { email: string }) => o.email === email);
    expect(made).to.include({ role: 'editor', name: 'Ines Invited', disabled: false });
    expect(made.applications).to.deep.equal([app.id]);
    // The password handed over signs them in.
    const signIn = async () =>
      call(api.url, 'POST', '/admin/sessions', { body: { email, password } }).then((r) => (r.status === 201 ? 200 : r.status));
    expect(await signIn()).to.equal(200);

    // A role changed from the list; a token made for them works until it is revoked.
    await page.getByLabel('Role of Ines Invited').selectOption('viewer');
    await waitFor('the role to change', async () => {
      const o = await call(api.url, 'GET', `/admin/operators/${made.id}`, { headers: ADMIN_HEADERS });
      return o.body.role === 'viewer';
    });
    await page.getByRole('button', { name: 'API tokens of Ines Invited' }).click();
    const tokens = page.getByRole('region', { name: 'API tokens of Ines Invited' });
    await tokens.getByLabel('What it is for').fill('nightly export');
    await tokens.getByRole('button', { name: 'Make a token' }).click();
    const token = await tokens.getByTestId('new-token').innerText();
    const asToken = () => call(api.url, 'GET', '/admin/operators/me', { headers: { authorization: `Bearer ${token}` } });
    expect((await asToken()).body).to.include({ email, role: 'viewer' });
    await tokens.getByRole('button', { name: 'Revoke nightly export' }).click();
    await tokens.getByText('No tokens.').waitFor();
    expect((await asToken()).status).to.equal(401);
    // Disabled: they can no longer sign in; enabled again, they can.
    await page.getByRole('button', { name: 'Disable Ines Invited' }).click();
    await row.getByRole('cell', { name: 'disabled: cannot sign in' }).waitFor();
    expect(await signIn()).to.equal(401);
    await page.getByRole('button', { name: 'Enable Ines Invited' }).click();
    await row.getByRole('cell', { name: 'can sign in' }).waitFor();
    expect(await signIn()).to.equal(200);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'people.png'), fullPage: true });
    await page.context().close();
    const audit = await call(api.url, 'GET', '/admin/audit?limit=1000', { headers: ADMIN_HEADERS });
    const mine = (audit.body.entries as { action: string; target?: { id?: string } }[]).filter((e) =>
      ['operator.create', 'operator.update', 'token.create', 'token.revoke'].includes(e.action),
    );
    for (const action of ['operator.create', 'operator.update', 'token.create', 'token.revoke'])
      expect(
        mine.map((e) => e.action),
        action,
      ).to.include(action);
  });

  it("when the calendar shows next month, then each day lists the campaigns that can apply that day on the application's clock, and on a phone the days stack without sideways scrolling", async () => {
    const app = await createTestApplication(api.services); // Asia/Kolkata (UTC+5:30)
    const now = new Date();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const [y, m] = [next.getUTCFullYear(), next.getUTCMonth() + 1];
    const at = (d: number, hhmm: string) => new Date(`${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T${hhmm}:00+05:30`);
    // From the 5th at midnight to the 10th at midnight, Kolkata time: the 5th to the 9th.
    await createCampaign(api.services, app.id, { code: 'CAL5', name: 'Five days', validFrom: at(5, '00:00'), validUntil: at(10, '00:00') });
    // Weekends only, from now on.
    await createCampaign(api.services, app.id, { code: 'CALWE', name: 'Weekend deal', validFrom: now, schedule: { daysOfWeek: [6, 7] } });
    // Ends at 23:00 UTC on the 14th: already the 15th in Kolkata (04:30), so the 15th counts too.
    await createCampaign(api.services, app.id, {
      code: 'CALUTC',
      name: 'Late ender',
      validFrom: at(12, '00:00'),
      validUntil: new Date(Date.UTC(y, m - 1, 14, 23, 0)),
    });
    const page = await signedIn('viewer');
    await page.goto(`${api.url}/console/#/applications/${app.id}/calendar`);
    await page.getByRole('button', { name: 'Next month' }).click();
    const title = new Intl.DateTimeFormat(LOCALE, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(next);
    await page.getByRole('table', { name: title }).waitFor();
    const namesOn = async (d: number) => (await page.locator(`td[data-day="${d}"] li`).allInnerTexts()).map((t) => t.trim()).sort();
    await page.locator('td[data-day="5"]').getByText('Five days').waitFor();
    const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
    for (let d = 1; d <= days; d++) {
      const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay(); // 0 Sunday … 6 Saturday
      const expected = [
        ...(d >= 5 && d <= 9 ? ['Five days'] : []),
        ...(weekday === 0 || weekday === 6 ? ['Weekend deal'] : []),
        ...(d >= 12 && d <= 15 ? ['Late ender'] : []),
      ].sort();
      expect(await namesOn(d), `day ${d}`).to.deep.equal(expected);
    }
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'calendar.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    expect((await sidewaysScroll(page)).scroll).to.equal(0);
    await page
      .locator('td[data-day="6"]')
      .getByText(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) 6$/)
      .waitFor();
    await page.context().close();
  });

  it('when customers are found by the beginning of their source id, then one opens with its points, its ledger and its redemptions', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['shopper-ana', 'shopper-bo', 'visitor-cy']);
    const wallet = await call(api.url, 'POST', `/admin/applications/${app.id}/wallets`, {
      headers: ADMIN_HEADERS,
      body: { wallet_id: 'points' },
    });
    expect(wallet.status, wallet.text).to.equal(201);
    await createCampaign(api.services, app.id, { code: 'CUST10', name: 'Customer ten' });
    const credited = await call(api.url, 'PUT', '/wallets/customer/shopper-ana/transactions/points', {
      auth: app.auth,
      body: { type: 'credit', points: 42.5, description: 'welcome bonus' },
    });
    expect(credited.status, credited.text).to.equal(200);
    const order = makeOrder();
    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'shopper-ana', coupon_details: [{ coupon_code: 'CUST10' }], order },
    });
    expect(redeemed.status, redeemed.text).to.equal(200);

    const page = await signedIn('viewer'); // reads only
    await page.goto(`${api.url}/console/#/applications/${app.id}/customers`);
    await page.getByLabel('Source id begins with').fill('shopper-');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('link', { name: 'shopper-bo' }).waitFor();
    expect(await page.locator('tbody tr').count()).to.equal(2);
    await page.getByRole('link', { name: 'shopper-ana' }).click();
    await page.getByRole('heading', { name: 'Customer shopper-ana' }).waitFor();
    expect(await page.getByTestId('points-points').innerText()).to.equal('42.5');
    const ledger = page.getByRole('region', { name: 'Ledger of points' });
    await ledger.getByRole('cell', { name: 'welcome bonus' }).waitFor();
    await page.getByRole('cell', { name: order.order_id }).waitFor();
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    expect(await page.getByRole('form', { name: 'Adjust points' }).count(), 'a viewer is offered no adjustment').to.equal(0);
    await page.context().close();

    // An owner adjusts the points with a reason: a bad amount is refused beside its field, a good one lands in the ledger.
    const owner = await signedIn('owner');
    await owner.goto(`${api.url}/console/#/applications/${app.id}/customers/shopper-ana`);
    const form = owner.getByRole('form', { name: 'Adjust points' });
    await form.getByRole('textbox', { name: 'Points', exact: true }).fill('1.234');
    await form.getByRole('textbox', { name: 'Reason (kept in the ledger and the audit log)' }).fill('goodwill: late parcel');
    await form.getByRole('button', { name: 'Apply adjustment' }).click();
    await owner.locator('#field-points-error').waitFor();
    expect(await owner.locator('#field-points-error').innerText()).to.equal('Points can have at most 2 decimal places.');
    await form.getByRole('textbox', { name: 'Points', exact: true }).fill('7.5');
    await form.getByRole('button', { name: 'Apply adjustment' }).click();
    await form.getByText('7.5 points credited to points: 42.5 → 50.').waitFor();
    await owner.getByTestId('points-points').filter({ hasText: '50' }).waitFor();
    const adjusted = owner.getByRole('region', { name: 'Ledger of points' }).getByRole('row').filter({ hasText: 'goodwill: late parcel' });
    await adjusted.waitFor();
    expect(await adjusted.innerText()).to.include('admin');
    {
      const v = await seriousViolations(owner);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await owner.screenshot({ path: join(SHOTS, 'customer.png'), fullPage: true });
    await owner.context().close();
    expect(await auditedActions(app.id)).to.include('customer.adjust_points');
  });

  /** The application's wallets as the admin API answers them (archived ones included), by id. */
  async function walletsOf(app: string): Promise<Record<string, Record<string, unknown>>> {
    const res = await call(api.url, 'GET', `/admin/applications/${app}/wallets?include_archived=true&limit=100`, {
      headers: ADMIN_HEADERS,
    });
    expect(res.status, res.text).to.equal(200);
    return Object.fromEntries((res.body.wallets as { wallet_id: string }[]).map((w) => [w.wallet_id, w]));
  }

  it('when an owner creates a wallet and sets its points expiry and pending period on the wallets page, then the API has them, a refusal is shown beside its field, archive and unarchive work, and a viewer sees no edit control', async () => {
    const app = await createTestApplication(api.services);
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    await page.getByRole('link', { name: 'wallets', exact: true }).click();
    await page.getByRole('heading', { name: 'Wallets' }).waitFor();

    await page.getByRole('button', { name: 'New wallet' }).click();
    const created = page.getByRole('form', { name: 'New wallet' });
    // A new wallet's defaults are the application's, said as such (not another currency's example).
    await created.getByLabel("Currency (blank: the application's, INR)").waitFor();
    expect(await created.getByLabel("Timezone (blank: the application's, Asia/Kolkata)").getAttribute('placeholder')).to.equal(
      'Asia/Kolkata',
    );
    await created.getByLabel('Wallet id (blank: generated)').fill('bonus');
    await created.getByLabel('Wallet name').fill('Bonus points');
    await created.getByRole('button', { name: 'Create wallet' }).click();
    await page.getByText('Wallet “Bonus points” created.').waitFor();
    expect(await page.getByTestId('expiry-bonus').innerText()).to.equal('never');
    expect((await walletsOf(app.id)).bonus).to.include({
      wallet_name: 'Bonus points',
      currency: 'INR',
      points_expiry: null,
      pending: null,
    });

    // A number the API refuses: its message beside the expiry, nothing saved.
    await page.getByRole('button', { name: 'Edit wallet Bonus points' }).click();
    const form = page.getByRole('form', { name: /^Edit wallet / });
    expect(await form.getByTestId('later-credits-only').innerText()).to.include('applies to credits made after it is saved');
    await form.getByLabel('Points expire').selectOption('months');
    await form.getByLabel('Number of months (1–3650)').fill('0');
    await form.getByRole('button', { name: 'Save wallet' }).click();
    const error = page.locator('#field-points_expiry-error');
    await error.waitFor();
    // The API's refusal in the form's words: the field as it is labelled, the rule as a sentence.
    expect(await error.innerText()).to.equal('Number of months must be at least 1.');
    expect(await form.getByLabel('Number of months (1–3650)').getAttribute('aria-invalid')).to.equal('true');
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    expect((await walletsOf(app.id)).bonus!.points_expiry).to.equal(null);

    await form.getByLabel('Number of months (1–3650)').fill('12');
    await form.getByLabel('New credits are').selectOption('days');
    await form.getByLabel('Pending days (1–3650)').fill('14');
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await page.getByText('Wallet “Bonus points” saved.').waitFor();
    await page.getByTestId('expiry-bonus').filter({ hasText: '12 months after spendable' }).waitFor();
    expect(await page.getByTestId('pending-bonus').innerText()).to.equal('14 days');
    expect((await walletsOf(app.id)).bonus).to.deep.include({
      points_expiry: { kind: 'after', amount: 12, unit: 'months' },
      pending: { days: 14 },
    });

    // Only what changed is sent: a calendar expiry, the pending period left as it is.
    await page.getByRole('button', { name: 'Edit wallet Bonus points' }).click();
    expect(await form.getByLabel('Number of months (1–3650)').inputValue()).to.equal('12');
    await form.getByLabel('Points expire').selectOption('quarter');
    await form.getByLabel('Wallet name').fill('Bonus stars');
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'wallets.png'), fullPage: true });
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await page.getByText('Wallet “Bonus stars” saved.').waitFor();
    expect((await walletsOf(app.id)).bonus).to.deep.include({
      wallet_name: 'Bonus stars',
      points_expiry: { kind: 'end_of', period: 'quarter' },
      pending: { days: 14 },
    });

    // A pending date typed on the wallet's clock (Asia/Kolkata, UTC+5:30), whatever the browser's zone.
    await page.getByRole('button', { name: 'Edit wallet Bonus stars' }).click();
    await form.getByLabel('New credits are').selectOption('until');
    await form.getByLabel("Pending until, on the wallet's clock (Asia/Kolkata)").fill('2027-01-15T10:00');
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await page.getByText('Wallet “Bonus stars” saved.').waitFor();
    expect((await walletsOf(app.id)).bonus!.pending).to.deep.equal({ until: '2027-01-15T04:30:00.000Z' });
    await page.getByRole('button', { name: 'Edit wallet Bonus stars' }).click();
    expect(await form.getByLabel("Pending until, on the wallet's clock (Asia/Kolkata)").inputValue()).to.equal('2027-01-15T10:00');
    await form.getByRole('button', { name: 'Cancel' }).click();

    // Earning rules in the manager's words: a refused amount said beside its rule, nothing saved;
    // then the rule saved and the table saying it as a sentence in the wallet's currency.
    await page.getByRole('button', { name: 'Edit wallet Bonus stars' }).click();
    await form.getByRole('button', { name: 'Add an earning rule' }).click();
    const rule = form.getByRole('group', { name: 'Earning rule 1' });
    await rule.getByLabel('Rule name').fill('Base points');
    await rule.getByLabel('Per amount (INR)').fill('0');
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await rule.locator('.field-error').waitFor();
    expect(await rule.locator('.field-error').innerText()).to.equal('Per amount must be more than 0.');
    expect((await walletsOf(app.id)).bonus!.earning_rules).to.equal(null);
    await rule.getByLabel('Per amount (INR)').fill('10');
    await rule.getByLabel('Orders from (INR; blank: any order)').fill('20');
    await rule.getByLabel('At most per customer (points; blank: no cap)').fill('500');
    await rule.getByLabel('Cap period').selectOption('week');
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await page.getByText('Wallet “Bonus stars” saved.').waitFor();
    expect(await page.getByTestId('earning-bonus').innerText()).to.equal(
      'Base points: 1 point per ₹10.00 of the order subtotal, rounded down to whole points; orders from ₹20.00; at most 500 points a week (from Monday) per customer',
    );
    expect((await walletsOf(app.id)).bonus!.earning_rules).to.deep.equal([
      {
        name: 'Base points',
        earned_on: 'selling_price_subtotal',
        item_selector: null,
        excluded_items: null,
        points: 1,
        per: 10,
        rounding: 'down',
        round_to: 'point',
        min_order: 20,
        max_per_order: null,
        max_per_period: { points: 500, period: 'week' },
      },
    ]);
    await page.getByRole('button', { name: 'Edit wallet Bonus stars' }).click();
    expect(await form.getByRole('group', { name: 'Earning rule 1' }).getByLabel('Cap period').inputValue()).to.equal('week');
    expect(
      await form.getByRole('group', { name: 'Earning rule 1' }).getByLabel('Orders from (INR; blank: any order)').inputValue(),
    ).to.equal('20');
    await page.screenshot({ path: join(SHOTS, 'wallet-earning.png'), fullPage: true });
    // The same form with its rule on a phone: nothing scrolls sideways, every control can be tapped, axe clean.
    await page.setViewportSize({ width: 390, height: 800 });
    const sideways = await sidewaysScroll(page);
    expect(sideways.scroll, `sideways scroll at 390 px: ${sideways.spilling.slice(0, 5).join(', ')}`).to.equal(0);
    expect(await coveredControls(page)).to.deep.equal([]);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'phone-390-wallet-earning.png'), fullPage: true });
    await page.setViewportSize(DESKTOP);
    await form.getByRole('button', { name: 'Cancel' }).click();

    // What would an order earn: a cart of 123.45 checked against the rule, nothing credited, said in words.
    await page.getByRole('button', { name: 'Check an order in Bonus stars' }).click();
    const check = page.getByRole('form', { name: 'What would an order earn in Bonus stars' });
    await check.getByRole('group', { name: 'Item 1' }).getByLabel('Price (INR)').fill('123.45');
    await check.getByRole('button', { name: 'Check the order' }).click();
    const result = check.getByTestId('earning-result');
    await result.waitFor();
    expect(await result.innerText()).to.match(
      /^This order earns 12 points\.\n+Base points: 12 points — on ₹123\.45; 12\.345 points before rounding; rounded: 12 points \(500 points left in week \d+ of \d{4} for a new customer\)$/,
    );
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'wallet-earning-check.png'), fullPage: true });
    await page.setViewportSize({ width: 360, height: 800 });
    const narrow = await sidewaysScroll(page);
    expect(narrow.scroll, `sideways scroll at 360 px: ${narrow.spilling.slice(0, 5).join(', ')}`).to.equal(0);
    expect(await coveredControls(page)).to.deep.equal([]);
    await page.setViewportSize(DESKTOP);
    await check.getByLabel('Customer (their id in your shop; blank: one who has earned nothing yet)').fill('nobody-here');
    await check.getByRole('button', { name: 'Check the order' }).click();
    await check.getByText(/customer not found|not found/i).waitFor();
    await check.getByRole('button', { name: 'Close' }).click();
    expect(await (await walletsOf(app.id)).bonus).to.be.an('object');

    await page.getByRole('button', { name: 'Archive wallet Bonus stars' }).click();
    await page.getByText('Wallet “Bonus stars” archived.').waitFor();
    expect((await walletsOf(app.id)).bonus!.archived_at).to.be.a('string');
    await page.getByLabel('Show archived').check();
    await page.getByRole('button', { name: 'Unarchive wallet Bonus stars' }).click();
    await page.getByText('Wallet “Bonus stars” unarchived.').waitFor();
    expect((await walletsOf(app.id)).bonus!.archived_at).to.equal(null);
    await page.context().close();
    const actions = await auditedActions(app.id);
    expect(actions.filter((a) => a.startsWith('wallet.'))).to.deep.equal([
      'wallet.create',
      'wallet.update',
      'wallet.update',
      'wallet.update',
      'wallet.update',
      'wallet.archive',
      'wallet.unarchive',
    ]);

    // A viewer reads the settings and is offered no change.
    const viewer = await signedIn('viewer');
    await viewer.goto(`${api.url}/console/#/applications/${app.id}/wallets`);
    await viewer.getByTestId('expiry-bonus').filter({ hasText: 'end of quarter' }).waitFor();
    for (const name of ['New wallet', /^Edit wallet/, /^Archive wallet/, /^Unarchive wallet/])
      expect(await viewer.getByRole('button', { name }).count(), String(name)).to.equal(0);
    expect(await viewer.getByRole('form').count()).to.equal(0);
    {
      const v = await seriousViolations(viewer);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await viewer.context().close();
  });

  it('when a wallet has pending and expiring points, then the customer page shows them with their dates above the ledger, and each entry its bucket move', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['saver']);
    const wallet = await call(api.url, 'POST', `/admin/applications/${app.id}/wallets`, {
      headers: ADMIN_HEADERS,
      body: { wallet_id: 'points', pending: { days: 7 }, points_expiry: { kind: 'after', amount: 30, unit: 'days' } },
    });
    expect(wallet.status, wallet.text).to.equal(201);
    const credit = async (points: number, description: string) => {
      const res = await call(api.url, 'PUT', '/wallets/customer/saver/transactions/points', {
        auth: app.auth,
        body: { type: 'credit', points, description },
      });
      expect(res.status, res.text).to.equal(200);
    };
    // Credits made in the past (the API's clock moved back): 20 became spendable and expired, 10
    // became spendable and expire later; 5 credited now are pending. Each operation posts what
    // fell due before it.
    const realNow = api.services.now;
    const day = 86_400_000;
    try {
      const start = Date.now();
      api.services.now = () => new Date(start - 60 * day);
      await credit(20, 'early bonus');
      api.services.now = () => new Date(start - 10 * day);
      await credit(10, 'recent bonus');
    } finally {
      api.services.now = realNow;
    }
    await credit(5, 'today bonus');
    const read = await call(api.url, 'GET', `/admin/applications/${app.id}/customers/saver/wallets/points/ledger?limit=50`, {
      headers: ADMIN_HEADERS,
    });
    expect(read.status, read.text).to.equal(200);
    expect([read.body.balance, read.body.pending_points, read.body.expiring_points]).to.deep.equal([10, 5, 10]);
    const moves = (read.body.entries as { bucket: { move: string } | null }[]).map((e) => e.bucket?.move ?? null);
    expect(moves).to.have.members(['pending', 'available', 'expired', 'pending', 'available', 'pending']);
    const buckets = read.body.buckets as { points: number; available_at: string | null; expires_at: string | null }[];

    const page = await signedIn('viewer');
    await page.goto(`${api.url}/console/#/applications/${app.id}/customers/saver`);
    const ledger = page.getByRole('region', { name: 'Ledger of points' });
    await ledger.getByRole('cell', { name: 'today bonus' }).waitFor();
    expect(await ledger.getByTestId('pending-points').innerText()).to.equal('5');
    expect(await ledger.getByTestId('expiring-points').innerText()).to.equal('10');
    // The lots with their dates, as this browser writes the API's instants.
    const shown = (iso: string) => page.evaluate((at) => new Date(at).toLocaleString(), iso);
    const lots = ledger.locator('table.buckets tbody tr');
    expect(await lots.count()).to.equal(buckets.length);
    const pendingLot = buckets.find((b) => b.available_at)!;
    const expiringLot = buckets.find((b) => !b.available_at)!;
    expect((await lots.filter({ hasText: 'pending' }).innerText()).split('\t')).to.deep.equal([
      '5',
      'pending',
      await shown(pendingLot.available_at!),
      pendingLot.expires_at ? await shown(pendingLot.expires_at) : 'never',
    ]);
    expect((await lots.filter({ hasText: 'expiring' }).innerText()).split('\t')).to.deep.equal([
      '10',
      'expiring',
      'now',
      await shown(expiringLot.expires_at!),
    ]);
    // Each entry's move in the ledger, in the API's order.
    const cells = await ledger.getByTestId('bucket-move').allInnerTexts();
    expect(cells.map((c) => c.split(/[ ;]/)[0] || null)).to.deep.equal(
      moves.map((m) => ({ pending: 'pending', available: 'became', expired: 'expired', cancelled: 'cancelled' })[m!] ?? null),
    );
    const today = (read.body.entries as { description: string; bucket: { available_at: string; expires_at: string | null } }[]).find(
      (e) => e.description === 'today bonus',
    )!;
    expect(await ledger.getByRole('row').filter({ hasText: 'today bonus' }).getByTestId('bucket-move').innerText()).to.equal(
      `pending until ${await shown(today.bucket.available_at)}; then ${today.bucket.expires_at ? `expires ${await shown(today.bucket.expires_at)}` : 'never expires'}`,
    );
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.screenshot({ path: join(SHOTS, 'customer-points.png'), fullPage: true });
    await page.context().close();
  });

  it('when an owner registers a webhook, pings it, redelivers an event and rotates its secret, then the receiver gets each and every step is audited', async () => {
    const receiver = await new WebhookReceiver().up();
    try {
      const app = await createTestApplication(api.services);
      const page = await signedIn('owner');
      await page.goto(`${api.url}/console/#/applications/${app.id}/webhooks`);
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      // A URL the API refuses (credentials in it): its message beside the field.
      await page.getByLabel('URL').fill('http://user:pw@127.0.0.1:1/x');
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      await page.locator('#field-url-error, [role=alert]').first().waitFor();

      await page.getByLabel('URL').fill(receiver.url);
      // Every event type the service sends can be chosen, by what happened.
      for (const words of ['A coupon was redeemed', 'Points expired', 'A campaign spent a set share of its budget'])
        await page.getByRole('checkbox', { name: words }).waitFor();
      await page.getByLabel('Description').fill('console receiver');
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      const first = (await page.getByTestId('webhook-secret').innerText()).trim();
      expect(first).to.match(/^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();

      await page.getByRole('button', { name: `Ping ${receiver.url}` }).click();
      await page.getByText(/^Ping evt_\w+ queued/).waitFor();
      await waitFor('the ping delivered', () => receiver.received.some((r) => JSON.parse(r.body).type === 'webhook.ping'));

      // An event of the application's stream: a redemption, delivered, then redelivered from the page.
      await createCustomers(api.services, app.id, ['hook-buyer']);
      await createCampaign(api.services, app.id, { code: 'HOOK10', name: 'Hook ten' });
      const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
        auth: app.auth,
        body: { source_id: 'hook-buyer', coupon_details: [{ coupon_code: 'HOOK10' }], order: makeOrder() },
      });
      expect(redeemed.status, redeemed.text).to.equal(200);
      const completions = () => receiver.received.filter((r) => JSON.parse(r.body).type === 'redemption.completed').length;
      await waitFor('the redemption delivered', () => completions() === 1);

      await page.getByRole('link', { name: `Deliveries of ${receiver.url}` }).click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      // Events and states in words; the endpoint named by its description, not its id.
      await page.locator('.crumbs').filter({ hasText: 'webhooks / console receiver' }).waitFor();
      const completed = page.getByRole('row').filter({ hasText: 'A coupon was redeemed' });
      await completed.getByTestId('delivery-status').filter({ hasText: 'delivered' }).waitFor();
      await completed.getByRole('button', { name: /^Redeliver evt_/ }).click();
      await page.getByText('1 delivery queued again.').waitFor();
      await waitFor('the redelivery received', () => completions() === 2);
      {
        const v = await seriousViolations(page);
        expect(v, v.join('\n')).to.deep.equal([]);
      }
      await page.screenshot({ path: join(SHOTS, 'webhook-deliveries.png'), fullPage: true });

      await page.getByRole('link', { name: 'webhooks' }).click();
      await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
      const second = (await page.getByTestId('webhook-secret').innerText()).trim();
      expect(second)
        .to.match(/^whsec_/)
        .and.not.equal(first);
      {
        const v = await seriousViolations(page);
        expect(v, v.join('\n')).to.deep.equal([]);
      }
      await page.screenshot({ path: join(SHOTS, 'webhooks.png'), fullPage: true });
      await page.context().close();
      const actions = await auditedActions(app.id);
      for (const action of ['webhook.create', 'webhook.ping', 'webhook.redeliver', 'webhook.rotate_secret'])
        expect(actions, action).to.include(action);
    } finally {
      await receiver.close();
    }
  });

  it('when an owner builds a campaign of each base and kind in the editor, then bad input is refused beside its field, the rule texts are previewed, every campaign is applicable in "Try a cart" with the amount validate gives, and each was audited', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['editor-buyer']);
    const wallet = await call(api.url, 'POST', `/admin/applications/${app.id}/wallets`, {
      headers: ADMIN_HEADERS,
      body: { wallet_id: 'points', wallet_name: 'Reward points' },
    });
    expect(wallet.status, wallet.text).to.equal(201);
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);

    /** The editor's form for one campaign, filled as a person would. */
    async function build(c: { name: string; code: string; base: string; cashback?: boolean }, more?: () => Promise<void>) {
      await page.getByRole('link', { name: 'New campaign' }).click();
      await page.getByRole('heading', { name: 'New campaign' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill(c.name);
      await page.getByLabel('Code', { exact: true }).fill(c.code);
      if (c.cashback) {
        await page.getByLabel('Kind').selectOption('cashback');
        await page.getByLabel('Cashback wallet').selectOption('points');
      }
      await page.getByLabel('Value (%)').fill('10');
      await page.getByLabel('Computed on').selectOption(c.base);
      if (c.base.startsWith('selected_items_')) {
        await page.getByLabel('Use item selector').check();
        await page.getByLabel('item_selector test 1 values (comma-separated)').fill('SKU1');
      }
      if (c.base.startsWith('valid_cart_')) {
        await page.getByLabel('Use excluded items').check();
        await page.getByLabel('excluded_items test 1 values (comma-separated)').fill('SKU2');
      }
      await more?.();
      // The preview answered for this draft before it is saved.
      await page.getByTestId('rule-texts').waitFor();
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
      await page.getByRole('link', { name: `Edit ${c.name}` }).waitFor();
    }

    // The first one: a refusal beside its field, then a cart condition and its previewed rule text.
    await build({ name: 'Editor subtotal', code: 'EDIT0', base: 'selling_price_subtotal' }, async () => {
      await page.getByLabel('Value (%)').fill('ten');
      const error = page.locator('[id="error-discount.value"]');
      await error.waitFor();
      expect(await error.innerText()).to.equal('Value must be a number.');
      expect(await page.getByLabel('Value (%)').getAttribute('aria-invalid')).to.equal('true');
      await page.getByLabel('Value (%)').fill('10');
      await error.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Add cart condition' }).click();
      await page.getByLabel('Cart condition 1 field').selectOption('selling_price_subtotal');
      await page.getByLabel('Cart condition 1 operator').selectOption('gte');
      await page.getByLabel('Cart condition 1 value').fill('50');
      await page.getByTestId('rule-texts').getByText('selling_price_subtotal should be greater than or equal to 50.00').waitFor();
      {
        const v = await seriousViolations(page);
        expect(v, v.join('\n')).to.deep.equal([]);
      }
      await page.screenshot({ path: join(SHOTS, 'campaign-editor.png'), fullPage: true });
    });
    const bases = DISCOUNT_BASES.filter((b) => b !== 'selling_price_subtotal');
    const made = [{ name: 'Editor subtotal', code: 'EDIT0', cashback: false }];
    for (const [i, base] of bases.entries()) {
      const c = { name: `Editor ${base}`, code: `EDIT${i + 1}`, base, cashback: i % 2 === 0 };
      await build(c);
      made.push(c);
    }
    // And a cashback on the first base, so each kind meets each of the two subtotal families.
    await build({ name: 'Editor cashback subtotal', code: 'EDIT9', base: 'selling_price_subtotal', cashback: true });
    made.push({ name: 'Editor cashback subtotal', code: 'EDIT9', cashback: true });

    // "Try a cart" with every campaign: each verdict is validate's for its code.
    const order = makeOrder({ shipping: 20 });
    await page.goto(`${api.url}/console/#/applications/${app.id}/try`);
    await page.getByLabel('Customer (source_id)').fill('editor-buyer');
    await page.getByLabel(/Paste the order as JSON/).check();
    await page.getByLabel('Order (JSON, as sent to validate)').fill(JSON.stringify(order));
    await page.getByRole('button', { name: 'Try it' }).click();
    for (const c of made) {
      const validated = await call(api.url, 'POST', '/coupons/validate', {
        auth: app.auth,
        body: { source_id: 'editor-buyer', coupon_details: [{ coupon_code: c.code }], order },
      });
      expect(validated.status, validated.text).to.equal(200);
      expect(validated.body.is_applicable, `${c.name}: ${validated.text}`).to.equal(true);
      const savings = validated.body.coupon_savings.order;
      const amount = c.cashback
        ? `${inCurrency(savings.total_cashback, 'INR')} cashback`
        : `${inCurrency(savings.total_discount, 'INR')} off`;
      if (c.cashback) expect(savings.total_cashback, c.name).to.be.above(0);
      const verdict = page.getByRole('article', { name: `${c.name}: applicable` }).getByTestId('verdict');
      await verdict.waitFor();
      expect(await verdict.innerText(), c.name).to.equal(`applicable: ${amount}`);
    }

    // An edit: a total limit, shown on the campaigns page at once.
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    await page.getByRole('link', { name: 'Edit Editor subtotal' }).click();
    await page.getByLabel('Limit total').fill('5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Editor subtotal' }).first();
    await row.getByText('5 of 5 left').waitFor();
    // A cashback names its wallet as people know it, not by its id.
    const cashbackRow = page.getByRole('row').filter({ hasText: 'Editor cashback subtotal' });
    await cashbackRow.getByText('Cashback: 10% off to Reward points').waitFor();
    await page.context().close();

    const actions = await auditedActions(app.id);
    expect(actions.filter((a) => a === 'campaign.create')).to.have.length(made.length);
    expect(actions).to.include('campaign.update');

    // A viewer reads the editor, and can change nothing there.
    const viewer = await signedIn('viewer');
    await viewer.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    await viewer.getByRole('link', { name: 'Edit Editor subtotal' }).waitFor();
    expect(await viewer.getByRole('link', { name: 'New campaign' }).count()).to.equal(0);
    await viewer.getByRole('link', { name: 'Edit Editor subtotal' }).click();
    await viewer.getByRole('heading', { name: 'Edit Editor subtotal' }).waitFor();
    expect(await viewer.getByLabel('Name', { exact: true }).isDisabled()).to.equal(true);
    expect(await viewer.getByRole('button', { name: 'Save changes' }).count()).to.equal(0);
    await viewer.context().close();
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
    await page.getByText('ops-{00}').first().waitFor({ timeout: 0 }); // the test's own timeout bounds Bull Board's start-up
    await page.context().close();
  });
});
