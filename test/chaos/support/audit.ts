/**
 * After a scenario: what the client was told, against what the database holds.
 *
 *  - applied: a redeem whose order has a counted cycle (completed, or reverted later); a revert
 *    whose cycle is reverted; a credit/debit whose tag (its description) is on an applied ledger
 *    entry. Applied twice: a second counted cycle of one order, a second applied entry of one tag.
 *  - lost: acknowledged (200) and not applied. Contradicted: refused (4xx) and applied anyway, or
 *    a 200 whose body does not match what was applied (txn id, points, order).
 *  - balances = the sum of their ledger (`sumApplied`), never below 0; the campaign's total
 *    counter = the journal's completed redemptions, never above the limit; a coupon with a money
 *    budget: the counter's `amt` = the completed redemptions' `budgetCents`, never above the budget.
 */
import { expect } from 'chai';
import { campaignCounterId } from '../../../shared/data/limit-counter.repository.js';
import { BUDGET_EXHAUSTED, TOTAL_LIMIT_EXCEEDED } from '../../../shared/domain/messages.js';
import { operationIdOf } from '../../../shared/usecases/idempotency.js';
import { usageOf } from '../../fixtures/records.js';
import { LATENESS_MARGIN, type Op } from './burst.js';
import { COUPON_CODE, type Scenario } from './scenario.js';

export interface Figures {
  attempted: number;
  acknowledged: number;
  responses503: number;
  applied: number;
  appliedTwice: number;
  lost: number;
  responses5xx: number;
  refused: number;
  unresolved: number;
  abandoned: number;
  hung: number;
  /** Connections cut without an answer. */
  resets: number;
  notApplied503: number;
  pending503: number;
  dependency503: number;
  undocumented503: number;
  alive: number;
  expectedAlive: number;
  seconds: number;
  /** A budgeted coupon: the cents its completed redemptions gave away, and the redeems refused with budget_exhausted; null without a budget. */
  spentCents: number | null;
  budgetRefused: number;
}

export interface AuditReport {
  figures: Figures;
  /** Per operation id: whether the database holds it applied (a counted cycle, a reverted one, an applied ledger entry). */
  applied: Map<string, boolean>;
  line: string;
  /** Every finding, as sentences; the scenario fails if any. */
  problems: string[];
}

/** The 4xx a burst may legitimately get: the limit or the coupon's budget reached (redeem), a debit above the balance. */
function expectedRefusal(op: Op, body: any, budgeted: boolean): boolean {
  if (op.kind === 'redeem')
    return (
      body?.message === 'coupon validation failed' &&
      (body?.details === TOTAL_LIMIT_EXCEEDED || (budgeted && body?.details === BUDGET_EXHAUSTED))
    );
  if (op.kind === 'debit') return body?.message === 'insufficient points' && body?.key === 'points';
  return false;
}

