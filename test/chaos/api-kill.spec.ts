import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';
import { METRICS_TOKEN, metricAt } from './support/metrics.js';

/** `coupons_http_requests_in_flight` of an API process. */
const inFlightAt = (api: ServiceProcess) => metricAt(api, 'coupons_http_requests_in_flight');

/**
 * Chaos 4: the API SIGKILLed while keyed and unkeyed requests wait on it; from then on the load and
 * every retry go to a second API process. The worker's database calls are slowed by 25 ms, and the
 * worker is paused (SIGSTOP) from just before the kill until just after it: the requests the API
 * reports in flight (`coupons_http_requests_in_flight`) cannot be answered in between, so the kill
 * is known to cut connections (a client's own count of requests in flight is not: on a busy
 * machine their answers may already be on their way). A keyed request whose connection was reset is retried with its key; an
 * unkeyed one got no advice and is not retried: its job still runs, at most once.
 */
describe('chaos: the API killed (SIGKILL) with requests waiting', function () {
  this.timeout(180_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let first: ServiceProcess;
  let second: ServiceProcess;
  let worker: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({ name: 'api-kill', limit: 20 });
    const env = { METRICS_TOKEN };
    [first, second, worker] = await Promise.all([
      scenario.startApi(env),
      scenario.startApi(env),
      scenario.startWorker({ TEST_SLOW_DB_MS: '25' }),
    ]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when the API dies with keyed and unkeyed requests waiting, then keyed retries through another API resolve once and unkeyed ones apply at most once', async () => {
    let current = () => first;
    let atKill = { withKey: 0, withoutKey: 0 };
    let held = 0;
    const result = await runChaos(scenario!, {
      target: () => current().url!,
      fault: async (burst) => {
        process.kill(worker.child.pid!, 'SIGSTOP');
        try {
          // Kill when both kinds of request are waiting on the first API and it holds some.
          for (let i = 0; i < 100; i++) {
            held = (await inFlightAt(first)) - 1; // less the scrape
            const waiting = burst.inFlightTo(first.url!);
            if (waiting.withKey > 0 && waiting.withoutKey > 0 && held > 0) break;
            await sleep(50);
          }
          // New requests go to the second API from now on; what is in flight to the first now is
          // all the kill can cut (counted after the switch: the scrape above took time, during
          // which more were sent to the first).
          current = () => second;
          atKill = burst.inFlightTo(first.url!);
          await first.kill();
        } finally {
          process.kill(worker.child.pid!, 'SIGCONT');
        }
        await sleep(3000);
      },
    });
    report(result);
    expect(atKill.withKey, 'keyed requests waiting at the kill').to.be.greaterThan(0);
    expect(atKill.withoutKey, 'unkeyed requests waiting at the kill').to.be.greaterThan(0);
    expect(held, 'requests the API held at the kill').to.be.greaterThan(0);
    // The kill cut connections; only unkeyed requests were left without a final answer (a reply
    // already on its way may still have arrived), and every keyed one got its final answer (above).
    expect(result.figures.resets, 'connections cut by the kill').to.be.greaterThan(0);
    expect(result.figures.abandoned).to.be.at.most(atKill.withoutKey);
  });
});
