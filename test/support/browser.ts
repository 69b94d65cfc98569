/**
 * Debian's Chromium for the browser tests (never a downloaded browser), started headless in a
 * container: no sandbox, no GPU, nothing that phones home. CI installs it (.ci/run); without it a
 * browser suite is skipped with its reason printed.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { recentSlowdown } from './machine-time.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Chromium, started; or the suite skipped (`ctx.skip()` throws), saying why. Call it first in `before`. */
export async function chromiumOrSkip(ctx: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    console.log(`    skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
    ctx.skip();
  }
  try {
    return pacedActions(await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }));
  } catch (err) {
    console.log(`    skipped: ${CHROMIUM} did not start: ${(err as Error).message.split('\n')[0]}`);
    ctx.skip();
  }
}

/** What a browser action (a click, a wait for an element, a page load) may take on a quiet machine. */
const ACTION_MS = 30_000;

/**
 * Every page's actions time out after {@link ACTION_MS} times the machine's slowdown over the last
 * 10 s (test/support/machine-time.ts), set again every second: Playwright counts its timeouts on
 * the wall clock, and on a machine shared with other work a click that takes 2 s when quiet can
 * take 30 (docs/testing.md, "Timeouts in a quiet machine's time"). A missing element still fails
 * the action, naming it.
 */
function pacedActions(browser: Browser): Browser {
  const pace = (context: BrowserContext) => {
    const set = () => context.setDefaultTimeout(Math.ceil(ACTION_MS * recentSlowdown()));
    set();
    const timer = setInterval(set, 1000).unref();
    context.on('close', () => clearInterval(timer));
    return context;
  };
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = async (options) => pace(await newContext(options));
  browser.newPage = async (options) => {
    const page = await newPage(options);
    pace(page.context());
    return page;
  };
  return browser;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical accessibility violations axe-core finds on the page, one line each (empty: none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run: (o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** A phone's screen: every console page must work at this width. */
export const PHONE = { width: 360, height: 740 };

/** The console formats money with the browser's locale: tests fix it, and format the API's figures the same way. */
export const LOCALE = 'en-US';
export const euros = (n: number) => new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'EUR' }).format(n);
/** An amount in a currency, as the console shows it. */
export const inCurrency = (n: number, currency: string) => new Intl.NumberFormat(LOCALE, { style: 'currency', currency }).format(n);

/** How far the page scrolls sideways (0 when nothing is wider than the screen), and the elements that spill out. */
export async function sidewaysScroll(page: Page): Promise<{ scroll: number; spilling: string[] }> {
  const [width, scrollWidth] = await page.locator('html').evaluate((e) => [e.clientWidth, e.scrollWidth]);
  const spilling = await page
    .locator('body *')
    .evaluateAll(
      (all, w) =>
        all
          .filter((e) => e.getBoundingClientRect().right > w + 0.5 && !e.closest('.scroll'))
          .map((e) => `${e.tagName.toLowerCase()}${e.className ? `.${String(e.className).replace(/ /g, '.')}` : ''}`),
      width!,
    );
  return { scroll: scrollWidth! - width!, spilling };
}

/**
 * Every visible control (button, link, input, select, textarea, summary), scrolled to the middle of
 * the screen, must be the element at its own centre — or inside it, or its label: a tap there
 * reaches it. Described when something else (a sticky panel, a neighbour spilling over) is there.
 */
const COVERED = `(() => {
  const out = [];
  const controls = [...document.querySelectorAll('main button, main a[href], main input, main select, main textarea, main summary, header button, header a[href]')];
  for (const el of controls) {
    if (el.closest('.visually-hidden') || el.type === 'hidden') continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    el.scrollIntoView({ block: 'center', inline: 'center' });
    // A link wrapped over two lines: the middle of its first line (its box's middle may fall between them).
    const r = el.getClientRects()[0];
    if (!r || r.width === 0 || r.height === 0) continue;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const reaches = hit && (hit === el || el.contains(hit) || (hit.tagName === 'LABEL' && hit.contains(el)) || (el.labels && [...el.labels].includes(hit)));
    if (!reaches) {
      const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || el.tagName).trim().slice(0, 40);
      const by = hit ? hit.tagName.toLowerCase() + (hit.className ? '.' + String(hit.className).replace(/ /g, '.') : '') : 'nothing';
      out.push(el.tagName.toLowerCase() + ' "' + name + '" is covered by ' + by);
    }
  }
  window.scrollTo(0, 0);
  return out;
})()`;

/** The controls of the page now that something else covers at their centre (test/browser/console-navigation.spec.ts and the forms' own tests). */
export async function coveredControls(page: Page): Promise<string[]> {
  return (await page.evaluate(COVERED)) as string[];
}

/**
 * A console page signed in as `email` with `password`, in a context of its own at `viewport` and
 * LOCALE (bypassCSP: lets a test inject axe-core; the console's own CSP is asserted in
 * console.spec.ts), once the Applications page shows — and no page error meanwhile.
 */
export async function signInToConsole(browser: Browser, url: string, email: string, password: string, viewport = PHONE): Promise<Page> {
  const page = await (await browser.newContext({ viewport, locale: LOCALE, bypassCSP: true })).newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/console/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Applications' }).waitFor();
  expect(errors).to.deep.equal([]);
  return page;
}
