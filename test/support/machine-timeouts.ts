/**
 * Mocha's timeouts counted in a quiet machine's time (test/support/machine-time.ts): every test's
 * and hook's timeout, the suite default (.mocharc.json) and every `this.timeout(ms)` alike, is a
 * budget of quiet-machine milliseconds from when mocha starts its timer. A test that needs 20 s on
 * a quiet machine and takes 90 s while other work holds the cores passes; a test that hangs fails
 * once its budget is spent, later by the slowdown measured meanwhile, never not at all.
 *
 * Mocha's Runnable keeps one timer (`resetTimeout`) and, when a test ends, fails it if its wall
 * duration passed `timeout()`. Here the timer counts the budget in machine time, and `timeout()`
 * reads, while it runs, the wall time the budget has come to so far: what was spent plus what is
 * left at the slowdown measured over the last 10 s. Loaded once per mocha process from test/support/hooks.ts.
 */
import Mocha from 'mocha';
import { machineNow, recentSlowdown } from './machine-time.js';

/** How often a running timer looks at the machine's clock. */
const TICK_MS = 500;

const PATCHED = Symbol.for('coupons.test.machine-timeouts');
const BUDGET = Symbol('budget');
const STARTED = Symbol('started');

interface Timed {
  _timeout: number;
  timer?: NodeJS.Timeout;
  timedOut?: boolean;
  callback?: (err?: Error) => void;
  clearTimeout(): void;
  _timeoutError(ms: number): Error;
  [BUDGET]?: number;
  [STARTED]?: number;
}

const proto = Mocha.Runnable.prototype as unknown as Timed & {
  timeout(ms?: number | string): unknown;
  resetTimeout(): void;
  run(fn: (err?: unknown) => void): void;
  [PATCHED]?: true;
};

if (!proto[PATCHED]) {
  proto[PATCHED] = true;
  const timeout = proto.timeout;
  const run = proto.run;

  // The budget is what was last set; mocha's own field holds its wall equivalent while it runs.
  proto.timeout = function (this: Timed, ...args: [ms?: number | string]) {
    if (args.length === 0) return timeout.call(this);
    const timer = this.timer;
    this.timer = undefined; // mocha would restart its own timer here: ours, below
    timeout.apply(this, args);
    this[BUDGET] = this._timeout;
    this.timer = timer;
    if (timer) proto.resetTimeout.call(this);
    return this;
  };

  proto.run = function (this: Timed, fn) {
    this[STARTED] = Date.now();
    this._timeout = this[BUDGET] ?? this._timeout; // a hook runs again: its budget, not the last run's wall time
    return run.call(this, fn);
  };

  proto.resetTimeout = function (this: Timed) {
    this.clearTimeout();
    const budget = (this[BUDGET] ??= this._timeout);
    if (!budget) return; // timeout(0): none
    const from = machineNow();
    const wallFrom = Date.now();
    const look = () => {
      const spent = machineNow() - from;
      const left = budget - spent;
      // What mocha compares the test's wall duration with when it ends: spent so far plus what is left, at the last 10 s's pace.
      this._timeout = Math.max(budget, Date.now() - (this[STARTED] ?? wallFrom) + left * recentSlowdown() + TICK_MS);
      if (left <= 0) {
        const err = this._timeoutError(budget);
        const wall = Date.now() - wallFrom;
        err.message = err.message.replace(
          /^Timeout of \d+ms exceeded\./,
          `Timeout of ${budget}ms exceeded (in a quiet machine's time: ${wall} ms on the clock at a measured slowdown of ${(wall / spent).toFixed(1)}×).`,
        );
        this.callback?.(err);
        this.timedOut = true;
        return;
      }
      this.timer = setTimeout(look, Math.min(TICK_MS, Math.max(10, left)));
    };
    look();
  };
}
