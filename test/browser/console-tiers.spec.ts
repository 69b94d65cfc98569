/**
 * A wallet's tiers in the console (docs/wallets.md "Tiers") in Debian's Chromium against a real
 * API, worker, database and Redis, on a 360 px wide screen: an owner sets a wallet's tiers in the
 * wallet form (bad values refused beside their level in words, levels reordered), the admin API
 * then has exactly what was chosen and the audit log the change; a customer who earned points is
 * shown with their tier and progress, days on the wallet's clock. No sideways scrolling, no serious
 * axe violation. The screenshots of docs/console.md are taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { chromiumOrSkip, seriousViolations, sidewaysScroll, signInToConsole } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

const PASSWORD = 'console tiers password 1';
const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const ZONE = 'Asia/Kolkata';

describe('console: wallet tiers in a real browser, 360 px wide', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  const email = `tier-owner-${process.pid}@example.com`;
  const adminCall = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(api.url, method, `/admin${path}`, { headers: { ...ADMIN_HEADERS, ...headers }, ...(body === undefined ? {} : { body }) });

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    const made = await adminCall('POST', '/operators', { email, role: 'owner', password: PASSWORD });
    expect(made.status, made.text).to.equal(201);
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const signedIn = () => signInToConsole(browser, api.url, email, PASSWORD);
  const fitsAndAxeClean = async (page: Page) => {
    expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
    const v = await seriousViolations(page);
    expect(v, v.join('\n')).to.deep.equal([]);
  };
  const walletTiers = async (app: string) =>
    ((await adminCall('GET', `/applications/${app}/wallets`)).body.wallets as { wallet_id: string; tiers: unknown }[]).find(
      (w) => w.wallet_id === 'points',
    )!.tiers;
  const level = (form: Locator, n: number) => form.getByRole('group', { name: `Level ${n}`, exact: true });
  async function fillLevel(form: Locator, n: number, name: string, points: string | null, multiplier: string) {
    await level(form, n).getByLabel('Level name').fill(name);
    if (points !== null) await level(form, n).getByLabel('Points needed (earned in the period)').fill(points);
    await level(form, n).getByLabel('Points multiplier (× points; 1: as earned)').fill(multiplier);
  }

  it('when an owner sets a wallet’s tiers in its form, then the API stores exactly those levels and a customer who earned is shown with their tier and progress', async () => {
    const created = await adminCall('POST', '/applications', { name: `Tier shop ${process.pid}`, currency: 'INR', timezone: ZONE });
    expect(created.status, created.text).to.equal(201);
    const app = created.body.id as string;
    const wallet = await adminCall('POST', `/applications/${app}/wallets`, { wallet_id: 'points', wallet_name: 'Loyalty points' });
    expect(wallet.status, wallet.text).to.equal(201);

    const page = await signedIn();
    await page.goto(`${api.url}/console/#/applications/${app}/wallets`);
    await page.getByRole('heading', { name: 'Wallets' }).waitFor();
    expect(await page.getByTestId('tiers-points').innerText()).to.equal('none');
    await page.getByRole('button', { name: 'Edit wallet Loyalty points' }).click();
    const form = page.getByRole('form', { name: 'Edit wallet Loyalty points' });
    const assessed = form.getByLabel('Levels assessed');

    // A rolling window too long and a multiplier too high: refused beside their fields, nothing saved.
    await assessed.selectOption({ label: 'Over the last N months, checked every month' });
    await form.getByLabel('Number of months (1–24)').fill('30');
    await fillLevel(form, 1, 'Member', null, '1');
    await form.getByRole('button', { name: 'Add a level' }).click();
    await fillLevel(form, 2, 'Gold', '1000', '150');
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await form.locator('#field-tiers-months-error').filter({ hasText: 'Number of months must be at most 24.' }).waitFor();
    await level(form, 2).getByText('Points multiplier must be at most 100.').waitFor();
    expect(await form.getByLabel('Number of months (1–24)').getAttribute('aria-invalid')).to.equal('true');
    expect(await walletTiers(app)).to.equal(null);

    // Every calendar year; Platinum and Silver added last, Silver moved up to its place.
    await assessed.selectOption({ label: 'Every calendar year' });
    expect(await form.getByTestId('tiers-keeping').innerText()).to.contain(
      'keeps it until the end of the next year. At the end of that year they are assessed again on the points earned in it, and go down when they earned less.',
    );
    expect(await form.getByTestId('tiers-keeping').innerText()).to.contain(`on the wallet’s clock (${ZONE})`);
    await fillLevel(form, 2, 'Gold', '1000', '1.5');
    await form.getByRole('button', { name: 'Add a level' }).click();
    await fillLevel(form, 3, 'Platinum', '5000', '2');
    await form.getByRole('button', { name: 'Add a level' }).click();
    await fillLevel(form, 4, 'Silver', '400', '1.2');
    await form.getByRole('button', { name: 'Move level 4 up' }).click();
    await form.getByRole('button', { name: 'Move level 3 up' }).click();
    expect(await form.getByLabel('Level name').evaluateAll((inputs) => inputs.map((i) => (i as { value: string }).value))).to.deep.equal([
      'Member',
      'Silver',
      'Gold',
      'Platinum',
    ]);
    // Gold below Silver's points: the API names the level's field, so the refusal is said beside that level with the form's label.
    await level(form, 3).getByLabel('Points needed (earned in the period)').fill('300');
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await level(form, 3).locator('.field-error').filter({ hasText: 'Points needed must be more than the level before it' }).waitFor();
    expect(await walletTiers(app)).to.equal(null);
    await level(form, 3).getByLabel('Points needed (earned in the period)').fill('1000');
    await level(form, 2).getByLabel('Points needed (earned in the period)').fill('500');
    await fitsAndAxeClean(page);
    await form.getByRole('group', { name: 'Tiers', exact: true }).screenshot({ path: join(SHOTS, 'wallet-tiers.png') });
    await form.getByRole('button', { name: 'Save wallet' }).click();
    await page.getByRole('status').filter({ hasText: 'Wallet “Loyalty points” saved.' }).waitFor();

    const stored = {
      period: 'year',
      levels: [
        { name: 'Member', min_points: 0, earning_multiplier: 1 },
        { name: 'Silver', min_points: 500, earning_multiplier: 1.2 },
        { name: 'Gold', min_points: 1000, earning_multiplier: 1.5 },
        { name: 'Platinum', min_points: 5000, earning_multiplier: 2 },
      ],
    };
    expect(await walletTiers(app)).to.deep.equal(stored);
    expect((await page.getByTestId('tiers-points').innerText()).split('\n')).to.deep.equal([
      'Assessed every calendar year:',
      'Member: every customer, 1× points',
      'Silver: from 500 points earned, 1.2× points',
      'Gold: from 1,000 points earned, 1.5× points',
      'Platinum: from 5,000 points earned, 2× points',
    ]);
    const audit = await adminCall('GET', `/audit?application=${app}&target_type=wallet`);
    const updates = (audit.body.entries as { action: string; changes: Record<string, { after: unknown }> }[]).filter(
      (e) => e.action === 'wallet.update',
    );
    expect(updates).to.have.length(1);
    expect(Object.keys(updates[0]!.changes)).to.include('tiers');

    // A customer earns 3,200 points (an adjustment credit counts toward the tier): Gold, 1,800 short of Platinum.
    const upserted = await adminCall('POST', `/applications/${app}/customers`, { customers: [{ source_id: 'ana', name: 'Ana' }] });
    expect(upserted.status, upserted.text).to.equal(200);
    const credit = await adminCall(
      'POST',
      `/applications/${app}/customers/ana/wallets/points/adjustments`,
      { type: 'credit', points: 3200, reason: 'welcome gift' },
      { 'Idempotency-Key': `tier-credit-${process.pid}` },
    );
    expect(credit.status, credit.text).to.equal(200);
    const read = await adminCall('GET', `/applications/${app}/customers/ana/wallets/points/ledger`);
    expect(read.status, read.text).to.equal(200);
    const tier = read.body.tier as { until: string };
    // The current assessment ends when the year ends in Kolkata (the wallet's timezone, UTC+05:30).
    const year = Number(new Intl.DateTimeFormat('en-US', { timeZone: ZONE, year: 'numeric' }).format(new Date(Date.parse(tier.until) - 1)));
    expect(tier).to.deep.equal({
      level: 'Gold',
      held_level: 'Member',
      until: `${year}-12-31T18:30:00.000Z`,
      earned_points: 3200,
      earning_multiplier: 1.5,
      next_level: { name: 'Platinum', points_needed: 1800 },
    });

    await page.goto(`${api.url}/console/#/applications/${app}/customers/ana`);
    const shown = page.getByRole('group', { name: 'Tier in Loyalty points' });
    // Reached this year: kept through next year, then assessed on next year's points.
    await shown
      .getByTestId('tier')
      .filter({
        hasText: `Tier: Gold · 1.5× points · kept until 31 December ${year + 1} · 3,200 points earned this year · 1,800 more points to Platinum`,
      })
      .waitFor();
    const bar = shown.getByRole('progressbar', { name: 'Points earned toward Platinum' });
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).to.deep.equal(['3200', '5000']);
    await shown.getByText(`Days on the wallet's clock (${ZONE}).`).waitFor();
    await fitsAndAxeClean(page);
    await page.getByRole('region', { name: 'Ledger of points' }).screenshot({ path: join(SHOTS, 'customer-tier.png') });
    await page.context().close();
  });
});
