/**
 * Backtests in the console (docs/console.md "Backtests"), in Debian's Chromium against a real API,
 * worker, database and Redis: cart recording turned on in an application's promotion settings (a
 * bad number of days refused beside it), carts recorded by redeems, validates and lists through the
 * client routes — two redeems past the campaign's total limit — then the live campaign backtested
 * from its results page (followed while it waits, then done), a lower limit tried from the editor
 * and a new campaign tried as a draft: every figure, limit sentence, refusal and changed order the
 * page shows is the admin API's, in euros and on the application's clock; a viewer reads them; an
 * application that records nothing says so, with the way to the setting. At 360 px, 390 px and a
 * tablet's width: no sideways scrolling, no covered control, no serious axe-core violation. The
 * screenshots of docs/console.md "Backtests" are taken here (CONSOLE_SCREENSHOTS=docs/console).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Queue } from 'bullmq';
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
import { BACKTEST_QUEUE } from '../../shared/queue/names.js';
import { redisConnection } from '../../shared/queue/redis.js';
import { createCustomers, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { until } from '../support/poll.js';

const SHOTS = resolve(process.env.CONSOLE_SCREENSHOTS ?? 'test-results/console');
const PASSWORD = 'console backtest password 1';
const TIMEZONE = 'Europe/Paris';
const TABLET = { width: 720, height: 900 };
const WIDTHS = [PHONE, { width: 390, height: 800 }, TABLET];

interface Outcome {
  applied: boolean;
  discount: number;
  reason: string | null;
}
interface Figures {
  orders: number;
  discount: number;
  cashback: number;
  basket: number;
  customers: number;
}
interface Limit {
  what: 'redemptions' | 'budget';
  period: 'total' | 'per_day' | 'per_week' | 'per_month';
  limit: number;
  ran_out_at: string | null;
  actual_ran_out_at: string | null;
}
interface Backtest {
  id: string;
  status: string;
  kind: 'live' | 'change' | 'draft';
  campaign_id: string | null;
  name: string;
  from: string;
  to: string;
  carts: 'presented' | 'all';
  created_at: string;
  finished_at: string | null;
  progress: { done: number; total: number };
  error: string | null;
  result: {
    replayed: { orders: number; checks: number; lists: number; reverts: number };
    backtest: Figures & { checks_valid: number; lists_shown: number };
    actual: Figures | null;
    refusals_by_reason: Record<string, number>;
    limits: Limit[];
    changed: {
      gained: number;
      lost: number;
      different_amount: number;
      carts: { at: string; customer: string | null; order_id: string | null; actual: Outcome; backtest: Outcome }[];
    };
  } | null;
}

/** The refusal reasons these carts meet, as the console says them (console/src/reason-words.ts). */
const REASONS: Record<string, string> = { total_limit: 'Used up: its total limit is reached' };

/** `YYYY-MM-DD` of an instant on the application's clock. */
const dayOf = (at: Date | string) => new Intl.DateTimeFormat('en-CA', { timeZone: TIMEZONE }).format(new Date(at));
/** A day of the application's calendar in words: "3 December 2026". */
const dayWords = (day: string) => {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
};
const timeOf = (iso: string) =>
  new Intl.DateTimeFormat(LOCALE, { hour: '2-digit', minute: '2-digit', timeZone: TIMEZONE }).format(new Date(iso));
/** An instant as the console's tables say it (formatWhen in en-US on the application's clock). */
const whenOf = (iso: string) =>
  new Intl.DateTimeFormat(LOCALE, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
    timeZone: TIMEZONE,
  }).format(new Date(iso));

/** A limit's run-out, said as the page must say it: "The limit of 3 redemptions would have run out on …; it really ran out at …." */
function ranOutWords(l: Limit, kind: Backtest['kind']): string {
  const per = { total: '', per_day: ' a day', per_week: ' a week', per_month: ' a month' }[l.period];
  const what =
    l.what === 'budget'
      ? `The budget of ${euros(l.limit)}${per}`
      : `The limit of ${l.limit} ${l.limit === 1 ? 'redemption' : 'redemptions'}${per}`;
  const first = l.period === 'total' ? '' : 'first ';
  const at = (iso: string) => `on ${dayWords(dayOf(iso))} at ${timeOf(iso)}`;
  const would = l.ran_out_at ? `would have ${first}run out ${at(l.ran_out_at)}` : 'would not have run out';
  if (kind === 'draft') return `${what} ${would}.`;
  // A change's real run-out is the campaign's as it ran, under its own limit.
  const it = kind === 'change' ? 'the real campaign' : 'it really';
  const really = !l.actual_ran_out_at
    ? kind === 'change'
      ? 'the real campaign did not run out'
      : 'in fact it did not run out'
    : l.ran_out_at && dayOf(l.ran_out_at) === dayOf(l.actual_ran_out_at)
      ? `${it} ${first}ran out at ${timeOf(l.actual_ran_out_at)}`
      : `${it} ${first}ran out ${at(l.actual_ran_out_at)}`;
  return `${what} ${would}; ${really}.`;
}

