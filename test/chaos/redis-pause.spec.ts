import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * Chaos 6: the private Redis frozen (SIGSTOP) mid-burst for 15 s, then SIGCONT. Connections stay
 * open but nothing answers: adds time out (2 s), locks expire meanwhile, blocked readers wake up.
 */
describe('chaos: Redis paused (SIGSTOP) for 15 s mid-burst', function () {
  this.timeout(180_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'redis-pause', limit: 25 });
    [api] = await Promise.all([scenario.startApi(), scenario.startWorker(), scenario.startWorker()]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when Redis stops answering for 15 s, then answers stay bounded and documented, and nothing is applied twice or lost', async () => {
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        scenario!.redis.pause();
        await sleep(15_000);
        scenario!.redis.resume();
      },
    });
    report(result);
  });
});
