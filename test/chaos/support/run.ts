/**
 * The shape every chaos scenario shares: a steady burst, the fault in its middle, the burst
 * carrying on after it, every operation followed to a final answer, the queues drained, a fresh
 * request through the service as it is now (recovered without restarts), then the audit.
 *
 * How long the service may take after the fault is derived from what the scenario measured
 * before it, on this machine as it is now (other lanes, other work): its capacity (a probe of
 * concurrent operations beside the burst), its slowest answer, and the backlog the fault left.
 * The derivation is printed with the result; the bounds never weaken what is checked: nothing
 * lost, nothing applied twice, no 5xx, every client answered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { audit, type AuditReport } from './audit.js';
import { Burst, LATENESS_MARGIN, MAX_BACKOFF_MS, type Op } from './burst.js';
import { CHAOS_ENV, type Scenario } from './scenario.js';
import type { ServiceProcess } from './processes.js';
import { timeoutFromNow } from '../../support/pace.js';
import { verifyApplication } from '../../../shared/usecases/verify-exactness.usecase.js';
import { checkHistory, partitionsIn, plantedDefects } from '../../support/linearizability.js';
import { historyOfBurst } from './history.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The fault of the worker-kill scenarios: the only worker SIGKILLed while it runs jobs, and a new
 * one started at once (then 3 s of load). Frozen first, then looked at: a job active now cannot
 * finish before the kill. Returns how many jobs were active at the kill.
 */
export async function killWorkerMidJob(scenario: Scenario, victim: ServiceProcess, env: NodeJS.ProcessEnv): Promise<number> {
  let activeAtKill = 0;
  for (let i = 0; i < 100 && activeAtKill === 0; i++) {
    process.kill(victim.child.pid!, 'SIGSTOP');
    activeAtKill = (await scenario.queueCounts()).active;
    if (activeAtKill === 0) process.kill(victim.child.pid!, 'SIGCONT');
    if (activeAtKill === 0) await sleep(30);
  }
  await victim.kill();
  await scenario.startWorker(env);
  await sleep(3000);
  return activeAtKill;
}

export interface ChaosPlan {
  /** Operations started per second at most (default 10); less on a machine that finishes fewer (`RATE_SHARE`). */
  rateHz?: number;
  /** Load before the fault (default 3 s) and after it (default 3 s). */
  beforeMs?: number;
  afterMs?: number;
  /** The API requests go to (read at every request). */
  target: () => string;
  /** Brings the fault and ends it (a kill and a restart, a pause and a resume, ...). */
  fault: (burst: Burst) => Promise<void>;
}

export interface ChaosRun extends AuditReport {
  burst: Burst;
  faultStartedAt: number;
  faultEndedAt: number;
  bounds: Bounds;
}

/** The stated margin on every measured figure. */
const MARGIN = 3;

/**
 * The burst offers at most this share of the capacity measured just before it starts: the queue
 * must not grow on its own before the fault, or the fault's backlog, and every client's retries of
 * it, grow with how busy the machine happens to be (more operations a second offered than the
 * service finishes leave hundreds waiting when the worker comes back, and their clients' retries
 * can keep the API from reading new requests for over a minute).
 */
const RATE_SHARE = 0.5;
/** How many times at most the burst is lowered before the fault, when the capacity measured beside it fell. */
const RESIZINGS = 3;

/** The API's own bound on any answer (api/app.ts: JOB_WAIT_TIMEOUT_MS + 5 s). */
const ANSWER_BOUND_MS = Number(CHAOS_ENV.JOB_WAIT_TIMEOUT_MS) + 5000;
/** After the fault: the client's longest pause between retries (5 s, burst.ts), a job a dead or frozen worker held (its lock, then the stall check), a worker's retry backoff (2 s cap). */
const RECOVERY_MS = MAX_BACKOFF_MS + Number(CHAOS_ENV.JOB_LOCK_MS) + Number(CHAOS_ENV.STALLED_INTERVAL_MS) + 2000;

export interface Bounds {
  /** Operations per second the service finished in the capacity probe (beside the burst). */
  capacity: number;
  /** The slowest answer before the fault (ms). */
  slowestBefore: number;
  /** Operations without a final answer when the fault ended, and those the burst adds after it. */
  backlog: number;
  arriving: number;
  /** How long after the fault ends every operation must have its final answer (ms). */
  graceMs: number;
  /** An exchange without an answer for this long is a hang (ms). */
  hangMs: number;
  /** How the bounds were derived, for the report. */
  derivation: string;
}

/** Runs `probes` keyed credits at once (one per customer) beside the burst: operations per second. */
async function measureCapacity(scenario: Scenario, burst: Burst): Promise<number> {
  const started = Date.now();
  const probes = await Promise.all(scenario.sourceIds.map((sourceId) => burst.runOne('credit', sourceId, { points: 0.25, keyed: true })));
  const ok = probes.filter((p) => p.final === 'ok').length;
  return ok / Math.max(0.001, (Date.now() - started) / 1000);
}

const slowestAnswer = (ops: Op[], before: number) =>
  Math.max(0, ...ops.flatMap((o) => o.exchanges.filter((x) => x.startedAt < before && typeof x.status === 'number').map((x) => x.ms)));

