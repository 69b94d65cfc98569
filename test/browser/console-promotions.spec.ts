/**
 * The campaign editor's promotion kinds and money budgets in Debian's Chromium against a real API,
 * database and Redis, on a 360 px wide screen: a buy-X-get-Y campaign, a tiered one and one with a
 * budget built in the editor in a promotion manager's words, each stored in the admin API's format
 * exactly as chosen; a saved campaign of every kind opened and saved unchanged; the campaign's page
 * showing what its budget has spent and has left after a redeem. No sideways scrolling, no serious
 * axe-core violation. The screenshots of docs/console.md are taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { chromiumOrSkip, euros, PHONE, seriousViolations, sidewaysScroll, signInToConsole } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { createCustomers, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console promotions password 1';
/** docs/console.md's pictures: a tablet's width shows the form beside its summary. */
const TABLET = { width: 720, height: 900 };

interface StoredCampaign {
  id: string;
  name: string;
  discount: Record<string, unknown>;
  budget: Record<string, unknown> | null;
  earning_multiplier: number | null;
  discount_calculated_on_property: string;
  updated_at?: string;
}

describe('console: promotion kinds and money budgets in a real browser, 360 px wide', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  let app: TestApplication;
  const email = `promotions-owner-${process.pid}@example.com`;
  const adminCall = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    mkdirSync(SHOTS, { recursive: true });
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    const made = await adminCall('POST', '/operators', { email, role: 'owner', password: PASSWORD });
    expect(made.status, made.text).to.equal(201);
    app = await createTestApplication(api.services, { currency: 'EUR', timezone: 'Europe/Paris' });
    await createCustomers(api.services, app.id, ['budget-buyer']);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const signedIn = () => signInToConsole(browser, api.url, email, PASSWORD);

  /** The application's campaign named `name`, as the admin API has it (listed by cursor: never assumed on the first page). */
  async function storedCampaign(name: string): Promise<StoredCampaign> {
    let cursor: string | null = null;
    do {
      const listed = await adminCall(
        'GET',
        `/applications/${app.id}/campaigns?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(listed.status, listed.text).to.equal(200);
      const found = (listed.body.campaigns as StoredCampaign[]).find((c) => c.name === name);
      if (found) {
        const one = await adminCall('GET', `/applications/${app.id}/campaigns/${found.id}`);
        expect(one.status, one.text).to.equal(200);
        return one.body;
      }
      cursor = listed.body.next_cursor;
    } while (cursor);
    throw new Error(`campaign ${name} is not listed`);
  }

  /** A new campaign's editor, named and with its code. */
  async function newCampaign(page: Page, name: string, code: string) {
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/new`);
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Code', { exact: true }).fill(code);
  }

  /** Saved: back on the campaigns page, the campaign listed. */
  async function create(page: Page, name: string) {
    await page.getByTestId('rule-texts').waitFor();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    await page.getByRole('link', { name: `Edit ${name}` }).waitFor();
  }

  /**
   * A picture for docs/console.md at a tablet's width: the first of `parts` scrolled to the top of the
   * screen, the picture cut to all of them (the screen made tall enough to hold them; the In short box
   * stays beside the form as it scrolls); then the phone's width again.
   */
  async function shot(page: Page, file: string, ...parts: Locator[]) {
    const margin = 12;
    const union = async () => {
      const boxes = await Promise.all(
        parts.map(async (p) => {
          const b = await p.boundingBox();
          if (!b) throw new Error(`${file}: ${p.toString()} is not shown`);
          return b;
        }),
      );
      const left = Math.min(...boxes.map((b) => b.x));
      const top = Math.min(...boxes.map((b) => b.y));
      const right = Math.max(...boxes.map((b) => b.x + b.width));
      const bottom = Math.max(...boxes.map((b) => b.y + b.height));
      return { left, top, right, bottom };
    };
    await page.setViewportSize(TABLET);
    const needed = await union();
    const height = Math.max(TABLET.height, Math.ceil(needed.bottom - needed.top + 3 * margin));
    await page.setViewportSize({ width: TABLET.width, height });
    await parts[0]!.evaluate((e, m) => {
      e.scrollIntoView();
      e.ownerDocument.defaultView?.scrollBy(0, -m);
    }, margin);
    const box = await union();
    const x = Math.max(0, Math.floor(box.left - margin));
    const y = Math.max(0, Math.floor(box.top - margin));
    const clip = {
      x,
      y,
      width: Math.min(TABLET.width, Math.ceil(box.right + margin)) - x,
      height: Math.min(height, Math.ceil(box.bottom + margin)) - y,
    };
    await page.screenshot({ path: join(SHOTS, file), clip });
    await page.setViewportSize(PHONE);
  }

  /** The editor's section named `legend` with the In short box beside it. */
  const withSummary = (page: Page, legend: string) => [
    page.getByRole('group', { name: legend, exact: true }),
    page.getByRole('complementary', { name: 'What customers can be told' }),
  ];

  async function clean(page: Page) {
    expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
    const v = await seriousViolations(page);
    expect(v, v.join('\n')).to.deep.equal([]);
  }

  /** The campaign's editor opened and saved without a change: the API must then have it exactly as before. */
  async function savedUnchanged(page: Page, before: StoredCampaign) {
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${before.id}/edit`);
    await page.getByRole('heading', { name: `Edit ${before.name}` }).waitFor();
    await page.getByTestId('rule-texts').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    const after = await storedCampaign(before.name);
    const { updated_at: _b, ...was } = before;
    const { updated_at: _a, ...is } = after;
    expect(is).to.deep.equal(was);
  }

  it('when a manager builds "buy 2 socks, get 1 free" in the editor, then the API stores the buy and get exactly, and it loads back unchanged', async () => {
    const page = await signedIn();
    const name = 'Socks: buy 2 get 1 free';
    await newCampaign(page, name, 'SOCKS3');
    await page.getByLabel('What the customer gets').selectOption({ label: 'Buy X get Y' });
    expect(await page.getByLabel('Value (%)').count()).to.equal(0);
    const kind = page.getByRole('group', { name: 'Buy X get Y' });
    await kind.getByLabel('Customer buys (how many)').fill('2');
    await kind.getByLabel('Bought items are').selectOption({ label: 'items matching…' });
    await kind.getByLabel('Bought items test 1 values (comma-separated)').fill('SKU2');
    await kind.getByLabel('and gets (how many)').fill('1');
    expect(await kind.getByLabel('Discounted items are').inputValue()).to.equal('none'); // the same items
    expect(await kind.getByLabel('at % off (100% = free)').inputValue()).to.equal('100');
    await kind.getByLabel('at most (times per order)').fill('2');
    await page
      .getByTestId('summary-discount')
      .filter({ hasText: 'Buy 2 of the items chosen, get 1 of the same items free, at most 2 times per order.' })
      .waitFor();
    await page.getByTestId('rule-texts').waitFor();
    await clean(page);

    await shot(page, 'promotion-kind-buy-x-get-y.png', ...withSummary(page, 'Discount'));

    await create(page, name);
    const saved = await storedCampaign(name);
    expect(saved.discount).to.deep.include({
      kind: 'discount',
      type: 'buy_x_get_y',
      value: null,
      buy: { quantity: 2, items: { match: 'AND', properties: [{ property: 'sku', operator: 'in', values: ['SKU2'] }] } },
      get: { quantity: 1, items: null, percent_off: 100 },
      max_repeats: 2,
    });
    expect(saved.budget).to.equal(null);
    await savedUnchanged(page, saved);
    await page.context().close();
  });

  it('when a manager builds a tiered discount, then a percentage above 100 is refused beside its tier, and the API stores the tiers exactly', async () => {
    const page = await signedIn();
    const name = 'Spend more, save more';
    await newCampaign(page, name, 'TIERS');
    await page.getByLabel('What the customer gets').selectOption({ label: 'Tiered discount (spend more, save more)' });
    await page.getByLabel('Each tier gives').selectOption({ label: 'a percentage off' });
    await page.getByLabel('Tier 1: from (EUR)').fill('100');
    await page.getByLabel('Tier 1: % off').fill('5');
    await page.getByRole('button', { name: 'Add tier' }).click();
    await page.getByLabel('Tier 2: from (EUR)').fill('500');
    await page.getByLabel('Tier 2: % off').fill('150');
    const error = page.locator('[id="error-discount.tiers.1.value"]');
    await error.waitFor();
    expect(await error.innerText()).to.equal('Enter a percentage above 0, at most 100.');
    expect(await page.getByLabel('Tier 2: % off').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Tier 2: % off').fill('10');
    await error.waitFor({ state: 'detached' });
    await page
      .getByTestId('summary-discount')
      .filter({ hasText: `Spend more, save more — from ${euros(100)}: 5% off; from ${euros(500)}: 10% off.` })
      .waitFor();
    await page.getByTestId('rule-texts').waitFor();
    await clean(page);
    await shot(page, 'promotion-kind-tiered.png', ...withSummary(page, 'Discount'));
    await create(page, name);

    const saved = await storedCampaign(name);
    expect(saved.discount).to.deep.include({
      kind: 'discount',
      type: 'tiered',
      value: null,
      tiers: [
        { from: 100, value: 5 },
        { from: 500, value: 10 },
      ],
      tier_type: 'percentage',
    });
    await savedUnchanged(page, saved);
    await page.context().close();
  });

  it('when a manager sets a money budget, then the API stores it exactly, and after a redeem the campaign page shows what it spent and has left', async () => {
    const page = await signedIn();
    const name = 'Ten percent, budgeted';
    await newCampaign(page, name, 'BUDGET10');
    await page.getByLabel('Value (%)').fill('10');
    const budget = page.getByRole('group', { name: 'Budget', exact: true });
    await budget.getByLabel('Set a money budget').check();
    await budget.getByLabel('In total (EUR)').fill('500');
    await budget.getByLabel('In one day (EUR)').fill('50');
    await budget.getByLabel('To one customer (EUR)').fill('20');
    await budget.getByLabel('When a discount would go over the budget').selectOption({ label: 'Give what is left' });
    await budget.getByLabel('Notify at (% of the total spent, e.g. 50, 80)').fill('50, 80');
    // Double loyalty points on the orders that use it (docs/wallets.md "A redeem as the order's report").
    await page
      .getByRole('group', { name: 'Loyalty points' })
      .getByLabel('Points multiplier (e.g. 2 for double points; empty: normal points)')
      .fill('2');
    await page
      .getByTestId('summary-budget')
      .filter({
        hasText: `Stops when it has given away ${euros(500)} in total, ${euros(50)} in one day and ${euros(20)} to one customer. A discount that would go over it: it gives what is left. You are notified at 50% and 80% of the total spent.`,
      })
      .waitFor();
    await page.getByTestId('rule-texts').waitFor();
    await clean(page);
    await shot(page, 'budget-fields.png', ...withSummary(page, 'Budget'));
    await create(page, name);

    const saved = await storedCampaign(name);
    expect(saved.budget).to.deep.equal({
      total: 500,
      per_day: 50,
      per_week: null,
      per_month: null,
      per_customer: 20,
      when_exceeded: 'cap',
      notify_at: [50, 80],
    });
    expect(saved.earning_multiplier).to.equal(2);
    await savedUnchanged(page, saved);

    // A redeem of 10% of 1,000.00 is capped at what one customer may get: 20.00.
    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'budget-buyer', coupon_details: [{ coupon_code: 'BUDGET10' }], order: makeOrder() },
    });
    expect(redeemed.status, redeemed.text).to.equal(200);
    const usage = (await adminCall('GET', `/applications/${app.id}/campaigns/${saved.id}/usage`)).body;
    expect(usage.budget).to.deep.include({ when_exceeded: 'cap', share_spent: 4 });
    expect(usage.budget.total).to.deep.equal({ budget: 500, spent: 20, left: 480 });
    expect(usage.budget.per_day).to.deep.include({ budget: 50, spent: 20, left: 30 });

    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${saved.id}/edit`);
    await page.getByRole('heading', { name: 'Budget used' }).waitFor();
    await page
      .getByTestId('budget-total')
      .filter({ hasText: `${euros(20)} spent, ${euros(480)} left of ${euros(500)}` })
      .waitFor();
    expect(await page.getByTestId('budget-share').innerText()).to.equal('4% of the total budget spent');
    expect(await page.getByTestId('budget-day').innerText()).to.equal(`${euros(20)} spent, ${euros(30)} left of ${euros(50)}`);
    expect(await page.getByRole('meter', { name: 'In total: share of the budget spent' }).getAttribute('value')).to.equal('20');
    expect(await page.getByTestId('budget-week').count()).to.equal(0); // no weekly cap
    await page.getByTestId('summary-budget').waitFor();
    await clean(page);
    await shot(
      page,
      'budget-used.png',
      page.getByRole('heading', { name: `Edit ${name}`, level: 1 }),
      page.getByRole('region', { name: 'Budget used' }),
    );

    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    const row = page.getByRole('row').filter({ hasText: name });
    await row
      .getByTestId('money-budget')
      .filter({ hasText: `${euros(20)} spent, ${euros(480)} left of ${euros(500)}` })
      .waitFor();
    await page.context().close();
  });

  const skus = (...values: string[]) => ({ match: 'AND', properties: [{ property: 'sku', operator: 'in', values }] });
  const kinds: {
    name: string;
    code: string;
    words: string;
    discount: Record<string, unknown>;
    more?: Record<string, unknown>;
    /** docs/console.md's picture of its editor form. */
    picture?: string;
  }[] = [
    {
      name: 'Tote bag gift',
      code: 'GIFT1',
      words: 'Free gift',
      discount: {
        kind: 'discount',
        type: 'free_gift',
        gift: { product_id: 'tote', sku: 'TOTE-1', name: 'Tote bag', quantity: 1, value: 5 },
        max_gifts: 100,
      },
      more: { budget: { total: 300, when_exceeded: 'refuse', notify_at: [80] } },
      picture: 'promotion-kind-free-gift.png',
    },
    {
      name: 'Shirt and socks set',
      code: 'SET1',
      words: 'Bundle price',
      discount: {
        kind: 'discount',
        type: 'bundle',
        bundle: [
          { items: skus('SKU1'), quantity: 1 },
          { items: skus('SKU2'), quantity: 2 },
        ],
        price: 700,
        max_repeats: 1,
      },
      picture: 'promotion-kind-bundle.png',
    },
    {
      name: 'Shipping on us',
      code: 'SHIP0',
      words: 'Free shipping',
      discount: { kind: 'discount', type: 'free_shipping' },
      more: { discount_calculated_on_property: 'shipping' },
      picture: 'promotion-kind-free-shipping.png',
    },
    {
      name: 'Cashback amount off',
      code: 'BACK50',
      words: 'Amount off',
      discount: { kind: 'cashback', type: 'flat', value: 50, max: null },
      more: { budget: { per_month: 1000, when_exceeded: 'cap' } },
    },
    {
      name: 'Any three, one half off',
      code: 'HALF3',
      words: 'Buy X get Y',
      discount: {
        kind: 'discount',
        type: 'buy_x_get_y',
        buy: { quantity: 2, items: null },
        get: { quantity: 1, items: skus('SKU1'), percent_off: 50 },
        max_repeats: 3,
        max: 400,
      },
    },
  ];
  // One test per kind: each opens one campaign, so its time is one page's, whatever the number of kinds.
  for (const k of kinds)
    it(`when a saved campaign of the kind "${k.words}" (${k.name}) is opened in the editor and saved unchanged, then the API has it exactly as before`, async () => {
      const page = await signedIn();
      const made = await adminCall('POST', `/applications/${app.id}/campaigns`, {
        name: k.name,
        code: k.code,
        discount: k.discount,
        ...k.more,
      });
      expect(made.status, `${k.name}: ${made.text}`).to.equal(201);
      const before = await storedCampaign(k.name);
      await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${before.id}/edit`);
      await page.getByRole('heading', { name: `Edit ${k.name}` }).waitFor();
      expect(await page.getByLabel('What the customer gets').locator('option:checked').innerText(), k.name).to.equal(k.words);
      await clean(page);
      if (k.picture) {
        await page.getByTestId('rule-texts').waitFor();
        await shot(page, k.picture, ...withSummary(page, 'Discount'));
      }
      await savedUnchanged(page, before);
      await page.context().close();
    });

  it('when a cart is tried with a free gift code, then Try a cart lists the gift the explain answer names, in euros', async () => {
    const made = await adminCall('POST', `/applications/${app.id}/campaigns`, {
      name: 'Umbrella gift',
      code: 'UMBRELLA',
      discount: {
        kind: 'discount',
        type: 'free_gift',
        gift: { product_id: 'umb', sku: 'UMB-1', name: 'Umbrella', quantity: 2, value: 7.5 },
      },
    });
    expect(made.status, made.text).to.equal(201);
    const explained = await adminCall('POST', `/applications/${app.id}/explain`, { code: 'UMBRELLA', order: makeOrder() });
    expect(explained.status, explained.text).to.equal(200);
    expect(explained.body.results[0].free_gifts).to.deep.equal([
      { product_id: 'umb', sku: 'UMB-1', name: 'Umbrella', quantity: 2, value: 7.5 },
    ]);

    const page = await signedIn();
    await page.goto(`${api.url}/console/#/applications/${app.id}/try`);
    await page.getByRole('heading', { name: 'Try a cart' }).waitFor();
    await page.getByLabel('Code', { exact: true }).fill('UMBRELLA');
    await page.getByRole('button', { name: 'Try it' }).click();
    const gifts = page.getByTestId('free-gifts');
    await gifts.waitFor();
    expect(await gifts.getByRole('listitem').allInnerTexts()).to.deep.equal([`2 × Umbrella (SKU UMB-1) — free, worth ${euros(7.5)} each`]);
    // The verdict and the discount row in words: no "0.00 off", no type or base by its wire name, no JSON.
    const verdict = page.getByRole('article', { name: 'Umbrella gift: applicable' });
    expect(await verdict.getByTestId('verdict').innerText()).to.equal('applicable: a free gift (below)');
    const discountRow = verdict.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Discount', exact: true }) });
    const said = await discountRow.innerText();
    expect(said, said).to.include('Free gift, on the order subtotal');
    expect(said, said).to.include(`2 × Umbrella (SKU UMB-1), worth ${euros(7.5)} each`);
    expect(said).to.not.match(/free_gift|selling_price_subtotal|[{}]/);
    await clean(page);
    await shot(
      page,
      'try-a-cart-free-gift.png',
      page.getByRole('form', { name: 'Cart to try' }),
      page.getByRole('article', { name: 'Umbrella gift: applicable' }).getByRole('heading'),
      gifts,
    );
    await page.context().close();
  });
});
