/**
 * A campaign's results in the console (docs/results.md, docs/console.md "Results"), in Debian's
 * Chromium against a real API, worker, database and Redis: a campaign with limits and a money
 * budget, redeemed, refused and reverted through the client routes; its results page then shows
 * the admin API's figures under the campaign's name — headline figures in euros, a table beside
 * each chart with one row per day (or hour) equal to the API's series, refusals by reason in words,
 * each limit's burn as a sentence — and downloads the API's CSV; the campaigns list sums the last 30
 * days up in one call with a chart whose table is there for screen readers; a viewer reads it all.
 * At 360 px: no sideways scrolling, no covered control, no serious axe-core violation. The
 * screenshots of docs/console.md are taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import {
  LOCALE,
  PHONE,
  chromiumOrSkip,
  coveredControls,
  euros,
  seriousViolations,
  sidewaysScroll,
  signInToConsole,
} from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { createCustomers, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console results password 1';
const TIMEZONE = 'Europe/Paris';
const TABLET = { width: 720, height: 900 };

interface Row {
  period: string;
  redemptions: number;
  reverts: number;
  discount: number;
  cashback: number;
}
interface Limit {
  what: string;
  period: string;
  limit: number;
  used: number;
  left: number;
  per_hour: number;
  runs_out_at: string | null;
}

/** A bucket as the console's tables name it in en-US: a day "Thu, Dec 3", an hour of one day "02:00 PM". */
function bucketName(period: string): string {
  const [y, m, d, h] = period.split(/[-T]/).map(Number) as [number, number, number, number | undefined];
  const at = new Date(Date.UTC(y, m - 1, d, h ?? 0));
  const options: Intl.DateTimeFormatOptions =
    h === undefined ? { weekday: 'short', day: 'numeric', month: 'short' } : { hour: '2-digit', minute: '2-digit' };
  return new Intl.DateTimeFormat(LOCALE, { ...options, timeZone: 'UTC' }).format(at);
}

/** `YYYY-MM-DD` of an instant on the application's clock. */
const dayOf = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: TIMEZONE }).format(at);

/** When a limit runs out, said as a manager reads it: "today at 07:15 PM", "tomorrow at …", "on 5 December 2026 at …". */
function runsOutWords(iso: string, asOf: string): string {
  const at = new Date(iso);
  const time = new Intl.DateTimeFormat(LOCALE, { hour: '2-digit', minute: '2-digit', timeZone: TIMEZONE }).format(at);
  const day = dayOf(at);
  const today = dayOf(new Date(asOf));
  const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  if (day === today) return `today at ${time}`;
  if (day === tomorrow) return `tomorrow at ${time}`;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return `on ${new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })} at ${time}`;
}

