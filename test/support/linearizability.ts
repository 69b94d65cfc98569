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
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const TOOL = join(ROOT, 'tools', 'lincheck');

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

export interface Verdict {
  linearizable: boolean;
  /** Per partition (`coupon`, `wallet:<source id>`): `ok`, `illegal`, or `unknown` (not decided in time). */
  partitions: Record<string, string>;
}

/** The Go command: `GO`, else `go` on the PATH, else the toolchain's usual place. */
function goCommand(): string {
  if (process.env.GO) return process.env.GO;
  if (spawnSync('go', ['version']).status === 0) return 'go';
  return '/usr/local/go/bin/go';
}

let built: string | undefined;

/** Builds tools/lincheck once per source version (cached under node_modules/.cache); returns the binary. */
export function lincheckBinary(): string {
  if (built) return built;
  const hash = createHash('sha256');
  for (const f of ['main.go', 'go.mod', 'go.sum']) hash.update(readFileSync(join(TOOL, f)));
  const dir = join(ROOT, 'node_modules', '.cache', 'lincheck');
  const bin = join(dir, `lincheck-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(bin)) {
    // Built beside and renamed: test lanes building at once each rename a whole binary into place.
    mkdirSync(dir, { recursive: true });
    const tmp = `${bin}.${process.pid}`;
    execFileSync(goCommand(), ['build', '-o', tmp, '.'], { cwd: TOOL, stdio: ['ignore', 'inherit', 'inherit'] });
    renameSync(tmp, bin);
  }
  return (built = bin);
}

/** Runs the checker on `history`. */
export function checkHistory(history: History): Verdict {
  const run = spawnSync(lincheckBinary(), [], { input: JSON.stringify(history), maxBuffer: 64 * 1024 * 1024 });
  if (run.status === 2 || run.status === null) {
    throw new Error(`lincheck could not decide (status ${run.status}): ${run.stderr.toString()} ${run.stdout.toString()}`);
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
