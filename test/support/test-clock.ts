/**
 * The service's clock moved by a test (TEST_CLOCK_FILE, shared/config.ts; refused in production):
 * every process started with `env` reads the milliseconds in the file and adds them to the
 * machine's clock. One per spec file: made in its `describe`, removed in its `after`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestClock {
  /** The environment that puts a process on this clock. */
  env: { TEST_CLOCK_FILE: string };
  /** Moves the clock `ms` ahead of the machine's (0: the machine's own). */
  ahead(ms: number): void;
  /** Sets the clock to `instant` (it runs on from there). */
  at(instant: string): void;
  remove(): void;
}

export function testClock(): TestClock {
  const dir = mkdtempSync(join(tmpdir(), 'coupons-clock-'));
  const file = join(dir, 'offset');
  const ahead = (ms: number) => writeFileSync(file, String(ms));
  ahead(0);
  return {
    env: { TEST_CLOCK_FILE: file },
    ahead,
    at: (instant) => ahead(Date.parse(instant) - Date.now()),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
