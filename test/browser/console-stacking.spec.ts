/**
 * The console's stacking settings in Debian's Chromium against a real API, database and Redis, on
 * a 360 px wide screen: an application's promotion settings (coupons per order, automatic
 * promotions) and a campaign's "Combining with other promotions" and "How customers get it", each
 * refused beside its field in a promotion manager's words when wrong, and stored exactly as chosen.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, PHONE, seriousViolations, signInToConsole } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

const PASSWORD = 'console stacking password 1';

/** The right edge of an element, in CSS pixels: within the screen's width when nothing spills out. */
const rightEdge = async (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((e) => e.getBoundingClientRect().right);

describe('console: stacking settings in a real browser, 360 px wide', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  const email = `stacking-owner-${process.pid}@example.com`;
  const adminCall = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    const made = await adminCall('POST', '/operators', { email, role: 'owner', password: PASSWORD });
    expect(made.status, made.text).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const signedIn = () => signInToConsole(browser, api.url, email, PASSWORD);

  /** An application as the admin API lists it, found across the listing's pages (the lane's database holds many). */
  async function stored(id: string): Promise<{ stacking: unknown; loyalty: unknown }> {
    let cursor: string | null = null;
    do {
      const page = (await adminCall('GET', `/applications?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body as {
        applications: { id: string; stacking: unknown; loyalty: unknown }[];
        next_cursor: string | null;
      };
      const found = page.applications.find((a) => a.id === id);
      if (found) return found;
      cursor = page.next_cursor;
    } while (cursor);
    throw new Error(`application ${id} is not listed`);
  }

  /**
   * The button named `name` on the Applications page. The lane's database holds the applications of
   * every test before this one and the page lists 50 at a time: "Load more" until it is there.
   */
  async function listed(page: Page, name: string) {
    const button = page.getByRole('button', { name });
    const more = page.getByRole('button', { name: 'Load more' });
    const rows = page.getByRole('button', { name: /^Promotion settings of / });
    await button.or(more).first().waitFor();
    while ((await button.count()) === 0) {
      const shown = await rows.count();
      await more.click();
      // Wait for the next page's first application (a page has a next only when rows follow it).
      // Not for "Load more" again: the button still reads so until React renders "Loading…" (React
      // Query notifies on a timer), and a second click then waited for a button the last page
      // removes — 30 s and a failure when the application sought was on the last page (a CI run).
      await rows.nth(shown).waitFor();
    }
    return button;
  }

  it('when an owner sets coupons per order and automatic promotions, then a wrong number is refused beside it, and the API has what was chosen, audited', async () => {
    const name = `Stacking shop ${process.pid}`;
    const app = (await adminCall('POST', '/applications', { name })).body as { id: string };
    const page = await signedIn();
    await listed(page, `Promotion settings of ${name}`).then((button) => button.click());
    const form = page.getByRole('form', { name: `Promotion settings of ${name}` });
    const count = form.getByLabel('Coupons per order (1–10)');
    expect(await count.inputValue()).to.equal('1');
    expect(await form.getByLabel('Apply automatic promotions').isChecked()).to.equal(false);
    expect(await rightEdge(page, 'form.settings-form')).to.be.at.most(PHONE.width);

    await count.fill('11');
    await form.getByRole('button', { name: 'Save settings' }).click();
    const error = form.locator('#error-max-coupons');
    expect(await error.innerText()).to.equal('Choose a whole number from 1 to 10.');
    expect(await count.getAttribute('aria-invalid')).to.equal('true');
    expect((await stored(app.id)).stacking).to.deep.equal({ max_coupons: 1, automatic_promotions: false });
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }

    await count.fill('3');
    await form.getByLabel('Apply automatic promotions').check();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: name });
    await row.getByTestId('coupons-per-order').filter({ hasText: '3, and automatic promotions' }).waitFor();
    expect((await stored(app.id)).stacking).to.deep.equal({ max_coupons: 3, automatic_promotions: true });
    const audit = await adminCall('GET', `/audit?target_id=${app.id}&action=application.update`);
    expect(audit.body.entries.map((e: { changes: { stacking: unknown } }) => e.changes.stacking)).to.deep.equal([
      { before: null, after: { maxCoupons: 3, automaticPromotions: true } },
    ]);

    // Earning on redeemed orders (docs/wallets.md "A redeem as the order's report"): off until chosen; only it is sent.
    await listed(page, `Promotion settings of ${name}`).then((button) => button.click());
    const earn = form.getByLabel('Earn points when a completed order uses a coupon');
    expect(await earn.isChecked()).to.equal(false);
    await earn.check();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.waitFor({ state: 'detached' });
    const after = await stored(app.id);
    expect([after.loyalty, after.stacking]).to.deep.equal([{ earn_on_redeem: true }, { max_coupons: 3, automatic_promotions: true }]);
    const audited = await adminCall('GET', `/audit?target_id=${app.id}&action=application.update`);
    expect(audited.body.entries.map((e: { changes: Record<string, unknown> }) => Object.keys(e.changes).sort())).to.deep.include([
      'loyalty',
    ]);
    await page.context().close();
  });

  it('when an owner builds an automatic promotion that combines with some categories, then the code field is hidden, a bad priority is refused in plain words, and the API stores exactly what was chosen', async () => {
    const app = (await adminCall('POST', '/applications', { name: `Editor stacking ${process.pid}` })).body as { id: string };
    const page = await signedIn();
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Weekend sitewide');
    expect(await page.getByLabel('Code', { exact: true }).count()).to.equal(1);
    await page.getByLabel('How customers get it').selectOption('automatic');
    expect(await page.getByLabel('Code', { exact: true }).count()).to.equal(0);
    expect(await page.getByLabel('Code type').count()).to.equal(0);
    await page.getByTestId('automatic-hint').waitFor();
    await page.getByLabel('Value (%)').fill('10');

    const section = page.getByRole('group', { name: 'Combining with other promotions' });
    await section.getByLabel('Priority (higher applies first)').fill('first');
    const error = page.locator('[id="error-stacking.priority"]');
    await error.waitFor();
    expect(await error.innerText()).to.equal('Enter a whole number from -1000 to 1000.');
    expect(await section.getByLabel('Priority (higher applies first)').getAttribute('aria-invalid')).to.equal('true');
    await section.getByLabel('Priority (higher applies first)').fill('5');
    await error.waitFor({ state: 'detached' });
    await section.getByLabel('Category (optional, e.g. sitewide or loyalty)').fill('sitewide');
    await section.getByLabel('Combines with').selectOption('only');
    await section.getByLabel('Categories it combines with (one per line or comma-separated)').fill('loyalty, shipping');
    await page.getByTestId('rule-texts').waitFor();
    for (const selector of ['form[aria-label="Campaign"]', 'fieldset:has(> legend:text("Combining with other promotions"))'])
      expect(await rightEdge(page, selector), selector).to.be.at.most(PHONE.width);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    await page.getByRole('link', { name: 'Edit Weekend sitewide' }).waitFor();

    const [made] = (await adminCall('GET', `/applications/${app.id}/campaigns`)).body.campaigns;
    expect(made).to.not.have.property('code');
    expect(made).to.deep.include({
      trigger: 'automatic',
      code_type: 'fixed',
      stacking: { priority: 5, category: 'sitewide', exclusive: false, combines_with: ['loyalty', 'shipping'] },
    });

    // Edited: applies only on its own; the way customers get it cannot change.
    await page.getByRole('link', { name: 'Edit Weekend sitewide' }).click();
    await page.getByRole('heading', { name: 'Edit Weekend sitewide' }).waitFor();
    expect(await page.getByLabel('How customers get it').isDisabled()).to.equal(true);
    expect(await page.getByLabel('How customers get it').inputValue()).to.equal('automatic');
    expect(await page.getByLabel('Categories it combines with (one per line or comma-separated)').inputValue()).to.equal(
      'loyalty, shipping',
    );
    await page.getByLabel('Applies only on its own').check();
    await page.getByTestId('rule-texts').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    const saved = (await adminCall('GET', `/applications/${app.id}/campaigns/${made.id}`)).body;
    expect(saved.stacking).to.deep.equal({ priority: 5, category: 'sitewide', exclusive: true, combines_with: ['loyalty', 'shipping'] });
    expect(saved.trigger).to.equal('automatic');
    await page.context().close();
  });
});
