/**
 * A campaign for some loyalty tiers (docs/wallets.md "Tiers") built in the campaign editor, in
 * Debian's Chromium against a real API, database and Redis, on a 360 px wide screen: with no wallet
 * that has tiers the editor says where to set them up; then only the wallets with tiers are offered,
 * by name, with their levels to tick; no level ticked is refused beside the levels in words; the
 * admin API stores exactly the wallet and level chosen, the editor's In short box and the campaigns
 * list say it, and validate refuses a customer at the lowest level with the tier's message. No
 * sideways scrolling, no covered control, no serious axe-core violation. The screenshot of
 * docs/console.md is taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, coveredControls, seriousViolations, sidewaysScroll, signInToConsole } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { createCustomers, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console campaign tiers password 1';
const LEVELS = [
  { name: 'Member', min_points: 0, earning_multiplier: 1 },
  { name: 'Silver', min_points: 500, earning_multiplier: 1.2 },
  { name: 'Gold', min_points: 1000, earning_multiplier: 1.5 },
  { name: 'Platinum', min_points: 5000, earning_multiplier: 2 },
];

describe('console: a campaign for some loyalty tiers in a real browser, 360 px wide', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  let app: TestApplication;
  const email = `campaign-tiers-owner-${process.pid}@example.com`;
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
    await createCustomers(api.services, app.id, ['new-member']);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const signedIn = () => signInToConsole(browser, api.url, email, PASSWORD);

  async function clean(page: Page) {
    expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
    expect(await coveredControls(page)).to.deep.equal([]);
    const v = await seriousViolations(page);
    expect(v, v.join('\n')).to.deep.equal([]);
  }

  /** A new campaign's editor on a fresh page (the wallets read anew), with a name, code and value. */
  async function newCampaign(page: Page) {
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/new`);
    await page.reload();
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Gold ten');
    await page.getByLabel('Code', { exact: true }).fill('GOLD10');
    await page.getByLabel('Value (%)').fill('10');
  }

  it('when a manager makes a campaign for Gold in the editor, then the API stores that wallet and level and a customer at the lowest level is refused with the tier message', async () => {
    const page = await signedIn();
    const tiers = page.getByRole('group', { name: 'Loyalty tiers', exact: true });

    // No wallet has tiers yet: the editor says where to set them up.
    await newCampaign(page);
    await tiers.getByLabel('Who can use it').selectOption({ label: 'Only customers at these tiers' });
    const none = tiers.getByTestId('no-tier-wallets');
    await none.waitFor();
    expect(await none.innerText()).to.contain('No wallet has tiers yet. Set them up on the wallets page');
    expect(await none.getByRole('link', { name: 'wallets page' }).getAttribute('href')).to.equal(`#/applications/${app.id}/wallets`);

    // A wallet without tiers and one with them: only the second is offered, by its name.
    for (const wallet of [
      { wallet_id: 'plain', wallet_name: 'Plain points' },
      { wallet_id: 'club', wallet_name: 'Loyalty club', tiers: { period: 'year', levels: LEVELS } },
    ]) {
      const made = await adminCall('POST', `/applications/${app.id}/wallets`, wallet);
      expect(made.status, made.text).to.equal(201);
    }
    await newCampaign(page);
    expect(await page.getByTestId('summary-tiers').innerText()).to.equal('Customers at every tier can use it.');
    await tiers.getByLabel('Who can use it').selectOption({ label: 'Only customers at these tiers' });
    const wallet = tiers.getByLabel('Tiers of the wallet');
    expect(await wallet.locator('option').allInnerTexts()).to.deep.equal(['Loyalty club']);
    const levels = tiers.getByRole('group', { name: 'Levels it is for (one or more)' });
    expect(await levels.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.parentElement!.textContent!.trim()))).to.deep.equal(
      LEVELS.map((l) => l.name),
    );

    // No level ticked: the preview's refusal is said beside the levels, in words.
    await levels.getByText("Tick one or more of the wallet's levels (only levels it has now).").waitFor();
    expect(await levels.getAttribute('aria-describedby')).to.equal('error-tiers.levels');

    await levels.getByLabel('Gold').check();
    await page.getByTestId('rule-texts').getByText('coupon is for Gold members only').waitFor();
    expect(await levels.getByText("Tick one or more of the wallet's levels").count()).to.equal(0);
    expect(await page.getByTestId('summary-tiers').innerText()).to.equal('Only customers at Gold in Loyalty club can use it.');
    await clean(page);
    await tiers.screenshot({ path: join(SHOTS, 'campaign-tiers.png') });

    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Edit Gold ten' }) });
    expect(await row.getByTestId('tier-rule').innerText()).to.equal('Gold members only');

    const listed = await adminCall('GET', `/applications/${app.id}/campaigns?limit=100`);
    const saved = (listed.body.campaigns as { id: string; name: string; tiers: unknown }[]).find((c) => c.name === 'Gold ten');
    expect(saved?.tiers).to.deep.equal({ wallet_id: 'club', levels: ['Gold'] });

    // Opened again, the editor shows the choice as saved.
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${saved!.id}/edit`);
    await page.getByRole('heading', { name: 'Edit Gold ten' }).waitFor();
    expect(await tiers.getByLabel('Who can use it').locator('option:checked').innerText()).to.equal('Only customers at these tiers');
    expect(await levels.getByLabel('Gold').isChecked()).to.equal(true);
    expect(await levels.getByLabel('Silver').isChecked()).to.equal(false);
    await clean(page);

    // A customer with no points is at the lowest level, Member: refused with the tier's message.
    const validated = await call(api.url, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { source_id: 'new-member', coupon_details: [{ coupon_code: 'GOLD10' }], order: makeOrder() },
    });
    expect([validated.status, validated.body.is_applicable, validated.body.message, validated.headers.get('coupon-reason')]).to.deep.equal([
      200,
      false,
      'coupon is for Gold members only',
      'tier_rule',
    ]);
    await page.context().close();
  });
});