/** @param hangMs - an exchange answered later than this is a hang (the bound the scenario derived) */
export async function audit(scenario: Scenario, ops: Op[], startedAt: number, hangMs: number): Promise<AuditReport> {
  const { services, app, campaign } = scenario;
  const problems: string[] = [];
  const say = (op: Op | null, what: string) => problems.push(op ? `${op.id} (${op.kind} ${op.sourceId}): ${what}` : what);

  // The journal, by order.
  const cycles = (await services.db.models.Redemption.find({ application: app.id }).lean()) as {
    orderId: string;
    state?: string;
    cycle: number;
    budgetCents?: number;
  }[];
  const counted = new Map<string, { completed: number; reverted: number }>();
  for (const c of cycles) {
    if (c.state !== 'completed' && c.state !== 'reverted') continue;
    const n = counted.get(c.orderId) ?? { completed: 0, reverted: 0 };
    n[c.state]++;
    counted.set(c.orderId, n);
  }

  // The ledger, by tag; balances against it.
  const entriesByTag = new Map<string, { id: string; txnId: string; points: number; type: string; createdAt?: Date }[]>();
  const tags = new Set(ops.map((o) => o.id));
  for (const [sourceId, customerId] of scenario.customerIds) {
    const entries = await services.repos.walletTransactions.listForCustomer(app.id, customerId, scenario.walletDbId);
    for (const e of entries) {
      if (e.state === 'pending') say(null, `${sourceId}: a ledger entry still pending after the queues drained (${e.description})`);
      if (e.state !== 'applied') continue;
      if (!tags.has(e.description)) say(null, `${sourceId}: an applied ledger entry no operation sent (${e.description})`);
      entriesByTag.set(e.description, [...(entriesByTag.get(e.description) ?? []), e]);
    }
    const [balance] = (await services.repos.walletBalances.listByCustomer(app.id, customerId)).filter(
      (b) => b.walletDbId === scenario.walletDbId,
    );
    const sum = await services.repos.walletTransactions.sumApplied(app.id, customerId, scenario.walletDbId);
    const points = balance?.points ?? 0;
    if (points !== sum) say(null, `${sourceId}: balance ${points} ≠ its ledger ${sum} (hundredths)`);
    if (points < 0) say(null, `${sourceId}: balance ${points} below 0`);
  }

  // Counters.
  const completed = cycles.filter((c) => c.state === 'completed').length;
  const total = await usageOf(services, app.id, campaign.id, 'total');
  if (total !== completed) say(null, `the campaign's total counter is ${total}, the journal has ${completed} completed redemptions`);
  if (completed > scenario.opts.limit) say(null, `${completed} completed redemptions exceed the limit ${scenario.opts.limit}`);
  const budget = campaign.budget?.totalCents ?? null;
  let spentCents: number | null = null;
  if (campaign.budget) {
    spentCents = cycles.filter((c) => c.state === 'completed').reduce((s, c) => s + (c.budgetCents ?? 0), 0);
    const amt = (await services.repos.limitCounters.find(campaignCounterId(campaign.id)))?.amt ?? 0;
    if (amt !== spentCents) say(null, `the campaign counter's amt is ${amt} cents, the journal's completed redemptions gave ${spentCents}`);
    if (budget !== null && spentCents > budget) say(null, `${spentCents} cents given away exceed the budget ${budget}`);
  }

  const f: Figures = {
    attempted: ops.length,
    acknowledged: 0,
    responses503: 0,
    applied: 0,
    appliedTwice: 0,
    lost: 0,
    responses5xx: 0,
    refused: 0,
    unresolved: 0,
    abandoned: 0,
    hung: 0,
    resets: 0,
    notApplied503: 0,
    pending503: 0,
    dependency503: 0,
    undocumented503: 0,
    alive: 0,
    expectedAlive: 0,
    seconds: Math.round((Date.now() - startedAt) / 1000),
    spentCents,
    budgetRefused: 0,
  };
  const applied = new Map<string, boolean>();
  // Only an API the test killed may cut a connection: a live one answers every request.
  const killed = new Set(scenario.processes.filter((p) => p.deliberatelyEnded && p.url).map((p) => p.url));
  for (const op of ops) {
    for (const x of op.exchanges) {
      if (x.status === 'reset') {
        f.resets++;
        if (!killed.has(x.url)) say(op, `the connection was cut without an answer after ${x.ms} ms (${x.problem})`);
      }
      if (x.status === 503) f.responses503++;
      if (typeof x.status === 'number' && x.status >= 500 && x.status !== 503) {
        f.responses5xx++;
        say(op, `answered ${x.status} ${JSON.stringify(x.body)}`);
      }
      if (x.kind503 === 'not_applied') f.notApplied503++;
      if (x.kind503 === 'pending') f.pending503++;
      if (x.kind503 === 'dependency') f.dependency503++;
      if (x.kind503 === 'undocumented') {
        f.undocumented503++;
        say(op, `an undocumented 503 (${x.problem})`);
      }
      // The API's own lateness meanwhile (its liveness answers) raises the bound: a starved API is late, not hung.
      const bound = hangMs + LATENESS_MARGIN * (x.latenessMs ?? 0);
      if (x.status === 'timeout' || (typeof x.status === 'number' && x.ms > bound)) {
        f.hung++;
        say(
          op,
          x.status === 'timeout'
            ? `no answer within the client's ${x.ms} ms`
            : `answered ${x.status} after ${x.ms} ms, past the hang bound ${bound} ms (${hangMs} ms + ${LATENESS_MARGIN} × the API's lateness meanwhile, ${x.latenessMs ?? 0} ms)`,
        );
      }
    }
    const last = op.exchanges.at(-1)?.body;
    let times: number;
    if (op.kind === 'redeem') {
      const n = counted.get(op.orderId!);
      times = n ? n.completed + n.reverted : 0;
    } else if (op.kind === 'revert') {
      times = counted.get(op.orderId!)?.reverted ?? 0;
    } else {
      const entries = entriesByTag.get(op.id) ?? [];
      times = entries.length;
      if (op.final === 'ok' && entries.length === 1) {
        const okKey = op.exchanges.at(-1)!.headerKey!;
        const e = entries[0]!;
        if (e.type !== op.kind || e.points !== Math.round(op.points! * 100)) say(op, `applied as ${e.type} ${e.points}`);
        if (last.txn_id !== e.txnId || e.txnId !== operationIdOf(app.id, okKey) || last.points !== op.points)
          say(op, `its 200 ${JSON.stringify(last)} does not match the applied entry ${e.txnId} (key ${okKey})`);
      }
    }
    applied.set(op.id, times > 0);
    if (times > 0) f.applied++;
    if (times > 1) {
      f.appliedTwice++;
      // The entries themselves (their txn ids name the operation keys) and every exchange: what the
      // post-mortem needs to tell a wrong "not applied" (two keys) from a job run twice (one key).
      const entries = (entriesByTag.get(op.id) ?? []).map((e) => ({ slot: e.id, txnId: e.txnId, at: e.createdAt }));
      const exchanges = op.exchanges.map((x) => ({
        status: x.status,
        sentKey: x.sentKey,
        headerKey: x.headerKey,
        kind: x.kind503,
        at: x.startedAt,
      }));
      say(op, `applied ${times} times: entries ${JSON.stringify(entries)}, exchanges ${JSON.stringify(exchanges)}`);
    }
    switch (op.final) {
      case 'ok':
        f.acknowledged++;
        if (times === 0) {
          f.lost++;
          say(op, `acknowledged (${JSON.stringify(last)}) but not applied`);
        }
        if (op.kind === 'redeem' || op.kind === 'revert') {
          const status = op.kind === 'redeem' ? 'completed' : 'reverted';
          if (last.status !== status || last.orderId !== op.orderId || last.coupon_code !== COUPON_CODE)
            say(op, `an unexpected 200 ${JSON.stringify(last)}`);
        }
        break;
      case 'refused':
        f.refused++;
        if (op.kind === 'redeem' && last?.details === BUDGET_EXHAUSTED) f.budgetRefused++;
        if (!expectedRefusal(op, last, !!campaign.budget)) say(op, `an unexpected ${op.exchanges.at(-1)!.status} ${JSON.stringify(last)}`);
        if (times > 0) say(op, `refused (${JSON.stringify(last)}) but applied`);
        break;
      case 'unresolved':
        f.unresolved++;
        say(op, `no final answer by the deadline (${op.exchanges.length} tries, last ${op.exchanges.at(-1)?.status})`);
        break;
      case 'abandoned':
        f.abandoned++;
        break;
      case 'error':
        break; // counted as a 5xx above
      default:
        say(op, 'never ended');
    }
  }

  for (const p of scenario.processes) {
    if (p.deliberatelyEnded) continue;
    f.expectedAlive++;
    if (p.alive()) f.alive++;
    else say(null, `${p.name} exited (${JSON.stringify(p.exit)}) though nothing stopped it (log: ${scenario.dir}/${p.name}.log)`);
  }

  // The processes' last line of defence (shared/process.ts) kept them alive: still a bug somewhere.
  const stray = scenario.logged('unhandled rejection (process kept running)');
  if (stray > 0) say(null, `${stray} unhandled rejection(s) in the processes' logs (${scenario.dir})`);

  const line =
    `[chaos] ${scenario.opts.name}: attempted ${f.attempted} / acknowledged ${f.acknowledged} / 503 ${f.responses503} / ` +
    `applied ${f.applied} / applied twice ${f.appliedTwice} / lost ${f.lost} / 5xx ${f.responses5xx} · ` +
    `processes alive ${f.alive}/${f.expectedAlive} · refused ${f.refused}, unresolved ${f.unresolved}, abandoned ${f.abandoned}, ` +
    `hung ${f.hung}, connections cut ${f.resets}, 503s: not applied ${f.notApplied503}, pending ${f.pending503}, dependency ${f.dependency503}, undocumented ${f.undocumented503} · redeemed ${completed}/${scenario.opts.limit}` +
    (spentCents !== null ? ` · spent ${spentCents}/${budget ?? 'no total'} cents, ${f.budgetRefused} refused by the budget` : '') +
    ` · ${f.seconds} s`;
  return { figures: f, applied, line, problems };
}

/**
 * Prints the scenario's line, then fails with every finding (the first 30) if there is any. The
 * first findings are in the failure's message too: a run's summary (and CI's record of it) shows
 * the message, not chai's diff, which elides long arrays.
 */
export function report(result: AuditReport): void {
  console.log(`      ${result.line}`);
  const shown = result.problems.slice(0, 8).map((p) => (p.length > 400 ? `${p.slice(0, 400)}…` : p));
  // The run's own figures (counts, bounds, the drain) go with a failure: a CI summary keeps the message only.
  const figures = result.line.replace(/\s+/g, ' ').trim();
  expect(result.problems.slice(0, 30), `${result.problems.length} problem(s), the first: ${shown.join(' | ')} — ${figures}`).to.deep.equal(
    [],
  );
}
