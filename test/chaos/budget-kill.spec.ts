import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { killWorkerMidJob, runChaos } from './support/run.js';
import { Scenario } from './support/scenario.js';

/**
 * Chaos: a worker SIGKILLed mid-burst while the coupon's money budget runs out. The coupon gives
 * 100.00 off each order of the burst (10% of a 1000 cart) from a budget of 550.50 that caps
 * (`when_exceeded: cap`): five orders in full, a sixth cut to 50.50, then budget_exhausted — until
 * a revert gives an amount back. The only worker (its database calls slowed by 25 ms) is killed
 * with jobs active and a new one started at once; the stalled jobs run again. The audit then checks,
 * beside what every scenario checks (nothing lost, nothing applied twice, no 5xx but the documented
 * 503s, every client answered): the counter's `amt` = the completed redemptions' `budgetCents`,
 * never above the budget; and the verifier (run by runChaos) re-derives every counter's `amt`.
 */
describe('chaos: a worker killed (SIGKILL) while a money budget runs out', function () {
  this.timeout(180_000);
  const slow = { TEST_SLOW_DB_MS: '25' };
  const BUDGET_CENTS = 55_050;
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  let victim: ServiceProcess;
  before(async () => {
    scenario = await Scenario.start({
      name: 'budget-kill',
      limit: 10_000, // the budget binds, not the count
      budget: {
        totalCents: BUDGET_CENTS,
        perDayCents: null,
        perWeekCents: null,
        perMonthCents: null,
        perCustomerCents: null,
        whenExceeded: 'cap',
        notifyAt: [],
      },
    });
    [api, victim] = await Promise.all([scenario.startApi(), scenario.startWorker(slow)]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when the worker dies mid-job as the budget runs out, then nothing is applied twice, spent never passes the budget and amt is the journal to the cent', async () => {
    let activeAtKill = 0;
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        activeAtKill = await killWorkerMidJob(scenario!, victim, slow);
      },
    });
    report(result);
    expect(activeAtKill, 'jobs running at the kill').to.be.greaterThan(0);
    expect(scenario!.logged('job stalled, re-queued'), 'stalled jobs re-queued').to.be.greaterThan(0);
    // The budget was reached during the burst (the edge was exercised), and within it (the audit checks every figure).
    expect(result.figures.budgetRefused, 'redeems refused by the budget').to.be.greaterThan(0);
    expect(result.figures.spentCents).to.be.at.most(BUDGET_CENTS);
  });
});