describe('console: campaign results in a real browser', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  let app: TestApplication;
  let campaign: { id: string };
  let quiet: { id: string };
  const emails = { owner: `results-owner-${process.pid}@example.com`, viewer: `results-viewer-${process.pid}@example.com` };
  const adminCall = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });
  const results = async (query = '') => {
    const res = await adminCall('GET', `/applications/${app.id}/campaigns/${campaign.id}/results${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    mkdirSync(SHOTS, { recursive: true });
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    for (const role of ['owner', 'viewer'] as const) {
      const made = await adminCall('POST', '/operators', { email: emails[role], role, password: PASSWORD });
      expect(made.status, made.text).to.equal(201);
    }
    app = await createTestApplication(api.services, { currency: 'EUR', timezone: TIMEZONE });
    await createCustomers(api.services, app.id, ['ana', 'ben']);
    const made = await adminCall('POST', `/applications/${app.id}/campaigns`, {
      name: 'Autumn five',
      code: 'AUTUMN5',
      discount: { kind: 'discount', type: 'flat', value: 5 },
      limits: { total: 5, per_customer: 2, per_day: 100 },
      budget: { total: 100 },
    });
    expect(made.status, made.text).to.equal(201);
    campaign = made.body;
    const other = await adminCall('POST', `/applications/${app.id}/campaigns`, {
      name: 'Quiet one',
      code: 'QUIET',
      discount: { kind: 'discount', type: 'flat', value: 1 },
    });
    expect(other.status, other.text).to.equal(201);
    quiet = other.body;

    // Three redeems, a fourth refused (ana's two uses are spent), a validate refused for the same
    // reason, then ana's first order reverted: 2 redemptions stand, 1 reverted, 2 refusals.
    const apply = (type: 'redeem' | 'revert', who: string, order: ReturnType<typeof makeOrder>) =>
      call(api.url, 'POST', `/coupons/apply?type=${type}`, {
        auth: app.auth,
        body: { source_id: who, coupon_details: [{ coupon_code: 'AUTUMN5' }], order },
      });
    const first = makeOrder();
    for (const [who, order] of [
      ['ana', first],
      ['ben', makeOrder()],
      ['ana', makeOrder()],
    ] as const) {
      const redeemed = await apply('redeem', who, order);
      expect(redeemed.status, redeemed.text).to.equal(200);
    }
    const refused = await apply('redeem', 'ana', makeOrder());
    expect([refused.status, refused.headers.get('coupon-reason')]).to.deep.equal([400, 'per_user_limit']);
    const validated = await call(api.url, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { source_id: 'ana', coupon_details: [{ coupon_code: 'AUTUMN5' }], order: makeOrder() },
    });
    expect([validated.status, validated.headers.get('coupon-reason')]).to.deep.equal([200, 'per_user_limit']);
    const reverted = await apply('revert', 'ana', first);
    expect(reverted.status, reverted.text).to.equal(200);
    // Refusals and first-time customers are tallied in batches: written now, not in 2 s.
    await api.services.tally.flush();
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const signedIn = (role: 'owner' | 'viewer', viewport = PHONE) => signInToConsole(browser, api.url, emails[role], PASSWORD, viewport);

  /** `ownScroll`: a wide table (the campaigns list) may spill out of its own box, which scrolls; the page still must not. */
  async function clean(page: Page, ownScroll = false) {
    const sideways = await sidewaysScroll(page);
    expect(ownScroll ? sideways.scroll : sideways, sideways.spilling.slice(0, 5).join(', ')).to.deep.equal(
      ownScroll ? 0 : { scroll: 0, spilling: [] },
    );
    expect(await coveredControls(page)).to.deep.equal([]);
    const v = await seriousViolations(page);
    expect(v, v.join('\n')).to.deep.equal([]);
  }

  /** The rows of a table as text, cell by cell (its header row left out). */
  const tableRows = (page: Page, name: string) =>
    page
      .getByRole('table', { name, exact: true })
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c as unknown as { innerText: string }).innerText.trim())),
      );

  /** Each chart drawn (Recharts' lazily loaded chunk has arrived and laid out its picture). */
  const chartsDrawn = async (page: Page, n: number) => {
    const drawn = page.locator('.chart .recharts-wrapper > svg.recharts-surface');
    await drawn.nth(n - 1).waitFor();
    expect(await drawn.count()).to.equal(n);
  };

  /** The page's headline figures by their names. */
  const headline = async (page: Page) =>
    Object.fromEntries(
      await page
        .locator('[data-testid^="figure-"]')
        .evaluateAll((all) => all.map((e) => [e.getAttribute('data-testid')!.slice(7), (e as unknown as { innerText: string }).innerText])),
    );

  /** The figures the API answers, as the page must say them in euros (en-US). */
  const expectedHeadline = (r: { totals: Record<string, number | null> }) => ({
    redemptions: String(r.totals.redemptions),
    discount: euros(r.totals.discount!),
    cashback: euros(r.totals.cashback!),
    basket: euros(r.totals.basket!),
    'average-discount': euros(r.totals.average_discount!),
    'budget-spent': euros(r.totals.budget_spent!),
    'new-customers': String(r.totals.new_customers),
    customers: String(r.totals.customers),
    refusals: String(r.totals.refusals),
  });

  it("when an owner opens a campaign's results, then the page says the API's figures under its name, a table beside each chart has one row per day or hour, limits burn in words and the CSV is the API's", async () => {
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${campaign.id}/results`);
    await page.getByRole('heading', { name: 'Results of Autumn five', level: 1 }).waitFor();
    await page.getByTestId('figure-redemptions').waitFor();
    const byDay = await results();
    // The API's own figures first (what the page must say): 2 stand, 1 reverted, 2 refused.
    expect(byDay.totals).to.deep.equal({
      redemptions: 2,
      reverts: 1,
      discount: 10,
      cashback: 0,
      basket: 2000,
      average_discount: 5,
      budget_spent: 10,
      new_customers: 2,
      refusals: 2,
      customers: 2,
    });
    expect(await headline(page)).to.deep.equal(expectedHeadline(byDay));
    expect(await page.getByRole('radio', { name: 'Last 30 days' }).isChecked()).to.equal(true);

    // Each chart is a picture named for what it shows, with its table beside it: one row per day.
    for (const name of ['Redemptions and reverts by day', 'Discount given by day'])
      expect(await page.getByRole('img', { name: `Chart: ${name}. The same figures are in the table “${name}”.` }).count()).to.equal(1);
    const series = byDay.series as Row[];
    expect(series).to.have.length(30);
    expect(await tableRows(page, 'Redemptions and reverts by day')).to.deep.equal(
      series.map((s) => [bucketName(s.period), String(s.redemptions), String(s.reverts)]),
    );
    expect(await tableRows(page, 'Discount given by day')).to.deep.equal(series.map((s) => [bucketName(s.period), euros(s.discount)]));
    expect(series.at(-1)).to.include({ redemptions: 2, reverts: 1, discount: 10 });

    // Refusals by reason, in words (the reason's stable name on hover).
    expect(byDay.refusals_by_reason).to.deep.equal({ per_user_limit: 2 });
    expect(await tableRows(page, 'Refusals by reason, the most frequent first')).to.deep.equal([
      ['This customer has used it as often as allowed', '2'],
    ]);
    expect(await page.getByText('This customer has used it as often as allowed').getAttribute('title')).to.equal('per_user_limit');

    // Each limit's burn: what is left and, at the pace of the last 24 hours, when it runs out.
    const limits = byDay.limits as Limit[];
    expect(limits.map((l) => [l.what, l.period, l.limit, l.used, l.left])).to.deep.equal([
      ['redemptions', 'total', 5, 2, 3],
      ['redemptions', 'per_day', 100, 2, 98],
      ['budget', 'total', 100, 10, 90],
    ]);
    const [total, perDay, budget] = limits as [Limit, Limit, Limit];
    expect(perDay.runs_out_at, 'two a day do not use up 98 today').to.equal(null);
    const burn = async (id: string) => page.getByTestId(id).getByTestId('burn-words').innerText();
    expect(await burn('burn-redemptions-total')).to.equal(
      `3 of 5 left; at the pace of the last 24 hours (about 2 redemptions a day), runs out ${runsOutWords(total.runs_out_at!, byDay.as_of)}.`,
    );
    expect(await burn('burn-redemptions-per_day')).to.equal(
      '98 of 100 left; at the pace of the last 24 hours (about 2 redemptions a day), it will not run out today.',
    );
    expect(await burn('burn-budget-total')).to.equal(
      `${euros(90)} of ${euros(100)} left; at the pace of the last 24 hours (${euros(budget.per_hour)} an hour), runs out ${runsOutWords(budget.runs_out_at!, byDay.as_of)}.`,
    );
    expect(await page.getByTestId('burn-redemptions-per_day').locator('.budget-label').innerText()).to.match(
      /^Redemptions today \(\d{1,2} [A-Z][a-z]+ \d{4}\)$/,
    );

    await chartsDrawn(page, 2);
    await clean(page);
    await page.screenshot({ path: join(SHOTS, 'campaign-results-360.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 800 });
    await clean(page);
    await page.screenshot({ path: join(SHOTS, 'campaign-results-390.png'), fullPage: true });
    await page.setViewportSize(TABLET);
    await clean(page);
    await page.screenshot({ path: join(SHOTS, 'campaign-results.png'), fullPage: true });
    await page.setViewportSize(PHONE);

    // Today hour by hour: 24 rows, each the API's hour.
    await page.getByRole('radio', { name: 'Today, hour by hour' }).check();
    await page.getByRole('table', { name: 'Redemptions and reverts by hour', exact: true }).waitFor();
    const today = byDay.to as string;
    const byHour = await results(`?bucket=hour&from=${today}&to=${today}`);
    const hours = byHour.series as Row[];
    expect(hours).to.have.length(24);
    expect(await tableRows(page, 'Redemptions and reverts by hour')).to.deep.equal(
      hours.map((s) => [bucketName(s.period), String(s.redemptions), String(s.reverts)]),
    );
    expect(await headline(page)).to.deep.equal(expectedHeadline(byHour));
    await chartsDrawn(page, 2);
    await clean(page);

    // The CSV of what is shown: the API's file, under its own name.
    const link = page.getByRole('link', { name: 'Download CSV' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).to.equal(`Autumn-five-${today}-${today}-hour.csv`);
    const file = readFileSync((await download.path())!, 'utf8');
    const csv = await adminCall(
      'GET',
      `/applications/${app.id}/campaigns/${campaign.id}/results?bucket=hour&from=${today}&to=${today}&format=csv`,
    );
    expect(csv.status).to.equal(200);
    expect(file).to.equal(csv.text);
    expect(file.trim().split('\n')).to.have.length(25);
    await page.context().close();
  });

  it('when the campaigns list opens, then it sums the last 30 days up from one call, with a chart whose table is read out, each campaign with its figures and a link to its results', async () => {
    const page = await signedIn('owner', TABLET);
    const asked: string[] = [];
    page.on('request', (r) => {
      if (/\/results(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search)) asked.push(new URL(r.url()).pathname);
    });
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    await page.getByRole('heading', { name: 'Campaigns', level: 1 }).waitFor();
    const summary = page.getByRole('region', { name: 'Last 30 days' });
    await summary.getByTestId('summary-totals').waitFor();
    const all = await adminCall('GET', `/applications/${app.id}/results`);
    expect(all.body.totals).to.include({ redemptions: 2, reverts: 1, discount: 10, refusals: 2 });
    expect(await summary.getByTestId('summary-totals').innerText()).to.match(
      new RegExp(`^2 redemptions \\(and 1 reverted since\\), ${euros(10).replace('.', '\\.')} discount given, 2 refusals\\. `),
    );

    // The chart's table is there for a screen reader before it is shown, one row per day.
    const name = 'Redemptions of every campaign by day';
    expect(await tableRows(page, name)).to.deep.equal((all.body.series as Row[]).map((s) => [bucketName(s.period), String(s.redemptions)]));
    const show = summary.getByRole('button', { name: 'Show as table' });
    expect(await show.getAttribute('aria-expanded')).to.equal('false');
    expect(await page.getByRole('table', { name, exact: true }).isVisible()).to.equal(true); // clipped, not hidden from assistive technology
    await show.click();
    expect(await summary.getByRole('button', { name: 'Hide the table' }).getAttribute('aria-expanded')).to.equal('true');
    expect(await summary.getByRole('region', { name }).boundingBox())
      .to.have.property('height')
      .above(100);

    const row = (campaignName: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: `Edit ${campaignName}` }) });
    expect(await row('Autumn five').getByTestId('last-30-days').innerText()).to.equal(`2 redemptions, ${euros(10)} discount`);
    expect(await row('Quiet one').getByTestId('last-30-days').innerText()).to.equal(`0 redemptions, ${euros(0)} discount`);
    expect(await page.getByRole('link', { name: 'Results of Quiet one' }).getAttribute('href')).to.equal(
      `#/applications/${app.id}/campaigns/${quiet.id}/results`,
    );
    await chartsDrawn(page, 1);
    const v = await seriousViolations(page);
    expect(v, v.join('\n')).to.deep.equal([]);
    await summary.screenshot({ path: join(SHOTS, 'campaigns-results-summary.png') });
    // One call for the whole list, never one per campaign: every results call is the application's
    // (the page refreshes it every 30 s, which a loaded machine reaches within this test: CI saw two).
    expect(asked.length).to.be.above(0);
    expect([...new Set(asked)]).to.deep.equal([`/admin/applications/${app.id}/results`]);

    await page.getByRole('link', { name: 'Results of Autumn five' }).click();
    await page.getByRole('heading', { name: 'Results of Autumn five', level: 1 }).waitFor();

    // The campaign editor links to the same page.
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${campaign.id}/edit`);
    await page.getByRole('heading', { name: 'Edit Autumn five', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Results', exact: true }).getAttribute('href')).to.equal(
      `#/applications/${app.id}/campaigns/${campaign.id}/results`,
    );
    await page.context().close();
  });

  it('when a viewer opens the campaigns list and a campaign’s results, then they read the same figures (a read-only role reads everything here)', async () => {
    const page = await signedIn('viewer');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns`);
    const summary = page.getByRole('region', { name: 'Last 30 days' });
    await summary.getByTestId('summary-totals').waitFor();
    expect(await summary.getByTestId('summary-totals').innerText()).to.match(/^2 redemptions \(and 1 reverted since\)/);
    await chartsDrawn(page, 1);
    await clean(page, true);
    await page.getByRole('link', { name: 'Results of Autumn five' }).click();
    await page.getByRole('heading', { name: 'Results of Autumn five', level: 1 }).waitFor();
    await page.getByTestId('figure-redemptions').waitFor();
    expect(await headline(page)).to.deep.equal(expectedHeadline(await results()));
    expect(await page.getByTestId('burn-redemptions-total').getByTestId('burn-words').innerText()).to.match(/^3 of 5 left; /);
    await chartsDrawn(page, 2);
    await clean(page);
    await page.context().close();
  });
});