export async function runChaos(scenario: Scenario, plan: ChaosPlan): Promise<ChaosRun> {
  const startedAt = Date.now();
  const afterMs = plan.afterMs ?? 3000;
  const burst = new Burst(scenario, { rateHz: plan.rateHz ?? 10, target: plan.target, seed: 0x5eed + (startedAt % 1000) });
  const idleCapacity = await measureCapacity(scenario, burst);
  let rateHz = Math.max(1, Math.min(plan.rateHz ?? 10, RATE_SHARE * idleCapacity));
  burst.start(rateHz);
  await sleep(plan.beforeMs ?? 3000);
  let capacity = await measureCapacity(scenario, burst);
  // The machine may have got busier since the first measurement (other lanes starting up): a burst
  // above its share of what the service finishes now (the probe's operations a second beside it,
  // plus the burst's own) would grow a queue before the fault even begins. It is lowered to that
  // share and the capacity measured again, until they agree.
  const sizings = [`${rateHz.toFixed(1)} ops/s (≤ ${RATE_SHARE} × ${idleCapacity.toFixed(1)} ops/s measured before it)`];
  for (let i = 0; i < RESIZINGS && rateHz > 1 && rateHz > RATE_SHARE * (capacity + rateHz); i++) {
    const total = capacity + rateHz;
    rateHz = Math.max(1, RATE_SHARE * total);
    burst.setRate(rateHz);
    sizings.push(`${rateHz.toFixed(1)} ops/s (${RATE_SHARE} × (${capacity.toFixed(1)} ops/s measured beside the burst + its own))`);
    await sleep(plan.beforeMs ?? 3000);
    capacity = await measureCapacity(scenario, burst);
  }
  const faultStartedAt = Date.now();
  const slowestBefore = slowestAnswer(burst.ops, faultStartedAt);
  await plan.fault(burst);
  const faultEndedAt = Date.now();
  const backlog = burst.ops.filter((o) => !o.final).length;
  const arriving = Math.ceil((rateHz * afterMs) / 1000);
  const drainMs = ((backlog + arriving) / capacity) * 1000;
  const graceMs = Math.round(ANSWER_BOUND_MS + RECOVERY_MS + MARGIN * drainMs);
  // A request may wait behind the whole backlog before the API gets to it (on two cores a starved
  // event loop is late with its own deadline too): the hang bound covers what the backlog costs.
  const hangMs = Math.round(ANSWER_BOUND_MS + MARGIN * Math.max(slowestBefore, drainMs));
  const bounds: Bounds = {
    capacity,
    slowestBefore,
    backlog,
    arriving,
    graceMs,
    hangMs,
    derivation:
      `burst ${sizings.join(', then ')}; ` +
      `measured before the fault: capacity ${capacity.toFixed(1)} ops/s, slowest answer ${slowestBefore} ms; ` +
      `backlog ${backlog} + ${arriving} arriving → every final answer within ${(graceMs / 1000).toFixed(1)} s of the fault's end ` +
      `(= answer bound ${ANSWER_BOUND_MS / 1000} s + recovery ${RECOVERY_MS / 1000} s + ${MARGIN} × drain ${(drainMs / 1000).toFixed(1)} s), ` +
      `a hang past ${(hangMs / 1000).toFixed(1)} s (= answer bound + ${MARGIN} × the larger of the slowest answer and the drain) ` +
      `plus ${LATENESS_MARGIN} × the API's lateness while it was open (its slowest /healthz answer meanwhile)`,
  };
  // The test's timeout from the bounds (its spec's own covers only the part before the fault):
  // every final answer (by the burst's deadline, which follows the drain's pace), the queues
  // drained (graceMs at most), then the probe and the audit (the answer bound, with the margin).
  const rest = graceMs + MARGIN * ANSWER_BOUND_MS;
  const followDeadline = (deadline: number) => timeoutFromNow(Math.max(afterMs, deadline - Date.now()) + rest);
  // After each final answer: the operations still open at the drain's latest pace, with the margin,
  // behind one answer's bound and the recovery of a job a worker held (a retry arriving after it).
  const drainBound = (open: number, paceMs: number) => ANSWER_BOUND_MS + RECOVERY_MS + MARGIN * paceMs * Math.max(1, open);
  burst.faultEnded(graceMs, hangMs, drainBound, followDeadline);
  followDeadline(burst.finalDeadline);
  await sleep(afterMs);
  await burst.finish();
  const answeredAfterMs = Date.now() - faultEndedAt;
  const deadlineAfterMs = burst.finalDeadline - faultEndedAt;
  const problems: string[] = [];

  // Jobs nobody waits for any more (unkeyed requests whose connection was reset) run too.
  const queues = await scenario.drained(graceMs);
  if (queues.unfinished > 0) problems.push(`${queues.unfinished} job(s) still queued or running ${graceMs} ms after the last answer`);
  if (queues.failed > 0) problems.push(`${queues.failed} job(s) failed`);

  // Recovered without restarts: a fresh keyed credit succeeds at once, and a read agrees with the database.
  const probe = await burst.runOne('credit', scenario.sourceIds[0]!, { points: 1, keyed: true, withinMs: ANSWER_BOUND_MS });
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

  const result = await audit(scenario, burst.ops, startedAt, hangMs);
  // The exactness verifier on the scenario's database: every counter and balance re-derived from the journals.
  // Every acknowledged answer one a correct service could give (docs/reliability.md, "Linearizability"),
  // and the checker shown to catch lies planted in this very history before it is trusted.
  // A budgeted coupon's model is money, not a count: its scenario checks the wallets' partitions only.
  // The queues are drained: everything settled, and the audit read what the database holds applied.
  const full = historyOfBurst(burst.ops, scenario.opts.limit, Date.now(), result.applied);
  const history = 'budget' in scenario.opts && scenario.opts.budget ? { wallets: full.wallets } : full;
  // Kept with the scenario's logs (CHAOS_KEEP=1, or a failure): `cd tools/lincheck && go run . < history.json` replays the check.
  writeFileSync(join(scenario.dir, 'history.json'), JSON.stringify(history));
  const checkStarted = Date.now();
  // Each of the three checks may take the checker's 60 s per partition.
  timeoutFromNow(3 * 60_000 + (checkStarted - startedAt));
  const verdict = checkHistory(history);
  const checkMs = Date.now() - checkStarted;
  // Anything but linearizable fails the scenario: an illegal partition, and one the checker could not
  // decide in its time (tools/lincheck's reductions keep a burst that waited out an outage — 60
  // operations pending at once — to milliseconds; undecided would be a history beyond them, kept in
  // history.json for its replay). A planted lie must be found illegal, not merely left undecided.
  const illegal = partitionsIn(verdict, 'illegal');
  const undecided = partitionsIn(verdict, 'unknown');
  if (!verdict.linearizable) problems.push(`linearizability: not linearizable: ${JSON.stringify(verdict.partitions)}`);
  const planted = plantedDefects(history);
  let caught = 0;
  for (const p of planted) {
    const v = checkHistory(p.history);
    if (partitionsIn(v, 'illegal').length > 0) caught++;
    else problems.push(`linearizability: the planted defect "${p.name}" was not found illegal: ${JSON.stringify(v.partitions)}`);
  }
  const verified = await verifyApplication(scenario.services, scenario.app.id, { eventGraceMs: 0 });
  for (const d of verified.discrepancies)
    problems.push(`verifier: ${d.kind}: ${d.message} — ${d.documents.map((x) => `${x.collection}/${x.id}`).join(' ')}`);
  const verifierLine =
    `      [chaos] verifier: ${verified.discrepancyCount} discrepancies, ${verified.inFlightCount} in flight; ` +
    `${verified.checked.cycles} cycles, ${verified.checked.counters} counters, ${verified.checked.balances} balances, ` +
    `${verified.checked.entries} ledger entries in ${verified.finishedAt.getTime() - verified.startedAt.getTime()} ms\n` +
    `      [chaos] linearizability: ${verdict.linearizable ? 'linearizable' : illegal.length ? 'NOT linearizable' : `undecided in time: ${undecided.join(', ')}`} — ` +
    `${history.coupon?.ops.length ?? 0} coupon operations, ${Object.values(history.wallets).flat().length} wallet operations ` +
    `in ${Object.keys(history.wallets).length} wallets (${checkMs} ms); planted defects found illegal: ${caught} of ${planted.length}`;
  // Every exchange of every operation, for a post-mortem (kept with the logs when the test fails, or with CHAOS_KEEP=1).
  // One file per scenario run on this directory (a reseeded scenario must not overwrite the one before).
  writeFileSync(
    join(scenario.dir, `ops-${scenario.opts.name}.json`),
    JSON.stringify({ faultStartedAt, faultEndedAt, ops: burst.ops }, null, 1),
  );
  if (problems.length + result.problems.length > 0) {
    // The queues as they are now, and the jobs of the operations that ended without a final answer.
    const keys = burst.ops
      .filter((o) => o.final !== 'ok' && o.final !== 'refused')
      .flatMap((o) => o.exchanges.map((x) => x.sentKey ?? x.headerKey ?? ''));
    const dump = await scenario.queueDump([...new Set(keys.filter(Boolean))]).catch((err: Error) => ({ error: err.message }));
    writeFileSync(join(scenario.dir, 'queues.json'), JSON.stringify(dump, null, 1));
  }
  return {
    ...result,
    line:
      `${result.line}\n      [chaos] bounds: ${bounds.derivation}; ` +
      `the last final answer ${(answeredAfterMs / 1000).toFixed(1)} s after the fault's end, the deadline then ${(deadlineAfterMs / 1000).toFixed(1)} s ` +
      `(the grace, or later where the drain's pace said so: answer bound + recovery + ${MARGIN} × the pace of the last final answers × the operations open); ` +
      `the API's slowest /healthz answer ${burst.livenessAnswers.slowestMs} ms of ${burst.livenessAnswers.asked}\n${verifierLine}`,
    problems: [...problems, ...result.problems],
    burst,
    faultStartedAt,
    faultEndedAt,
    bounds,
  };
}