/** One order's outcome as the changed orders' table says it. */
const outcomeWords = (o: Outcome) =>
  o.applied ? `${euros(o.discount)} off` : o.reason ? `Refused: ${REASONS[o.reason] ?? o.reason}` : 'Not used';

describe('console: backtests in a real browser', function () {
  this.timeout(180_000);
  let api: TestApi;
  let browser: Browser;
  let app: TestApplication;
  let quietApp: TestApplication;
  let campaign: { id: string };
  let backtestQueue: Queue;
  const emails = { owner: `backtest-owner-${process.pid}@example.com`, viewer: `backtest-viewer-${process.pid}@example.com` };
  const adminCall = (method: string, path: string, body?: unknown) =>
    call(api.url, method, `/admin${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { body }) });
  const backtest = async (id: string): Promise<Backtest> => {
    const res = await adminCall('GET', `/applications/${app.id}/backtests/${id}`);
    expect(res.status, res.text).to.equal(200);
    return res.body as Backtest;
  };
  /** The application as the admin API lists it. */
  const applicationOf = async (id: string) => {
    const res = await adminCall('GET', '/applications?limit=1000&include_archived=true');
    expect(res.status, res.text).to.equal(200);
    return (res.body.applications as { id: string; cart_recording: unknown }[]).find((a) => a.id === id)!;
  };

  before(async function () {
    browser = await chromiumOrSkip(this);
    const build = buildConsoleIfStale(() => undefined);
    if (build.state === 'missing') throw new Error(`the console cannot be built: ${build.why}`);
    mkdirSync(SHOTS, { recursive: true });
    api = await startTestApi({ PASSWORD_HASH_COST: '10' });
    backtestQueue = new Queue(BACKTEST_QUEUE, {
      connection: redisConnection(api.services.config.redisUrl!),
      prefix: api.services.config.queuePrefix,
    });
    for (const role of ['owner', 'viewer'] as const) {
      const made = await adminCall('POST', '/operators', { email: emails[role], role, password: PASSWORD });
      expect(made.status, made.text).to.equal(201);
    }
    app = await createTestApplication(api.services, { currency: 'EUR', timezone: TIMEZONE });
    quietApp = await createTestApplication(api.services, { currency: 'EUR', timezone: TIMEZONE });
    for (const [id, name] of [
      [app.id, 'Winter shop'],
      [quietApp.id, 'Quiet shop'],
    ] as const) {
      const renamed = await adminCall('PATCH', `/applications/${id}`, { name });
      expect(renamed.status, renamed.text).to.equal(200);
    }
    await createCustomers(api.services, app.id, ['ana', 'ben', 'cat', 'dan', 'eve', 'fay']);
    const made = await adminCall('POST', `/applications/${app.id}/campaigns`, {
      name: 'Winter ten',
      code: 'WINTER10',
      discount: { kind: 'discount', type: 'flat', value: 10 },
      limits: { total: 3 },
    });
    expect(made.status, made.text).to.equal(201);
    campaign = made.body;
    const quiet = await adminCall('POST', `/applications/${quietApp.id}/campaigns`, {
      name: 'Quiet one',
      code: 'QUIET',
      discount: { kind: 'discount', type: 'flat', value: 1 },
    });
    expect(quiet.status, quiet.text).to.equal(201);

    // Cart recording turned on in the console, as a manager does it.
    const page = await signedIn('owner');
    await turnOnRecording(page, app.id, 'Winter shop', '45');
    expect((await applicationOf(app.id)).cart_recording).to.deep.equal({ enabled: true, retention_days: 45 });
    await page.context().close();
    // The processes' application cache has the change (announced to them) before the carts are sent.
    await until('the application records carts', async () => (await api.services.applications.get(app.id))?.cartRecording.enabled, 10_000);

    // Five redeems of a campaign with a total limit of 3: three made, two refused (used up), and
    // one of the three reverted; then a validate and a list of a sixth customer.
    const orders = new Map<string, ReturnType<typeof makeOrder>>();
    const apply = (type: 'redeem' | 'revert', who: string) =>
      call(api.url, 'POST', `/coupons/apply?type=${type}`, {
        auth: app.auth,
        body: { source_id: who, coupon_details: [{ coupon_code: 'WINTER10' }], order: orders.get(who) },
      });
    for (const who of ['ana', 'ben', 'cat', 'dan', 'eve']) {
      orders.set(who, makeOrder());
      const res = await apply('redeem', who);
      if (['ana', 'ben', 'cat'].includes(who)) expect(res.status, res.text).to.equal(200);
      else expect([res.status, res.headers.get('coupon-reason')], res.text).to.deep.equal([400, 'total_limit']);
    }
    // Ben's order returned: two orders stand.
    const reverted = await apply('revert', 'ben');
    expect(reverted.status, reverted.text).to.equal(200);
    const validated = await call(api.url, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { source_id: 'fay', coupon_details: [{ coupon_code: 'WINTER10' }], order: makeOrder() },
    });
    expect(validated.status, validated.text).to.equal(200);
    const listed = await call(api.url, 'POST', '/coupons/list/all', { auth: app.auth, body: { source_id: 'fay', order: makeOrder() } });
    expect(listed.status, listed.text).to.equal(200);
    // Carts are appended by each process every CART_RECORD_MS: written now, before any backtest reads them.
    await api.services.carts.flush();
  });
  after(async () => {
    await backtestQueue?.resume();
    await backtestQueue?.close();
    await browser?.close();
    await api?.close();
  });

  const signedIn = (role: 'owner' | 'viewer', viewport = PHONE) => signInToConsole(browser, api.url, emails[role], PASSWORD, viewport);

  /** The application's promotion settings, opened by their link: recording ticked, the days typed, saved. */
  async function turnOnRecording(page: Page, appId: string, name: string, days: string) {
    await page.goto(`${api.url}/console/#/applications/${appId}/settings`);
    const form = page.getByRole('form', { name: `Promotion settings of ${name}` });
    await form.getByLabel('Record carts for backtesting').check();
    await form.getByRole('textbox', { name: /^Keep recorded carts for/ }).fill(days);
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.waitFor({ state: 'detached' });
  }

  /**
   * No sideways scrolling, no covered control, no serious axe-core violation. `ownScroll`: a wide
   * table (the applications list) may spill out of its own box, which scrolls; the page still must not.
   */
  async function clean(page: Page, ownScroll = false) {
    const sideways = await sidewaysScroll(page);
    expect(ownScroll ? sideways.scroll : sideways, sideways.spilling.slice(0, 5).join(', ')).to.deep.equal(
      ownScroll ? 0 : { scroll: 0, spilling: [] },
    );
    expect(await coveredControls(page)).to.deep.equal([]);
    const v = await seriousViolations(page);
    expect(v, v.join('\n')).to.deep.equal([]);
  }
  /** `clean` at a phone's, a larger phone's and a tablet's width; the page left at `end`. */
  async function cleanAtEveryWidth(page: Page, end = PHONE) {
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await clean(page);
    }
    await page.setViewportSize(end);
  }

  /** The rows of a table as text, cell by cell (its header row left out). */
  const tableRows = (page: Page, name: string) =>
    page
      .getByRole('table', { name, exact: true })
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => (c as unknown as { innerText: string }).innerText.trim())),
      );

  /** The backtest's page once it is done: its id from the address, the admin API's body of it. */
  async function whenDone(page: Page): Promise<Backtest> {
    await page.waitForURL(new RegExp(`#/applications/${app.id}/backtests/[0-9a-f]+$`));
    const id = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1)!);
    await page.getByTestId('backtest-outcome').waitFor();
    const b = await backtest(id);
    expect([b.status, b.error]).to.deep.equal(['done', null]);
    return b;
  }

  /** Every figure the page says of a finished backtest equals the admin API's, in euros and on the application's clock. */
  async function expectPageSays(page: Page, b: Backtest) {
    const r = b.result!;
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal(`Backtest of ${b.name}`);
    expect(b.progress.done).to.equal(b.progress.total);
    const n = (x: number, one: string, many: string) => `${x} ${x === 1 ? one : many}`;
    const parts = [
      n(r.replayed.orders, 'order', 'orders'),
      n(r.replayed.checks, 'code check', 'code checks'),
      n(r.replayed.lists, 'list of coupons', 'lists of coupons'),
      ...(r.replayed.reverts > 0 ? [n(r.replayed.reverts, 'order reverted', 'orders reverted')] : []),
    ];
    expect(await page.getByTestId('backtest-replayed').innerText()).to.equal(
      `${b.progress.done} of ${b.progress.total} carts replayed: ${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}; finished ${whenOf(b.finished_at!)}.`,
    );
    for (const [key, money] of [
      ['orders', false],
      ['discount', true],
      ['cashback', true],
      ['basket', true],
      ['customers', false],
    ] as const) {
      const say = (n: number) => (money ? euros(n) : String(n));
      expect(await page.getByTestId(`would-${key}`).innerText(), key).to.equal(say(r.backtest[key]));
      if (r.actual) expect(await page.getByTestId(`actual-${key}`).innerText(), key).to.equal(say(r.actual[key]));
      else expect(await page.getByTestId(`actual-${key}`).count()).to.equal(0);
    }
    expect(await page.getByTestId('backtest-limits').locator('li').allInnerTexts()).to.deep.equal(
      r.limits.map((l) => ranOutWords(l, b.kind)),
    );
    const reasons = Object.entries(r.refusals_by_reason).sort((x, y) => y[1] - x[1]);
    expect(await tableRows(page, 'Orders it would have refused, by reason, the most frequent first')).to.deep.equal(
      reasons.map(([reason, n]) => [REASONS[reason] ?? reason, String(n)]),
    );
    expect(await tableRows(page, 'Orders that would have gone differently, in time order')).to.deep.equal(
      r.changed.carts.map((c) => [
        whenOf(c.at),
        c.customer ?? 'not signed in',
        c.order_id ?? '—',
        outcomeWords(c.actual),
        outcomeWords(c.backtest),
      ]),
    );
  }

  it('when an application records no carts, then its backtests page says so, a backtest finds nothing to replay and links to the setting, where a bad number of days is refused beside it', async () => {
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${quietApp.id}/backtests`);
    await page.getByRole('heading', { name: 'Backtests', level: 1 }).waitFor();
    expect(await page.getByTestId('recording-state').innerText()).to.equal(
      'Cart recording is off for Quiet shop: no new carts are recorded. Turn on “Record carts for backtesting” in the promotion settings of Quiet shop.',
    );
    await page.getByLabel('Campaign', { exact: true }).selectOption({ label: 'Quiet one' });
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await page.getByTestId('backtest-outcome').waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1)!);
    const b = (await adminCall('GET', `/applications/${quietApp.id}/backtests/${id}`)).body as Backtest;
    expect([b.status, b.kind, b.carts]).to.deep.equal(['done', 'live', 'presented']);
    expect(b.result!.replayed).to.deep.equal({ orders: 0, checks: 0, lists: 0, reverts: 0 });
    const note = page.getByTestId('nothing-replayed');
    expect(await note.innerText()).to.equal(
      'Nothing was replayed: cart recording is off for Quiet shop, so there were no carts to replay. Turn on “Record carts for backtesting” in the promotion settings of Quiet shop, then run a backtest once carts have been recorded.',
    );
    await clean(page);

    // The note's link opens the setting; 500 days is refused beside the field, nothing saved.
    await note.getByRole('link', { name: 'promotion settings of Quiet shop' }).click();
    const form = page.getByRole('form', { name: 'Promotion settings of Quiet shop' });
    await form.getByLabel('Record carts for backtesting').check();
    const days = form.getByRole('textbox', { name: /^Keep recorded carts for/ });
    await days.fill('500');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.getByText('Choose a whole number of days from 1 to 400.').waitFor();
    expect(await days.getAttribute('aria-invalid')).to.equal('true');
    await clean(page, true);
    await form.screenshot({ path: join(SHOTS, 'cart-recording.png') });
    expect((await applicationOf(quietApp.id)).cart_recording).to.deep.equal({ enabled: false, retention_days: 30 });
    await days.fill('60');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.waitFor({ state: 'detached' });
    expect((await applicationOf(quietApp.id)).cart_recording).to.deep.equal({ enabled: true, retention_days: 60 });

    await page.goto(`${api.url}/console/#/applications/${quietApp.id}/backtests`);
    await page
      .getByTestId('recording-state')
      .getByText('Carts are recorded and kept 60 days (change it in the promotion settings of Quiet shop).')
      .waitFor();
    await page.context().close();
  });

  it("when an owner backtests the live campaign from its results page, then the page follows it while it waits and, once done, says the API's figures beside the real ones", async () => {
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${campaign.id}/results`);
    await page.getByRole('link', { name: 'Backtest this campaign' }).click();
    await page.getByRole('heading', { name: 'Backtests', level: 1 }).waitFor();
    const today = dayOf(new Date());
    // The campaign is chosen once the campaigns' names are read (its option there).
    const chosen = page.getByLabel('Campaign', { exact: true });
    await chosen.locator(`option[value="${campaign.id}"]`).waitFor({ state: 'attached' });
    expect(await chosen.inputValue()).to.equal(campaign.id);
    expect(await page.getByLabel('From', { exact: true }).inputValue()).to.equal(expectedFrom(today));
    expect(await page.getByLabel('To', { exact: true }).inputValue()).to.equal(today);
    expect(await page.getByLabel('Carts that used this campaign', { exact: true }).isChecked()).to.equal(true);

    // The worker takes no backtest for now: the page shows it waiting, then follows it to the end.
    const bar = page.getByRole('progressbar', { name: 'Carts replayed' });
    await backtestQueue.pause();
    try {
      await page.getByRole('button', { name: 'Run backtest' }).click();
      await bar.waitFor();
      const id = decodeURIComponent(new URL(page.url()).hash.split('/').at(-1)!);
      expect((await backtest(id)).status).to.equal('queued');
      expect(
        await bar.evaluate((e) => ['aria-valuemin', 'aria-valuemax', 'aria-valuenow', 'aria-valuetext'].map((a) => e.getAttribute(a))),
      ).to.deep.equal(['0', '1', '0', 'no cart replayed yet']);
      expect(await page.getByTestId('backtest-progress').innerText()).to.equal('Waiting to start…');
      await clean(page);
      await page.screenshot({ path: join(SHOTS, 'backtest-waiting.png'), fullPage: true });
    } finally {
      await backtestQueue.resume();
    }

    const b = await whenDone(page);
    expect(await bar.count()).to.equal(0);
    // The replay of the campaign as it is does what really happened: three orders with it (one since reverted), two refused as used up.
    expect([b.kind, b.name, b.carts, b.from, b.to]).to.deep.equal(['live', 'Winter ten', 'presented', expectedFrom(today), today]);
    expect(b.result!.replayed).to.include({ orders: 5, reverts: 1 });
    expect(b.result!.actual).to.include({ orders: 2, discount: 20, cashback: 0, basket: 2000 });
    expect(b.result!.backtest).to.include({ ...b.result!.actual });
    expect(b.result!.limits[0]!.ran_out_at).to.equal(b.result!.limits[0]!.actual_ran_out_at);
    expect(b.result!.refusals_by_reason).to.deep.equal({ total_limit: 2 });
    expect(b.result!.changed.carts).to.deep.equal([]);
    expect(b.result!.limits.map((l) => [l.what, l.period, l.limit, Boolean(l.ran_out_at), Boolean(l.actual_ran_out_at)])).to.deep.equal([
      ['redemptions', 'total', 3, true, true],
    ]);
    await expectPageSays(page, b);
    await cleanAtEveryWidth(page);
    await page.context().close();
  });

  it('when an owner tries a lower limit from the campaign editor, then its backtest says the order it would have lost, and the campaign is unchanged', async () => {
    const page = await signedIn('owner', TABLET);
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/${campaign.id}/edit`);
    await page.getByRole('heading', { name: 'Edit Winter ten', level: 1 }).waitFor();
    // A limit the format refuses: the backtest is refused as Save would be, by the field's own path, and the editor stays.
    const limit = page.getByLabel('Limit total');
    await limit.fill('-1');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/backtests')),
      page.getByRole('button', { name: 'Try this on past carts' }).click(),
    ]);
    expect(refused.status()).to.equal(400);
    expect(Object.keys(((await refused.json()) as { fields: object }).fields)).to.deep.equal(['limits.total']);
    expect(await limit.getAttribute('aria-invalid')).to.equal('true');
    expect(new URL(page.url()).hash).to.equal(`#/applications/${app.id}/campaigns/${campaign.id}/edit`);

    await limit.fill('2');
    await page.locator('input[aria-invalid="true"]').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Try this on past carts' }).click();
    const b = await whenDone(page);
    expect([b.kind, b.name, b.campaign_id, b.carts]).to.deep.equal(['change', 'Winter ten', campaign.id, 'presented']);
    const r = b.result!;
    // Ana's and Ben's orders take the 2; Cat, Dan and Eve are refused; Ben's revert gives his back, after them.
    expect(r.backtest).to.include({ orders: 1, discount: 10 });
    expect(r.refusals_by_reason).to.deep.equal({ total_limit: 3 });
    expect([r.changed.gained, r.changed.lost, r.changed.different_amount, r.changed.carts.length]).to.deep.equal([0, 1, 0, 1]);
    expect(r.changed.carts[0]).to.deep.include({
      customer: 'cat',
      actual: { applied: true, discount: 10, reason: null },
      backtest: { applied: false, discount: 0, reason: 'total_limit' },
    });
    await expectPageSays(page, b);
    expect(await page.getByTestId('changed-summary').innerText()).to.equal('Of the orders replayed, 1 had it and would not have.');
    await cleanAtEveryWidth(page, TABLET);
    await page.screenshot({ path: join(SHOTS, 'backtest.png'), fullPage: true });

    // Nothing was saved: the campaign keeps its limit of 3.
    const saved = await adminCall('GET', `/applications/${app.id}/campaigns/${campaign.id}`);
    expect(saved.body.limits.total).to.equal(3);
    await page.context().close();
  });

  it('when an owner tries a new campaign from the editor, then it is backtested as a draft on every recorded cart, with no real figures to compare', async () => {
    const page = await signedIn('owner');
    await page.goto(`${api.url}/console/#/applications/${app.id}/campaigns/new`);
    await page.getByRole('heading', { name: 'New campaign', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Spring five');
    await page.getByLabel('Code', { exact: true }).fill('SPRING5');
    await page.getByLabel('Value (%)').fill('5');
    await page.getByRole('button', { name: 'Try this on past carts' }).click();
    const b = await whenDone(page);
    expect([b.kind, b.name, b.campaign_id, b.carts, b.result!.actual]).to.deep.equal(['draft', 'Spring five', null, 'all', null]);
    expect(b.result!.backtest.orders).to.be.above(0);
    await expectPageSays(page, b);
    await cleanAtEveryWidth(page);
    // Nothing was saved.
    const list = await adminCall('GET', `/applications/${app.id}/campaigns?limit=100`);
    expect((list.body.campaigns as { name: string }[]).map((c) => c.name)).to.not.include('Spring five');
    await page.context().close();
  });

  it('when a viewer opens the backtests, then they read the list and a backtest’s figures as the API says them', async () => {
    // A backtest of its own: the limit of 1 tried through the admin API.
    const asked = await adminCall('POST', `/applications/${app.id}/backtests`, {
      campaign_id: campaign.id,
      changes: { limits: { total: 1 } },
    });
    expect(asked.status, asked.text).to.equal(202);
    const id = (asked.body as Backtest).id;
    await until('the backtest is done', async () => (await backtest(id)).status === 'done', 30_000);

    const page = await signedIn('viewer');
    await page.goto(`${api.url}/console/#/applications/${app.id}/backtests`);
    await page.getByRole('heading', { name: 'Backtests', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Backtests, newest first', exact: true });
    await table.getByRole('link', { name: 'Winter ten' }).first().waitFor();
    const listed = (await adminCall('GET', `/applications/${app.id}/backtests`)).body.backtests as Backtest[];
    expect(listed.map((b) => b.id)).to.include(id);
    const rows = await tableRows(page, 'Backtests, newest first');
    expect(rows.map((row) => [row[0], row[4]])).to.deep.equal(listed.map((b) => [b.name, whenOf(b.created_at)]));
    expect(await page.getByTestId('recording-state').innerText()).to.equal(
      'Carts are recorded and kept 45 days; an editor or owner can change this in its promotion settings.',
    );
    // A backtest changes nothing live: a viewer may run one too.
    expect(await page.getByRole('button', { name: 'Run backtest' }).isEnabled()).to.equal(true);
    await clean(page);

    await table.locator(`a[title="${id}"]`).click();
    await page.getByTestId('backtest-outcome').waitFor();
    const b = await backtest(id);
    expect([b.kind, b.result!.backtest.orders, b.result!.changed.lost]).to.deep.equal(['change', 1, 2]);
    await expectPageSays(page, b);
    await cleanAtEveryWidth(page);
    await page.context().close();
  });
});

/** The first day of the default period: 6 days before `today`. */
function expectedFrom(today: string): string {
  return new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
}
