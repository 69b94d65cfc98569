import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * Chaos 5: the only worker drains and stops (SIGTERM) mid-burst; for 20 s no worker runs, so every
 * wait ends in a 503 (a job not started is withdrawn: "applied": false); then a new worker starts.
 */
describe('chaos: no worker for 20 s mid-burst, then one starts', function () {
  this.timeout(180_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  let worker: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'no-worker', limit: 25 });
    [api, worker] = await Promise.all([scenario.startApi(), scenario.startWorker()]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when no worker runs for 20 s, then waiting requests get documented 503s, retries apply each operation once, and a new worker clears the queue', async () => {
    let drainExit: number | null = null;
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        drainExit = await worker.stop();
        await sleep(20_000);
        await scenario!.startWorker();
      },
    });
    report(result);
    expect(drainExit, 'the worker drains and exits 0 on SIGTERM').to.equal(0);
  });
});
