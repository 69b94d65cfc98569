/**
 * The console's frame in Debian's Chromium: links only to what exists (the nav's "Metrics" only
 * when the API serves /metrics), a title of its own on every page, "Skip to content" as the first
 * thing a keyboard reaches, and a focus ring that can be seen.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { join, resolve } from 'node:path';
import { chromiumOrSkip, coveredControls, seriousViolations, sidewaysScroll, signInToConsole } from '../support/browser.js';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { createApplication } from '../../shared/usecases/admin/create-application.usecase.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';
import { createCampaign, createCustomers } from '../fixtures/records.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');

const PASSWORD = 'console test password 1';
const METRICS_TOKEN = 'metrics-token-0123456789';

describe('console: links, titles, skip link and focus ring in a real browser', function () {
  this.timeout(180_000);
  let browser: Browser;
  /** Metrics off (no METRICS_TOKEN), the usual test API. */
  let plain: TestApi;
  /** Metrics on. */
  let metered: TestApi;
  const email = `nav-owner-${process.pid}@example.com`;

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    plain = await startTestApi({ PASSWORD_HASH_COST: '10', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' }); // the phone test's endpoint: never called
    metered = await startTestApi({ PASSWORD_HASH_COST: '10', METRICS_TOKEN });
    // One database: the operator made through one API signs in through either.
    const made = await call(plain.url, 'POST', '/admin/operators', {
      headers: ADMIN_HEADERS,
      body: { email, role: 'owner', password: PASSWORD },
    });
    expect(made.status, made.text).to.equal(201);
  });
  after(async () => {
    await browser?.close();
    await plain?.close();
    await metered?.close();
  });

  const signedIn = (api: TestApi) => signInToConsole(browser, api.url, email, PASSWORD, { width: 1280, height: 800 });

  it('when metrics are off, then the nav has no Metrics link; when they are on, it links to /metrics, which answers', async () => {
    const off = await signedIn(plain);
    const nav = off.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Audit log' }).count(), 'the nav is drawn').to.equal(1);
    expect(await nav.getByRole('link', { name: 'Metrics' }).count()).to.equal(0);
    expect((await call(plain.url, 'GET', '/metrics')).status, 'nothing to link to').to.equal(404);
    expect((await call(plain.url, 'GET', '/admin/operators/me', { headers: ADMIN_HEADERS })).body.service).to.deep.equal({
      metrics: false,
    });

    const on = await signedIn(metered);
    const link = on.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Metrics' });
    expect(await link.getAttribute('href')).to.equal('/metrics');
    const scrape = await call(metered.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scrape.status, 'the link leads somewhere').to.equal(200);
    expect((await call(metered.url, 'GET', '/admin/operators/me', { headers: ADMIN_HEADERS })).body.service).to.deep.equal({
      metrics: true,
    });
  });

  it('when each page opens, then its title names the page, the application by name and the console — and no two pages share one', async () => {
    const name = `Nav shop ${process.pid}`;
    const { application } = await createApplication(plain.services, { name, timezone: 'Asia/Kolkata', currency: 'INR' });
    const app = `#/applications/${application.id}`;
    const expected: [string, string][] = [
      ['#/applications', 'Applications — Coupons console'],
      [`${app}/campaigns`, `Campaigns — ${name} — Coupons console`],
      [`${app}/campaigns/new`, `New campaign — ${name} — Coupons console`],
      [`${app}/try`, `Try a cart — ${name} — Coupons console`],
      [`${app}/redemptions`, `Redemptions — ${name} — Coupons console`],
      [`${app}/customers`, `Customers — ${name} — Coupons console`],
      [`${app}/webhooks`, `Webhooks — ${name} — Coupons console`],
      [`${app}/wallets`, `Wallets — ${name} — Coupons console`],
      [`${app}/gift-cards`, `Gift cards — ${name} — Coupons console`],
      ['#/audit', 'Audit log — Coupons console'],
    ];
    const page = await signedIn(plain);
    const seen: string[] = [];
    for (const [hash, title] of expected) {
      // Generous: the console finds an application's name by paging the list of applications, and
      // the shared test database holds every test's. A title still wrong then shows in the diff.
      await page.goto(`${plain.url}/console/${hash}`);
      const deadline = Date.now() + 60_000;
      while ((await page.title()) !== title && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      seen.push(await page.title());
    }
    expect(seen).to.deep.equal(expected.map(([, t]) => t));
    expect(new Set(seen).size).to.equal(seen.length);
    // Signed out: the sign-in page's own title.
    const fresh = await (await browser.newContext()).newPage();
    await fresh.goto(`${plain.url}/console/`);
    await fresh.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await fresh.title()).to.equal('Sign in — Coupons console');
  });

  describe('every page on a 390 px and on a 360 px wide phone', () => {
    /** The pages, by name, with their address once the records they show exist. */
    const PAGES = [
      'applications',
      'campaigns',
      'campaign-new',
      'campaign-edit',
      'codes',
      'campaign-results',
      'try',
      'redemptions',
      'calendar',
      'customers',
      'customer',
      'webhooks',
      'deliveries',
      'wallets',
      'gift-cards',
      'audit',
      'people',
    ] as const;
    let hashes: Record<(typeof PAGES)[number], string>;
    let page: Page;

    before(async () => {
      const { application } = await createApplication(plain.services, {
        name: `Phone shop ${process.pid}`,
        timezone: 'Asia/Kolkata',
        currency: 'INR',
      });
      const id = application.id;
      await createCustomers(plain.services, id, ['phone-buyer']);
      const campaign = await createCampaign(plain.services, id, { code: 'PHONE10', name: 'Phone ten' });
      const customers = await call(plain.url, 'GET', `/admin/applications/${id}/customers?limit=10`, { headers: ADMIN_HEADERS });
      const customer = customers.body.customers[0].id as string;
      const hook = await call(plain.url, 'POST', `/admin/applications/${id}/webhooks`, {
        headers: ADMIN_HEADERS,
        body: { url: 'http://127.0.0.1:9/coupons', description: 'CRM' },
      });
      expect(hook.status, hook.text).to.equal(201);
      const app = `#/applications/${id}`;
      hashes = {
        applications: '#/applications',
        campaigns: `${app}/campaigns`,
        'campaign-new': `${app}/campaigns/new`,
        'campaign-edit': `${app}/campaigns/${campaign.id}/edit`,
        codes: `${app}/campaigns/${campaign.id}/codes`,
        'campaign-results': `${app}/campaigns/${campaign.id}/results`,
        try: `${app}/try`,
        redemptions: `${app}/redemptions`,
        calendar: `${app}/calendar`,
        customers: `${app}/customers`,
        customer: `${app}/customers/${customer}`,
        webhooks: `${app}/webhooks`,
        deliveries: `${app}/webhooks/${hook.body.id}`,
        wallets: `${app}/wallets`,
        'gift-cards': `${app}/gift-cards`,
        audit: '#/audit',
        people: '#/people',
      };
      page = await signedIn(plain);
    });
    after(async () => {
      await page?.context().close();
    });

    // One test per page and width: each measures one page, so its time is one page's, whatever the number of pages.
    // 390 and 360: phones (their screenshots are docs/console.md's); 720: a tablet held upright.
    for (const width of [390, 360, 720])
      for (const name of PAGES)
        it(`when the ${name} page opens ${width} px wide, then it does not scroll sideways, every control can be tapped (nothing covers it), and axe finds nothing serious`, async () => {
          await page.setViewportSize({ width, height: 800 });
          await page.goto(`${plain.url}/console/${hashes[name]}`);
          await page.locator('main h1').first().waitFor();
          // The page's own reads done (a name in the trail, a list's first page), so what is measured is the page as used.
          await page.waitForLoadState('networkidle');
          const problems: string[] = [];
          const { scroll, spilling } = await sidewaysScroll(page);
          if (scroll > 0) problems.push(`scrolls ${scroll} px sideways (${spilling.slice(0, 3).join(', ')})`);
          for (const covered of await coveredControls(page)) problems.push(covered);
          for (const v of await seriousViolations(page)) problems.push(`axe: ${v}`);
          if (width < 720) await page.screenshot({ path: join(SHOTS, `phone-${width}-${name}.png`), fullPage: true });
          expect(problems).to.deep.equal([]);
        });
  });

  it('when a keyboard user tabs in, then "Skip to content" comes first, shows itself, moves focus to the main content, and every focused control wears a ring of 2px or more in a contrasting colour', async () => {
    const page = await signedIn(plain);
    await page.goto(`${plain.url}/console/#/audit`);
    await page.getByRole('heading', { name: 'Audit log' }).first().waitFor();
    // From the top of the document, as a reload leaves it.
    await page.evaluate(BLUR);
    await page.keyboard.press('Tab');
    const first = (await page.evaluate(
      '({ text: document.activeElement.textContent, top: document.activeElement.getBoundingClientRect().top })',
    )) as { text: string; top: number };
    expect(first.text).to.equal('Skip to content');
    expect(first.top, 'on screen once focused').to.be.at.least(0);
    await page.keyboard.press('Enter');
    expect(
      await page.evaluate('({ tag: document.activeElement.tagName, id: document.activeElement.id, hash: location.hash })'),
    ).to.deep.equal({
      tag: 'MAIN',
      id: 'content',
      hash: '#/audit', // the page stays where it was: the skip link is no route
    });

    // The ring of the skip link and of the next few controls (nav links, buttons, fields), from the top again.
    await page.reload();
    await page.getByRole('heading', { name: 'Audit log' }).first().waitFor();
    const rings: Ring[] = [];
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      rings.push((await page.evaluate(FOCUS_RING)) as Ring);
    }
    for (const r of rings) {
      expect(r.style, r.what).to.not.equal('none');
      expect(r.width, r.what).to.be.at.least(2);
      // WCAG 2.2 non-text contrast for a focus indicator: 3:1 against what it sits on.
      expect(r.contrast, r.what).to.be.at.least(3);
    }
    expect(rings[0]!.what).to.equal('A Skip to content');
  });
});

/** Browser-side scripts as text: run as written in the page (no compiled helpers, no DOM types here). */

const BLUR = 'document.activeElement && document.activeElement.blur()';

interface Ring {
  what: string;
  width: number;
  style: string;
  contrast: number;
}

/** The focused element's outline, and its contrast with the nearest background behind it (WCAG relative luminance). */
const FOCUS_RING = `(() => {
  const el = document.activeElement;
  const css = getComputedStyle(el);
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const luminance = (c) =>
    c.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((s, v, k) => s + v * [0.2126, 0.7152, 0.0722][k], 0);
  let back = 'rgb(255, 255, 255)';
  for (let n = el.parentElement; n; n = n.parentElement) {
    const bg = getComputedStyle(n).backgroundColor;
    if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') { back = bg; break; }
  }
  const a = luminance(rgb(css.outlineColor));
  const b = luminance(rgb(back));
  return {
    what: el.tagName + ' ' + (el.textContent || '').trim().slice(0, 30),
    width: parseFloat(css.outlineWidth),
    style: css.outlineStyle,
    contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
  };
})()`;
