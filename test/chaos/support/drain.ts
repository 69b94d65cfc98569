/**
 * The two bounds of a chaos scenario that follow the machine after its fault (docs/testing.md,
 * "Bounds from what a test measured"), as plain functions of what the burst measured:
 *
 * - the deadline for every final answer: never before the grace derived before the fault; after
 *   each final answer, what the operations still open would take at the pace of the latest final
 *   answers (a drain that slows with the machine is given its pace, one that stops is not);
 * - the API's lateness while an exchange was open: its slowest liveness answer meanwhile (a
 *   starved API answers everything late and is not hung; one that answers its liveness at once but
 *   not the request is).
 */

/** The drain's pace is measured over this many final answers (their retries arrive in waves of about a second). */
export const PACE_WINDOW = 20;

/**
 * How long after a final answer the operations still open may take: `open` of them, the drain
 * measured at `paceMs` per final answer (run.ts derives it with its margin).
 */
export type DrainBound = (open: number, paceMs: number) => number;

export interface Drain {
  /** When the fault ended, and the deadline its grace gave (the least the drain gets). */
  since: number;
  floor: number;
  /** When each final answer since came. */
  finalsAt: number[];
  bound: DrainBound;
}

/** The deadline after a final answer at `now` (pushed onto `drain.finalsAt`) with `open` operations still open. */
export function deadlineAfterFinal(drain: Drain, now: number, open: number): number {
  drain.finalsAt.push(now);
  const n = drain.finalsAt.length;
  const from = n > PACE_WINDOW ? drain.finalsAt[n - 1 - PACE_WINDOW]! : drain.since;
  const pace = (now - from) / Math.min(n, PACE_WINDOW);
  return Math.max(drain.floor, now + drain.bound(open, pace));
}

/** A liveness probe: when it was sent, how long its answer took (undefined when refused or reset), and whether it is still in flight. */
export interface Probe {
  startedAt: number;
  ms?: number;
  pending: boolean;
}

/**
 * How late the API answered while an exchange sent at `startedAt` was open, at `now`: the slowest
 * probe that overlapped it, one still in flight counting its age so far (an API that answers
 * nothing keeps the exchange open until the test's own timeout, which follows the drain).
 * `probes` in the order they were sent, one at a time.
 */
export function latenessSince(probes: readonly Probe[], startedAt: number, now: number): number {
  let lateness = 0;
  for (let i = probes.length - 1; i >= 0; i--) {
    const p = probes[i]!;
    const ms = p.pending ? now - p.startedAt : p.ms;
    if (p.startedAt + (ms ?? 0) < startedAt) break;
    if (ms !== undefined) lateness = Math.max(lateness, ms);
  }
  return lateness;
}
