/**
 * How late this process's event loop is: the measure of a process starved of CPU (by its own
 * backlog, or by neighbours on a crowded machine). A timer due every {@link TICK_MS} notes how
 * late it fired; the figure is how late its last firing was, or how overdue the next one is now if
 * that is more — so a process resuming after a stall (SIGSTOP, a long pause) knows it at once,
 * before the timer has had its turn. Not smoothed: a stall is told for one tick after it, and a
 * loop that stays late is told all along.
 */
import { performance } from 'node:perf_hooks';

/** How often the loop's lateness is sampled. */
export const TICK_MS = 100;

let timer: NodeJS.Timeout | undefined;
let due = 0;
let lastLateness = 0;

function tick() {
  const now = performance.now();
  lastLateness = Math.max(0, now - due);
  due = now + TICK_MS;
  timer = setTimeout(tick, TICK_MS).unref();
}

/** The event loop's lateness now, in ms (the sampling starts at the first call; it never keeps the process alive). */
export function eventLoopLatenessMs(): number {
  if (!timer) {
    due = performance.now() + TICK_MS;
    timer = setTimeout(tick, TICK_MS).unref();
  }
  return Math.max(lastLateness, performance.now() - due);
}
