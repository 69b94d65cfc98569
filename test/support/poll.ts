import { machineNow } from './machine-time.js';

/**
 * Polls `probe` until it answers something truthy (every 50 ms), and returns it: for what a test
 * waits on that another process does in its own time (a sweep's settle job, an event recorded).
 * `deadlineMs` is a failure's deadline, not a measured bound: a passing test never reaches it. It
 * is counted in a quiet machine's time (test/support/machine-time.ts), as mocha's timeouts are.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, deadlineMs: number): Promise<T> {
  const deadline = machineNow() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (machineNow() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
