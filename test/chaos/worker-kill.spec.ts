import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { killWorkerMidJob, runChaos } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * Chaos 3: a worker SIGKILLed mid-burst while it runs jobs, and a new one started at once. The
 * victim is the only worker until then (its database calls slowed by 25 ms), so every job active
 * at the kill is its own: they stall, and the new worker re-queues them after their lock (5 s) and
 * runs them again.
 */
describe('chaos: a worker killed (SIGKILL) mid-burst', function () {
  this.timeout(180_000);
  const slow = { TEST_SLOW_DB_MS: '25' };
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  let victim: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'worker-kill', limit: 20 });
    [api, victim] = await Promise.all([scenario.startApi(), scenario.startWorker(slow)]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when the worker dies mid-job and a new one starts, then its jobs run again, nothing is applied twice or lost and counters stay exact', async () => {
    let activeAtKill = 0;
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        activeAtKill = await killWorkerMidJob(scenario!, victim, slow);
      },
    });
    report(result);
    expect(activeAtKill, 'jobs running at the kill').to.be.greaterThan(0);
    // The kill interrupted them: the new worker found them stalled and ran them again.
    expect(scenario!.logged('job stalled, re-queued'), 'stalled jobs re-queued').to.be.greaterThan(0);
  });
});
