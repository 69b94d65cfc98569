/**
 * A chaos burst's operations as a history for the linearizability checker
 * (test/support/linearizability.ts): each operation from its first request to its final answer,
 * the answer as the client last got it. A refusal the model knows (the coupon's limit, a debit
 * larger than the balance) is a refused operation; another 4xx changed nothing the model tracks
 * and is left out; an operation with no final answer (no answer, an abandoned unkeyed request, a
 * 5xx) took effect at some moment before the run settled or never: which of the two, the database
 * says (the audit's `applied`, read once the queues drained). Applied, it is an operation that
 * succeeded with its answer unknown (its points taken or given, its place taken, its redemption
 * reverted); not applied, it changed nothing and is left out. So the checker searches only where
 * it took effect, not whether it did — half the branches per such operation, which a dead worker
 * or database leaves by the dozen pending at once — and a history whose answers fit the contract
 * only if the database's record were different is illegal.
 */
import type { Op } from './burst.js';
import { hundredths, type History, type HistoryOp } from '../../support/linearizability.js';

/** Whether a 4xx body is a refusal the model decides: the limit (redeem), no redemption (revert), too few points (debit). */
function modelRefusal(op: Op, body: any): boolean {
  const details = String(body?.details ?? '');
  if (op.kind === 'redeem') return /limit exceeded$/.test(details);
  if (op.kind === 'revert') return details === 'no redemption found for this order and coupon';
  if (op.kind === 'debit') return body?.message === 'insufficient points';
  return false;
}

/**
 * `settledAt`: an instant by which every operation had taken effect or never would (the burst
 * finished and the queues drained): the indeterminate ones end there. `applied`: per operation id,
 * whether the database holds it applied; an indeterminate operation it does not name stays
 * indeterminate.
 */
export function historyOfBurst(ops: readonly Op[], limit: number, settledAt: number, applied?: ReadonlyMap<string, boolean>): History {
  const clients = new Map<string, number>();
  const client = (sourceId: string) => clients.get(sourceId) ?? clients.set(sourceId, clients.size).get(sourceId)!;
  const history: History = { coupon: { limit, ops: [] }, wallets: {} };
  for (const op of ops) {
    const last = op.exchanges.at(-1);
    let outcome: HistoryOp['outcome'] = 'unknown';
    if (op.final === 'ok') outcome = 'ok';
    else if (op.final === 'refused') {
      if (!modelRefusal(op, last?.body)) continue; // refused before anything the model tracks (a 429, a 409): not applied
      outcome = 'refused';
    } else if (applied?.has(op.id)) {
      if (!applied.get(op.id)) continue; // never took effect: nothing to check
      outcome = 'ok'; // took effect; its answer (a wallet's balance before and after) unknown
    }
    const base = {
      client: client(op.sourceId),
      call: op.startedAt,
      // Answered: when its answer came; otherwise it may have taken effect until the run settled.
      ret: (op.final === 'ok' || op.final === 'refused') && last ? last.startedAt + last.ms : settledAt,
      outcome,
    };
    if (op.kind === 'redeem' || op.kind === 'revert') {
      history.coupon!.ops.push({ ...base, kind: op.kind, key: op.orderId! });
      continue;
    }
    const body = op.final === 'ok' ? last?.body : undefined;
    const answered =
      typeof body?.loyalty_points === 'number' && typeof body?.previous_loyalty_points === 'number'
        ? { before: hundredths(body.previous_loyalty_points), after: hundredths(body.loyalty_points) }
        : {};
    (history.wallets[op.sourceId] ??= []).push({ ...base, kind: op.kind, points: hundredths(op.points ?? 0), ...answered });
  }
  return history;
}
