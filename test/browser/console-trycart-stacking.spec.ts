/**
 * "Try a cart" with several codes, in Debian's Chromium against a real API, database and Redis: an
 * application that takes 3 coupons per order, campaigns that stack and one that applies only on its
 * own. The promotion manager enters several codes and reads the order they applied in, what each
 * took off every item, the one left out and why in plain words, and the totals — every figure the
 * admin explain answer's, in the application's currency — on a 360 px wide screen without sideways
 * scrolling. The screenshot of docs/console.md is taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, euros, LOCALE, PHONE, seriousViolations, sidewaysScroll } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console try cart password 1';

interface ExplainedStack {
  results: {
    campaign_name: string;
    code: string | null;
    position: number | null;
    reason: string | null;
    discount_amount: number;
    shipping_discount_amount: number;
    item_discount_amounts: number[];
  }[];
  stack: { total_discount_amount: number; total_amount: number; shipping_discount_amount: number; applicable: boolean };
}

describe('console: Try a cart with several codes in a real browser, 360 px wide', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  let app: { id: string };
  const email = `trycart-owner-${process.pid}@example.com`;
  const adminCall = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });
  // The cart of docs/stacking.md: a shirt at 600 and two pairs of socks at 200, shipping 49.
  const order = makeOrder({ shipping: 49 });

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    mkdirSync(SHOTS, { recursive: true });
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    const made = await adminCall('POST', '/operators', { email, role: 'viewer', password: PASSWORD });
    expect(made.status, made.text).to.equal(201);
    const created = await adminCall('POST', '/applications', { name: `Try stacking ${process.pid}`, currency: 'EUR' });
    expect(created.status, created.text).to.equal(201);
    app = created.body;
    const opted = await adminCall('PATCH', `/applications/${app.id}`, { stacking: { max_coupons: 3 } });
    expect(opted.status, opted.text).to.equal(200);
    const percent = (value: number) => ({ kind: 'discount', type: 'percentage', value });
    for (const campaign of [
      { name: 'Summer sale', code: 'SALE10', discount: percent(10), stacking: { priority: 10, category: 'sitewide' } },
      {
        name: 'Loyalty 50 off',
        code: 'LOYAL50',
        discount: { kind: 'discount', type: 'flat', value: 50 },
        stacking: { priority: 5, category: 'loyalty' },
      },
      {
        name: 'Free shipping',
        code: 'SHIPFREE',
        discount: percent(100),
        discount_calculated_on_property: 'shipping',
        stacking: { priority: 1, category: 'shipping' },
      },
      { name: 'VIP 30%', code: 'VIP30', discount: percent(30), stacking: { priority: 50, exclusive: true } },
      { name: 'Partner deal', code: 'PARTNER15', discount: percent(15), stacking: { category: 'partner', combines_with: ['shipping'] } },
      { name: 'Staff discount', code: 'STAFF20', discount: percent(20), stacking: { exclusive: true } },
    ]) {
      const res = await adminCall('POST', `/applications/${app.id}/campaigns`, campaign);
      expect(res.status, res.text).to.equal(201);
    }
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  async function tryCart(codes: string[]): Promise<{ page: Page; explained: ExplainedStack }> {
    const page = await (await browser.newContext({ viewport: PHONE, locale: LOCALE, bypassCSP: true })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${api.url}/console/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await page.goto(`${api.url}/console/#/applications/${app.id}/try`);
    const codeFields = page.getByRole('group', { name: 'Codes (up to 3 per order)' });
    await codeFields.waitFor();
    for (const [i, code] of codes.entries()) {
      if (i > 0) await codeFields.getByRole('button', { name: 'Add a code' }).click();
      await codeFields.getByRole('textbox', { name: `Code ${i + 1}`, exact: true }).fill(code);
    }
    // Three fields: the application's coupons per order, no more.
    expect(await codeFields.getByRole('button', { name: 'Add a code' }).count()).to.equal(codes.length < 3 ? 1 : 0);
    await page.getByLabel(/Paste the order as JSON/).check();
    await page.getByLabel('Order (JSON, as sent to validate)').fill(JSON.stringify(order, null, 2));
    await page.getByRole('button', { name: 'Try it' }).click();
    if (codes.length > 1) await page.getByRole('heading', { name: 'Promotions on this cart' }).waitFor();
    else await page.getByRole('region', { name: 'Verdicts' }).waitFor();
    expect(errors).to.deep.equal([]);
    const res = await adminCall('POST', `/applications/${app.id}/explain`, { codes, order });
    expect(res.status, res.text).to.equal(200);
    return { page, explained: res.body };
  }

  /** The rows of a table as lists of cell texts. */
  const rowsOf = (page: Page, caption: string) =>
    page
      .locator('table', { has: page.locator('caption', { hasText: caption }) })
      .locator('tbody tr, tfoot tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c.textContent ?? '').trim())));

  it('when three codes that combine are tried, then each is shown in the order applied with what it took off every item, and the totals are the explain answer', async () => {
    const { page, explained } = await tryCart(['LOYAL50', 'SALE10', 'SHIPFREE']);
    // The order docs/stacking.md works out: the sale first (priority 10), then loyalty, then shipping.
    expect(explained.results.map((r) => [r.code, r.position])).to.deep.equal([
      ['SALE10', 1],
      ['LOYAL50', 2],
      ['SHIPFREE', 3],
    ]);
    expect(explained.stack).to.deep.include({ total_discount_amount: 199, total_amount: 801, applicable: true });

    expect(await page.getByTestId('stack-verdict').innerText()).to.equal('The customer can redeem all of these codes together.');
    expect(await rowsOf(page, 'In the order they were applied')).to.deep.equal(
      explained.results.map((r) => [String(r.position), `${r.campaign_name} ${r.code}`, euros(r.discount_amount)]),
    );
    for (const r of explained.results) {
      const items = r.item_discount_amounts.map((amount, i) => [['Shirt', 'Socks × 2'][i]!, euros(amount)]);
      const shipping = r.shipping_discount_amount > 0 ? [['Shipping', euros(r.shipping_discount_amount)]] : [];
      expect(await rowsOf(page, `What ${r.campaign_name} took off`), r.campaign_name).to.deep.equal([
        ...items,
        ...shipping,
        ['Discount', euros(r.discount_amount)],
      ]);
    }
    expect(await page.getByTestId('total-discount').innerText()).to.equal(euros(explained.stack.total_discount_amount));
    expect(await page.getByTestId('customer-pays').innerText()).to.equal(euros(explained.stack.total_amount));
    expect(await page.getByRole('row', { name: /of which off shipping/ }).innerText()).to.include(euros(49));
    expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.context().close();
  });

  it('when a code that applies only on its own comes first, then the others are left out with why in plain words, and the customer could not redeem them together', async () => {
    const { page, explained } = await tryCart(['SALE10', 'VIP30', 'SHIPFREE']);
    expect(explained.results.map((r) => [r.code, r.position, r.reason])).to.deep.equal([
      ['VIP30', 1, null],
      ['SALE10', null, 'stacking_exclusive'],
      ['SHIPFREE', null, 'stacking_exclusive'],
    ]);
    expect(explained.stack).to.deep.include({ total_discount_amount: 300, total_amount: 700, applicable: false });

    expect(await rowsOf(page, 'In the order they were applied')).to.deep.equal([
      ['1', 'VIP 30% VIP30', euros(300)],
      ['Left out', 'Summer sale SALE10', '—'],
      ['Left out', 'Free shipping SHIPFREE', '—'],
    ]);
    const whys = page.getByTestId('why');
    await whys.filter({ hasText: 'VIP 30%' }).first().waitFor(); // once the campaigns' own flags are read
    expect(await whys.allInnerTexts()).to.deep.equal([
      "Doesn't combine with VIP 30%, which can only be used on its own",
      "Doesn't combine with VIP 30%, which can only be used on its own",
    ]);
    expect(await page.getByTestId('stack-verdict').innerText()).to.equal(
      "The customer can't redeem these codes together: Summer sale (SALE10) or Free shipping (SHIPFREE) would be refused. Without them, the others apply as shown.",
    );
    expect(await page.getByTestId('total-discount').innerText()).to.equal(euros(300));
    expect(await page.getByTestId('customer-pays').innerText()).to.equal(euros(700));
    expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.context().close();
  });

  it('when one code does not combine with the sale and another applies only on its own, then each says so, naming the sale', async () => {
    const { page, explained } = await tryCart(['SALE10', 'PARTNER15', 'STAFF20']);
    expect(explained.results.map((r) => [r.code, r.position, r.reason])).to.deep.equal([
      ['SALE10', 1, null],
      ['PARTNER15', null, 'stacking_conflict'],
      ['STAFF20', null, 'stacking_exclusive'],
    ]);
    const whys = page.getByTestId('why');
    await whys.filter({ hasText: 'applied first' }).waitFor(); // once the campaign's own flag is read
    expect(await whys.allInnerTexts()).to.deep.equal([
      "Doesn't combine with Summer sale",
      'Can only be used on its own, and Summer sale was applied first',
    ]);
    expect(await page.getByTestId('total-discount').innerText()).to.equal(euros(explained.stack.total_discount_amount));
    expect(await page.getByTestId('customer-pays').innerText()).to.equal(euros(explained.stack.total_amount));
    // docs/console.md's picture: a tablet's width keeps it short and legible.
    await page.setViewportSize({ width: 720, height: 800 });
    await page.screenshot({ path: join(SHOTS, 'try-a-cart-stacking.png'), fullPage: true });
    await page.setViewportSize(PHONE);

    // A code field taken away: the two left are tried.
    await page.getByRole('button', { name: 'Remove code 3' }).click();
    expect(await page.getByRole('textbox', { name: 'Code 3', exact: true }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Try it' }).click();
    await page.getByTestId('stack-row').nth(1).filter({ hasText: 'Partner deal' }).waitFor();
    expect(await page.getByTestId('stack-row').count()).to.equal(2);
    expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
    await page.context().close();
  });

  it('when one code is entered in an application that stacks, then it keeps the single-code view: its verdict and its rules', async () => {
    const { page } = await tryCart(['SALE10']);
    const verdict = page.getByRole('article', { name: 'Summer sale: applicable' });
    expect(await verdict.getByTestId('verdict').innerText()).to.equal(`applicable: ${euros(100)} off`);
    expect(await verdict.locator('tbody').innerText())
      .to.include('When it applies')
      .and.include('passed');
    expect(await page.getByRole('heading', { name: 'Promotions on this cart' }).count()).to.equal(0);
    await page.context().close();
  });
});
