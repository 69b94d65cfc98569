import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';
import { METRICS_TOKEN, metricAt } from './support/metrics.js';
import { parseConfig } from '../../shared/config.js';

/** The API's default SHED_LATENESS_MS: the scenario runs it as shipped. */
const SHED_LATENESS_MS = parseConfig({}).shedLatenessMs;
/** Each cycle of the fault: the API frozen this long (longer than SHED_LATENESS_MS)… */
const FROZEN_MS = 6000;
/** …then running this long: a tenth of the time, as an API among 40 runnable tasks on 2 cores. */
const RUNNING_MS = 600;

/** `coupons_http_requests_shed_total` of an API process. */
const shedAt = (api: ServiceProcess) => metricAt(api, 'coupons_http_requests_shed_total');

/**
 * Chaos 8: the API starved of CPU for 20 s mid-burst — frozen (SIGSTOP) 6 s of every 6.6 s —
 * as on a machine whose other work takes nine tenths of it. Its event loop is then later than
 * SHED_LATENESS_MS at every waking: it sheds requests (documented 503s, nothing done) rather than
 * taking on work it would answer only at its deadline and go on doing after it (docs/reliability.md).
 */
describe('chaos: the API starved of CPU (frozen 6 s of every 6.6 s) for 20 s mid-burst', function () {
  this.timeout(180_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'starved-api', limit: 25 });
    [api] = await Promise.all([scenario.startApi({ METRICS_TOKEN }), scenario.startWorker()]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('the scenario freezes the API for longer than the shipped shedding bound', () => {
    expect(FROZEN_MS).to.be.greaterThan(SHED_LATENESS_MS);
  });

  it('when the API gets a tenth of the CPU for 20 s, then it sheds load with documented 503s, recovers by itself, and nothing is applied twice or lost', async () => {
    const shedBefore = await shedAt(api);
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        const pid = api.child.pid!;
        for (const end = Date.now() + 20_000; Date.now() < end;) {
          process.kill(pid, 'SIGSTOP');
          try {
            await sleep(FROZEN_MS);
          } finally {
            process.kill(pid, 'SIGCONT');
          }
          await sleep(RUNNING_MS);
        }
      },
    });
    report(result);
    expect(await shedAt(api), 'requests the API shed while starved').to.be.greaterThan(shedBefore);
  });
});
