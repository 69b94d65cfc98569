/**
 * The shape every chaos scenario shares: a steady burst, the fault in its middle, the burst
 * carrying on after it, every operation followed to a final answer, the queues drained, a fresh
 * request through the service as it is now (recovered without restarts), then the audit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { audit, type AuditReport } from './audit.js';
import { Burst } from './burst.js';
import type { Scenario } from './scenario.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ChaosPlan {
  /** Operations started per second (default 10). */
  rateHz?: number;
  /** Load before the fault (default 3 s) and after it (default 3 s). */
  beforeMs?: number;
  afterMs?: number;
  /** After the fault ends, how long an operation may still take to get a final answer. */
  graceMs: number;
  /** The API requests go to (read at every request). */
  target: () => string;
  /** Brings the fault and ends it (a kill and a restart, a pause and a resume, ...). */
  fault: (burst: Burst) => Promise<void>;
}

export interface ChaosRun extends AuditReport {
  burst: Burst;
  faultStartedAt: number;
  faultEndedAt: number;
}

export async function runChaos(scenario: Scenario, plan: ChaosPlan): Promise<ChaosRun> {
  const startedAt = Date.now();
  const burst = new Burst(scenario, { rateHz: plan.rateHz ?? 10, target: plan.target, seed: 0x5eed + (startedAt % 1000) }).start();
  await sleep(plan.beforeMs ?? 3000);
  const faultStartedAt = Date.now();
  await plan.fault(burst);
  const faultEndedAt = Date.now();
  burst.faultEnded(plan.graceMs);
  await sleep(plan.afterMs ?? 3000);
  await burst.finish();
  const problems: string[] = [];

  // Jobs nobody waits for any more (unkeyed requests whose connection was reset) run too.
  const queues = await scenario.drained(30_000);
  if (queues.unfinished > 0) problems.push(`${queues.unfinished} job(s) still queued or running 30 s after the last answer`);
  if (queues.failed > 0) problems.push(`${queues.failed} job(s) failed`);

  // Recovered without restarts: a fresh keyed credit succeeds at once, and a read agrees with the database.
  const probe = await burst.runOne('credit', scenario.sourceIds[0]!, { points: 1, keyed: true });
  if (probe.exchanges.length !== 1 || probe.final !== 'ok')
    problems.push(`after the fault a fresh credit got ${probe.exchanges.map((x) => x.status).join(', ')}, not one 200`);
  const customerId = scenario.customerIds.get(scenario.sourceIds[0]!)!;
  const [balance] = (await scenario.services.repos.walletBalances.listByCustomer(scenario.app.id, customerId)).filter(
    (b) => b.walletDbId === scenario.walletDbId,
  );
  const read = await fetch(`${plan.target()}/wallets/customer/${scenario.sourceIds[0]}`, { headers: { authorization: scenario.app.auth } })
    .then(async (res) => ({ status: res.status, body: await res.text() }))
    .catch((err: Error) => ({ status: 0, body: `${err.message} (${(err.cause as Error | undefined)?.message})` }));
  if (read.status !== 200 || JSON.parse(read.body)[0]?.loyalty_points !== (balance?.points ?? 0) / 100)
    problems.push(`after the fault a wallet read got ${read.status} ${read.body}, the database holds ${balance?.points} hundredths`);

  // The fault was felt by the load: operations ran across it.
  const during = burst.ops.filter((o) => o.startedAt >= faultStartedAt && o.startedAt < faultEndedAt).length;
  const afterwards = burst.ops.filter((o) => o.startedAt >= faultEndedAt && o.final === 'ok').length;
  if (during === 0) problems.push('no operation started during the fault');
  if (afterwards === 0) problems.push('no operation started after the fault was acknowledged');

  const result = await audit(scenario, burst.ops, startedAt);
  // Every exchange of every operation, for a post-mortem (kept with the logs when the test fails, or with CHAOS_KEEP=1).
  writeFileSync(join(scenario.dir, 'ops.json'), JSON.stringify({ faultStartedAt, faultEndedAt, ops: burst.ops }, null, 1));
  return { ...result, problems: [...problems, ...result.problems], burst, faultStartedAt, faultEndedAt };
}
