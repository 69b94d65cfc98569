import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * Chaos 1: the private Redis (AOF, fsync always) SIGKILLed mid-burst, with jobs queued and running
 * (the workers' database calls slowed by 40 ms), down for 15 s, restarted behind the same address
 * from its AOF: the queues survive; the API answers 503s meanwhile and never dies.
 */
describe('chaos: Redis killed (SIGKILL) for 15 s mid-burst', function () {
  this.timeout(180_000);
  const slow = { TEST_SLOW_DB_MS: '40' };
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'redis-kill', limit: 25 });
    [api] = await Promise.all([scenario.startApi(), scenario.startWorker(slow), scenario.startWorker(slow)]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when Redis dies for 15 s and comes back from its AOF, then every answer is a 200, a 4xx or a documented 503, and nothing is applied twice or lost', async () => {
    let queuedAtKill = 0;
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        for (let i = 0; i < 200 && queuedAtKill < 2; i++) queuedAtKill = (await scenario!.queueCounts()).unfinished;
        await scenario!.redis.kill();
        await sleep(15_000);
        await scenario!.redis.launch();
      },
    });
    report(result);
    expect(queuedAtKill, 'jobs queued or running at the kill').to.be.at.least(2);
  });
});
