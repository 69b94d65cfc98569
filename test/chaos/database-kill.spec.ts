import http from 'node:http';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { report } from './support/audit.js';
import type { ServiceProcess } from './support/processes.js';
import { runChaos, sleep } from './support/run.js';
import { Scenario } from './support/scenario.js';
import { testDatabaseMissing } from '../../scripts/embedded-servers.js';

/**
 * Chaos 2: the private test database's FerretDB process SIGKILLed mid-burst, down for 30 s, then
 * relaunched behind the same address (test/support/private-servers.ts; PostgreSQL keeps running). The API
 * answers 503s meanwhile; workers retry their jobs in place (JOB_RETRY_BUDGET_MS, 60 s) and finish
 * them when it is back. Then, on the same database and processes with a new application each, the
 * database frozen (SIGSTOP): a stall rather than a crash — connections stay open and nothing
 * answers, so requests hang in the driver and the API answers by its own deadline
 * (JOB_WAIT_TIMEOUT_MS + 5 s).
 */
describe('chaos: the database killed (SIGKILL) for 30 s, or frozen (SIGSTOP), mid-burst', function () {
  this.timeout(180_000);
  let scenario: Scenario | undefined;
  let keepLogs = true; // until the hook is through and every test passed: a failure keeps the processes' logs
  let api: ServiceProcess;
  before(async function () {
    const missing = testDatabaseMissing();
    if (missing.length) {
      console.log(`      skipped: the private test database (tools/testdb) needs ${missing.join(', ')}`);
      this.skip();
    }
    scenario = await Scenario.start({ name: 'database-kill', privateDatabase: true, limit: 30 });
    // The driver's topology events (heartbeats, server changes) in the API's log: what its view of
    // the database was, should it not recover.
    [api] = await Promise.all([scenario.startApi({ MONGODB_LOG_TOPOLOGY: 'debug', MONGODB_LOG_PATH: 'stderr' }), scenario.startWorker()]);
    keepLogs = false;
  });
  afterEach(function () {
    keepLogs ||= this.currentTest?.state !== 'passed';
  });
  after(() => scenario?.stop(keepLogs));

  it('when the database dies for 30 s and comes back at its address, then every answer is a 200, a 4xx or a documented 503, and nothing is applied twice or lost', async () => {
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        await scenario!.database!.killFrontEnd();
        await sleep(30_000);
        await scenario!.database!.relaunch();
      },
    });
    report(result);
  });

  it('when the database freezes (SIGSTOP) for 12 s mid-burst, then answers stay bounded and documented, and nothing is applied twice or lost', async () => {
    await scenario!.reseed({ name: 'database-pause', limit: 25 });
    const pid = scenario!.database!.ferretPid;
    const result = await runChaos(scenario!, {
      target: () => api.url!,
      fault: async () => {
        process.kill(pid, 'SIGSTOP');
        await sleep(12_000);
        process.kill(pid, 'SIGCONT');
      },
    });
    report(result);
  });

  /** Resolves once the kernel shows `pid` stopped (a signal waits while a process is in uninterruptible sleep). */
  async function stopped(pid: number): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (/^\S+ \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return;
      await sleep(50);
    }
    throw new Error(`FerretDB ${pid} did not stop within 5 s of SIGSTOP`);
  }

  it('when the database stalls past the answer deadline, then a request answered with a 503 is not applied afterwards, and the next request on its connection gets an answer', async () => {
    await scenario!.reseed({ name: 'database-stall', limit: 5 });
    // One keep-alive connection: the second request reuses the socket of the first.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const credit = (description: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const body = JSON.stringify({ type: 'credit', points: 2, description });
        const headers = {
          authorization: scenario!.app.auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        };
        const req = http.request(`${api.url}/wallets/customer/c00/transactions/loyalty`, { method: 'PUT', agent, headers }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    const applied = async (description: string) =>
      (
        await scenario!.services.repos.walletTransactions.listForCustomer(
          scenario!.app.id,
          scenario!.customerIds.get('c00')!,
          scenario!.walletDbId,
        )
      ).filter((e) => e.description === description && e.state === 'applied').length;
    try {
      // Credentials now in the API's cache (CACHE_CHECK_MS): the next request passes auth and hangs in the database.
      expect((await credit('warm')).status).to.equal(200);
      const pid = scenario!.database!.ferretPid;
      process.kill(pid, 'SIGSTOP');
      await stopped(pid);
      let late: { status: number; body: any };
      let next: Promise<{ status: number; body: any }>;
      try {
        late = await credit('late'); // answered by the deadline, JOB_WAIT_TIMEOUT_MS + 5 s
        next = credit('next').catch((err: Error) => ({ status: 0, body: err.message }));
        await sleep(500);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      expect(late.status).to.equal(503);
      expect(late.body.details).to.match(/^a dependency is unavailable; retry later/);
      // The next request on that connection gets an answer (never a reset): applied (200), or — when
      // the database, resumed, cannot finish it within the job wait on a loaded machine — the
      // documented 503 that says it was not applied. Either way the ledger agrees with the answer.
      const answer = await next;
      const said = `the next request on the connection: ${answer.status} ${JSON.stringify(answer.body)}`;
      expect(answer.status === 200 || (answer.status === 503 && answer.body.applied === false), said).to.equal(true);
      expect((await scenario!.drained(20_000)).unfinished).to.equal(0);
      // "retry later" without a key says nothing was applied: it must stay so.
      expect(await applied('late')).to.equal(0);
      expect(await applied('next'), said).to.equal(answer.status === 200 ? 1 : 0);
    } finally {
      agent.destroy();
    }
  });
});
