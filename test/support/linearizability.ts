/**
 * Histories checked for linearizability (docs/reliability.md, "Linearizability"): the operations
 * a fault test's clients sent, each with its invocation and completion instants and its answer,
 * checked by tools/lincheck (porcupine, a maintained checker, run as a small Go program) against a
 * sequential model of the contract — the limited coupon's redeems and reverts as one partition,
 * each customer's wallet credits and debits as another. A 503 the client retried to a final answer
 * is the final answer; one that never got one is indeterminate: it may have taken effect at any
 * moment after it was sent, or never.
 *
 * The checker is trusted only because it is shown to catch lies: {@link plantedDefects} adds to a
 * real history answers no correct service could give, and each must be found illegal.
 */
import { spawnSync } from 'node:child_process';
import { lincheckBinary } from '../../scripts/lincheck-build.js';

/** One operation of a history, as tools/lincheck reads it (times in ms, points in hundredths). */
export interface HistoryOp {
  client: number;
  kind: 'redeem' | 'revert' | 'credit' | 'debit';
  key?: string;
  points?: number;
  call: number;
  ret?: number;
  outcome: 'ok' | 'refused' | 'unknown';
  before?: number;
  after?: number;
}

export interface History {
  coupon?: { limit: number; ops: HistoryOp[] };
  wallets: Record<string, HistoryOp[]>;
}

/** The partitions of a verdict in `state` (`ok`, `illegal`, `unknown`). */
export const partitionsIn = (v: Verdict, state: string): string[] =>
  Object.entries(v.partitions)
    .filter(([, s]) => s === state)
    .map(([name]) => name);

export interface Verdict {
  linearizable: boolean;
  /** Per partition (`coupon`, `wallet:<source id>`): `ok`, `illegal`, or `unknown` (not decided in time). */
  partitions: Record<string, string>;
}

/**
 * Runs the checker on `history`; each partition may take `timeoutMs` to be decided (60 s). A
 * partition not decided in time is `unknown` in the verdict (and `linearizable` is false): the
 * search is exponential in the operations pending at once that the checker's reductions cannot
 * order (docs/reliability.md, "Linearizability").
 */
export function checkHistory(history: History, timeoutMs = 60_000): Verdict {
  const run = spawnSync(lincheckBinary(), [String(Math.ceil(timeoutMs / 1000))], {
    input: JSON.stringify(history),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status === null || (run.status === 2 && !run.stdout.toString().trim())) {
    throw new Error(`lincheck failed (status ${run.status}): ${run.stderr.toString()} ${run.stdout.toString()}`);
  }
  return JSON.parse(run.stdout.toString()) as Verdict;
}

/**
 * Lies planted in a real history, each one no correct service could tell: a wallet answer one
 * hundredth off (points move in quarters), and, before any operation started, one more redeem
 * answered ok than the limit allows (placed first, nothing overlaps it: the checker need not
 * search the rest to refute it). Returns the histories to check, each of which must be illegal.
 */
export function plantedDefects(history: History): { name: string; history: History }[] {
  const start = Math.min(0, ...allOps(history).map((o) => o.call));
  const out: { name: string; history: History }[] = [];
  const wallet = Object.entries(history.wallets).find(([, ops]) => ops.some((o) => o.outcome === 'ok' && o.after !== undefined));
  if (wallet) {
    const [name, ops] = wallet;
    const i = ops.findIndex((o) => o.outcome === 'ok' && o.after !== undefined);
    const lied = ops.map((o, j) => (j === i ? { ...o, after: o.after! + 1 } : o));
    out.push({
      name: `wallet ${name}: a balance answered 0.01 off`,
      history: { ...history, wallets: { ...history.wallets, [name]: lied } },
    });
  }
  if (history.coupon) {
    const { limit, ops } = history.coupon;
    const first = start - 2 * (limit + 1) - 1;
    const extra = Array.from({ length: limit + 1 }, (_, k): HistoryOp => ({
      client: 0,
      kind: 'redeem',
      key: `planted-${k}`,
      call: first + 2 * k,
      ret: first + 2 * k + 1,
      outcome: 'ok',
    }));
    out.push({
      name: `coupon: ${limit + 1} redeems answered ok past the limit`,
      history: { ...history, coupon: { limit, ops: [...extra, ...ops] } },
    });
  }
  return out;
}

const allOps = (h: History) => [...(h.coupon?.ops ?? []), ...Object.values(h.wallets).flat()];

/** Points as the ledger counts them: integer hundredths. */
export const hundredths = (points: number) => Math.round(points * 100);
