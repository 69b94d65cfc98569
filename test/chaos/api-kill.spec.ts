import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * Chaos 4: the API SIGKILLed while keyed and unkeyed requests wait on it (the worker's database
 * calls slowed by 25 ms so that requests wait); from then on the load and every retry go to a
 * second API process. A keyed request whose connection was reset is retried with its key; an
 * unkeyed one got no advice and is not retried: its job still runs, at most once.
 */
describe('chaos: the API killed (SIGKILL) with requests waiting', function () {
  this.timeout(180_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let first: ServiceProcess;
  let second: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'api-kill', limit: 20 });
    [first, second] = await Promise.all([scenario.startApi(), scenario.startApi(), scenario.startWorker({ TEST_SLOW_DB_MS: '25' })]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when the API dies with keyed and unkeyed requests waiting, then keyed retries through another API resolve once and unkeyed ones apply at most once', async () => {
    let current = () => first;
    let atKill = { withKey: 0, withoutKey: 0 };
    const result = await runChaos(scenario!, {
      target: () => current().url!,
      fault: async (burst) => {
        // Kill when both kinds of request are waiting on the first API.
        for (let i = 0; i < 100; i++) {
          atKill = burst.inFlightTo(first.url!);
          if (atKill.withKey > 0 && atKill.withoutKey > 0) break;
          await sleep(50);
        }
        current = () => second;
        await first.kill();
        await sleep(3000);
      },
    });
    report(result);
    expect(atKill.withKey, 'keyed requests waiting at the kill').to.be.greaterThan(0);
    expect(atKill.withoutKey, 'unkeyed requests waiting at the kill').to.be.greaterThan(0);
    // The kill cut connections; only unkeyed requests were left without a final answer (a reply
    // already on its way may still have arrived), and every keyed one got its final answer (above).
    expect(result.figures.resets, 'connections cut by the kill').to.be.greaterThan(0);
    expect(result.figures.abandoned).to.be.at.most(atKill.withoutKey);
  });
});
