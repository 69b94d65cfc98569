import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';
import { testDatabaseMissing } from '../../scripts/embedded-servers.js';

/**
 * Chaos 2: the private test database's FerretDB process SIGKILLed mid-burst, down for 30 s, then
 * relaunched on the same port (tools/testdb/start.sh DIR PORT; PostgreSQL keeps running). The API
 * answers 503s meanwhile; workers retry their jobs in place (JOB_RETRY_BUDGET_MS, 60 s) and finish
 * them when it is back.
 */
describe('chaos: the database killed (SIGKILL) for 30 s mid-burst', function () {
  this.timeout(240_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the test passes: a failed hook or test keeps the processes' logs
  let api: ServiceProcess;
  before(async function () {
    const missing = testDatabaseMissing();
    if (missing.length) {
      console.log(`      skipped: the private test database (tools/testdb) needs ${missing.join(', ')}`);
      this.skip();
    }
    scenario = await Scenario.start({ name: 'database-kill', privateDatabase: true, limit: 30 });
    [api] = await Promise.all([scenario.startApi(), scenario.startWorker()]);
  });
  afterEach(function () {
    keepLogs = this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when the database dies for 30 s and comes back on its port, then every answer is a 200, a 4xx or a documented 503, and nothing is applied twice or lost', async () => {
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      graceMs: 45_000,
      fault: async () => {
        await scenario!.database!.killFrontEnd();
        await sleep(30_000);
        await scenario!.database!.relaunch();
      },
    });
    report(result);
  });
});
