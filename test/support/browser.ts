/**
 * Debian's Chromium for the browser tests (never a downloaded browser), started headless in a
 * container: no sandbox, no GPU, nothing that phones home. CI installs it (.ci/run); without it a
 * browser suite is skipped with its reason printed.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
