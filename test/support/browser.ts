/**
 * Debian's Chromium for the browser tests (never a downloaded browser), started headless in a
 * container: no sandbox, no GPU, nothing that phones home. CI installs it (.ci/run); without it a
 * browser suite is skipped with its reason printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

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
    return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  } catch (err) {
    console.log(`    skipped: ${CHROMIUM} did not start: ${(err as Error).message.split('\n')[0]}`);
    ctx.skip();
  }
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
