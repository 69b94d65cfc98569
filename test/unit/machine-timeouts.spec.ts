/**
 * Mocha's timeouts in a quiet machine's time (test/support/machine-timeouts.ts): a test and a hook
 * that take longer on the clock than their timeout, only because other work holds the cores, pass;
 * one that hangs still fails, with the time it was given. Each case is a mocha process of its own
 * over test/fixtures/machine-time/waits.ts (a hook and two tests, each waiting WAIT_MS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { recentSlowdown } from '../support/machine-time.js';

const root = new URL('../../', import.meta.url).pathname;

function runFixture(env: { WAIT_MS: number; BUDGET_MS: number }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'node_modules/mocha/bin/mocha.js',
        '--no-config',
        '--require',
        'test/support/machine-timeouts.ts',
        '--exit',
        'test/fixtures/machine-time/waits.ts',
      ],
      { cwd: root, env: { ...process.env, WAIT_MS: String(env.WAIT_MS), BUDGET_MS: String(env.BUDGET_MS) } },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('test support: timeouts in a quiet machine’s time', function () {
  it('when busy processes hold the cores and a hook and two tests each wait twice their timeout on the clock, then all pass, and the slowdown measured here is at least 2×', async function () {
    // Four busy processes per core: every task that wants a core waits for four others, so a
    // millisecond counts at most a quarter of one and a 2 s wait at most 500 ms of the 1 s budget
    // (the margin: 2×, for timers that fire late on a busy machine). Work beside the suite only
    // slows the count further.
    const busy: ChildProcess[] = Array.from({ length: 4 * availableParallelism() }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    const started = Date.now();
    try {
      const { code, out } = await runFixture({ WAIT_MS: 2000, BUDGET_MS: 1000 });
      expect(out, out).to.match(/2 passing/);
      expect(code, out).to.equal(0);
      // This process's clock measured it too, over a window (10 s) spent wholly beside the busy
      // processes: what a browser action's wall-clock timeout is multiplied by (test/support/browser.ts).
      await new Promise((r) => setTimeout(r, Math.max(0, 10_500 - (Date.now() - started))));
      expect(recentSlowdown()).to.be.at.least(2);
    } finally {
      for (const p of busy) p.kill('SIGKILL');
    }
  });

  it('when a test hangs, then it still fails on its timeout, which names the time it was given and the slowdown measured', async function () {
    const { code, out } = await runFixture({ WAIT_MS: 3_600_000, BUDGET_MS: 300 });
    expect(code, out).to.not.equal(0);
    expect(out).to.match(/Timeout of 300ms exceeded \(in a quiet machine's time: \d+ ms on the clock at a measured slowdown of \d+\.\d×\)/);
  });
});
