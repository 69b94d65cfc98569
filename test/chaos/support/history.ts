/**
 * A chaos burst's operations as a history for the linearizability checker
 * (test/support/linearizability.ts): each operation from its first request to its final answer,
 * the answer as the client last got it. A refusal the model knows (the coupon's limit, a debit
 * larger than the balance) is a refused operation; another 4xx changed nothing the model tracks
 * and is left out; an operation with no final answer (no answer, an abandoned unkeyed request, a
 * 5xx) is indeterminate until the run settled.
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
 * finished and the queues drained): the indeterminate ones end there.
 */
export function historyOfBurst(ops: readonly Op[], limit: number, settledAt: number): History {
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
    }
    const base = {
      client: client(op.sourceId),
      call: op.startedAt,
      ret: outcome !== 'unknown' && last ? last.startedAt + last.ms : settledAt,
      outcome,
    };
    if (op.kind === 'redeem' || op.kind === 'revert') {
      history.coupon!.ops.push({ ...base, kind: op.kind, key: op.orderId! });
      continue;
    }
    const body = outcome === 'ok' ? last?.body : undefined;
    const answered =
      typeof body?.loyalty_points === 'number' && typeof body?.previous_loyalty_points === 'number'
        ? { before: hundredths(body.previous_loyalty_points), after: hundredths(body.loyalty_points) }
        : {};
    (history.wallets[op.sourceId] ??= []).push({ ...base, kind: op.kind, points: hundredths(op.points ?? 0), ...answered });
  }
  return history;
}
