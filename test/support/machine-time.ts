/**
 * Time as a quiet machine would have counted it (docs/testing.md, "Timeouts in a quiet machine's
 * time"). A test's timeout (mocha's `this.timeout(ms)`, the suite's default) and a poll's deadline
 * are stated in what the test needs on a quiet machine; on a shared machine the work beside the
 * suite takes the cores from it, and the same test takes longer by as much. So a timeout is
 * counted here, not by the wall clock: every wall millisecond counts as the share of a core a task
 * could get in it, measured four times a second from the kernel's count of tasks that are ready to
 * run or waiting on the disk (`/proc/stat`'s procs_running + procs_blocked, the load average's own
 * measure, taken now rather than averaged over a minute): with R such tasks on C cores, a
 * millisecond counts as min(1, C / R) of one. A hang still trips: the count never stops, it only
 * slows while the machine is shared, by what was measured.
 *
 * Where `/proc/stat` cannot be read (not Linux), the one-minute load average stands for R, and
 * where that is zero (Windows) a millisecond counts whole: the wall clock, as mocha keeps it.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

const SAMPLE_MS = 250;
const cores = availableParallelism();

/** Tasks ready to run or waiting on the disk now (this process's reading counts itself: one). */
function contenders(): number {
  try {
    const stat = readFileSync('/proc/stat', 'latin1');
    const running = Number(/^procs_running (\d+)$/m.exec(stat)?.[1]);
    const blocked = Number(/^procs_blocked (\d+)$/m.exec(stat)?.[1]);
    if (Number.isFinite(running) && Number.isFinite(blocked)) return running + blocked;
  } catch {
    // not Linux: the load average below
  }
  return loadavg()[0];
}

/** How many times longer than on a quiet machine a task's work takes now (at least 1). */
function slowdownNow(): number {
  return Math.max(1, contenders() / cores);
}

/**
 * One clock per process, kept on `globalThis` (test/support/hooks.ts is loaded twice in a mocha
 * process that imports a spec as an ES module: one clock, whichever instance asks).
 */
interface Clock {
  /** Quiet-machine milliseconds counted up to `sampledAt`. */
  counted: number;
  sampledAt: number;
  /** The slowdown measured at `sampledAt`, which counts the time since. */
  slowdown: number;
  /** The last {@link RECENT_SAMPLES} samples' `sampledAt` and `counted`, oldest first. */
  recent: { at: number; counted: number }[];
}

/** How many samples {@link recentSlowdown} looks back over: 10 s. */
const RECENT_SAMPLES = 40;
const clock = ((globalThis as { [key: symbol]: unknown })[Symbol.for('coupons.test.machine-time')] ??= startClock()) as Clock;

function startClock(): Clock {
  const c: Clock = { counted: 0, sampledAt: performance.now(), slowdown: slowdownNow(), recent: [] };
  c.recent.push({ at: c.sampledAt, counted: 0 });
  setInterval(() => {
    const now = performance.now();
    c.counted += (now - c.sampledAt) / c.slowdown;
    c.sampledAt = now;
    c.slowdown = slowdownNow();
    c.recent.push({ at: now, counted: c.counted });
    if (c.recent.length > RECENT_SAMPLES) c.recent.shift();
  }, SAMPLE_MS).unref();
  return c;
}

/** Quiet-machine milliseconds since this process started counting (compare two readings). */
export function machineNow(): number {
  return clock.counted + (performance.now() - clock.sampledAt) / clock.slowdown;
}

/**
 * The slowdown over the last 10 s (wall time over the time counted; 1 on a quiet machine): for a
 * wait the clock here cannot count, such as a browser action's timeout, set in wall time.
 */
export function recentSlowdown(): number {
  const first = clock.recent[0]!;
  const wall = performance.now() - first.at;
  const counted = machineNow() - first.counted;
  return counted > 0 ? Math.max(1, wall / counted) : clock.slowdown;
}
