/**
 * The console's gift cards page (docs/gift-cards.md) in Debian's Chromium against a real API,
 * database and Redis, on a 360 px wide screen: an owner turns gift cards at checkout on, issues a
 * card (amounts in the application's currency), sees a taken code refused beside its field, imports
 * a CSV file whose bad line is named (nothing imported) and then a good one, tops a card up and
 * disables it — every change in the audit log. No sideways scrolling, no serious axe violation. The
 * screenshot of docs/console.md is taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip, inCurrency, seriousViolations, sidewaysScroll, signInToConsole } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

const PASSWORD = 'console gift cards password 1';
const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');

describe('console: gift cards in a real browser, 360 px wide', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  const email = `gift-owner-${process.pid}@example.com`;
  const adminCall = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });

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
  const noSidewaysScroll = async (page: Page) => expect(await sidewaysScroll(page)).to.deep.equal({ scroll: 0, spilling: [] });
  const inr = (n: number) => inCurrency(n, 'INR');

  it('when an owner issues, imports, tops up and disables gift cards, then the page says it in the shop’s currency and the API and audit log have it', async () => {
    const name = `Gift shop ${process.pid}`;
    const app = (await adminCall('POST', '/applications', { name, currency: 'INR', timezone: 'Asia/Kolkata' })).body as { id: string };
    await adminCall('PATCH', `/applications/${app.id}`, { gift_cards_at_checkout: true });
    const page = await signedIn();
    await page.goto(`${api.url}/console/#/applications/${app.id}/gift-cards`);
    await page.getByRole('heading', { name: 'Gift cards and store credit' }).waitFor();
    await page.getByText('Customers pay with these at checkout').waitFor();

    const issue = page.getByRole('form', { name: 'Issue a gift card' });
    await issue.getByLabel('Amount').fill('50');
    await issue.getByLabel('Code (leave empty to make one)').fill('xmas-0001');
    await issue.getByLabel('Note').fill('Sold at the till');
    // The expiry day is read on the shop's clock: the end of 31 January in Kolkata, whatever the browser's zone.
    await issue.getByLabel('Expires after (optional; the end of that day, Asia/Kolkata)').fill('2027-01-31');
    await issue.getByRole('button', { name: 'Issue gift card' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Gift card XMAS-0001 issued with ${inr(50)}.` })
      .waitFor();
    const issued = (await adminCall('GET', `/applications/${app.id}/gift-cards`)).body.gift_cards as { code: string; expires_at: string }[];
    expect(issued.find((c) => c.code === 'XMAS-0001')?.expires_at).to.equal('2027-01-31T18:29:59.000Z');
    const row = page.getByRole('row').filter({ hasText: 'XMAS-0001' });
    await row.filter({ hasText: inr(50) }).waitFor();

    // The same code again: refused beside the code field.
    await issue.getByLabel('Amount').fill('5');
    await issue.getByLabel('Code (leave empty to make one)').fill('XMAS-0001');
    await issue.getByRole('button', { name: 'Issue gift card' }).click();
    await page.locator('[id="field-code-error"]').filter({ hasText: 'a gift card with code XMAS-0001 exists' }).waitFor();
    expect(await issue.getByLabel('Code (leave empty to make one)').getAttribute('aria-invalid')).to.equal('true');

    // A CSV file with a bad line: named, nothing imported; then a good file.
    const importForm = page.getByRole('form', { name: 'Import gift cards' });
    await importForm
      .getByLabel('CSV file')
      .setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('code,amount\nCSV-0001,25\nCSV-0002,lots\n') });
    await page.getByRole('alert').filter({ hasText: 'line 3:' }).waitFor();
    expect((await adminCall('GET', `/applications/${app.id}/gift-cards`)).body.gift_cards).to.have.length(1);
    await importForm.getByLabel('CSV file').setInputFiles({
      name: 'good.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('code,amount,note\nCSV-0001,25,batch A\nCSV-0002,12.50,batch A\n'),
    });
    await page.getByRole('status').filter({ hasText: '2 gift cards imported.' }).waitFor();
    await page
      .getByRole('row')
      .filter({ hasText: 'CSV-0002' })
      .filter({ hasText: inr(12.5) })
      .waitFor();

    // Top up and disable XMAS-0001.
    await row.getByLabel('Add to XMAS-0001').fill('10');
    await row.getByRole('button', { name: 'Top up' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `XMAS-0001 topped up: its balance is ${inr(60)}.` })
      .waitFor();
    await row.getByRole('button', { name: 'Disable XMAS-0001' }).click();
    await row.filter({ hasText: 'Disabled: cannot pay' }).waitFor();
    await noSidewaysScroll(page);
    {
      const v = await seriousViolations(page);
      expect(v, v.join('\n')).to.deep.equal([]);
    }
    // The list scrolls sideways on a phone: shown from its first column.
    await page.getByRole('region', { name: 'Gift cards, scrolls sideways' }).evaluate((e) => e.scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, 'gift-cards.png'), fullPage: true });

    const cards = (await adminCall('GET', `/applications/${app.id}/gift-cards`)).body.gift_cards as {
      code: string;
      balance: number;
      status: string;
    }[];
    expect(cards.map((c) => [c.code, c.balance, c.status]).sort()).to.deep.equal([
      ['CSV-0001', 25, 'active'],
      ['CSV-0002', 12.5, 'active'],
      ['XMAS-0001', 60, 'disabled'],
    ]);
    const audit = await adminCall('GET', `/audit?application=${app.id}&target_type=gift_card`);
    expect(audit.body.entries.map((e: { action: string }) => e.action).sort()).to.deep.equal([
      'gift_card.import',
      'gift_card.issue',
      'gift_card.top_up',
      'gift_card.update',
    ]);
    await page.context().close();
  });
});
