/**
 * The load of a chaos scenario and the client that follows the service's answers.
 *
 * Load: a steady, bounded stream of logical operations (open loop, `rateHz` a second): redeems of
 * the limited coupon by many customers, reverts of acknowledged redeems, wallet credits and
 * debits; about half send a client `Idempotency-Key` from the start. Each is tagged so it can be
 * found in the database afterwards: a unique order id, or the wallet description = the op id.
 *
 * Client, per operation, as the contract advises:
 *  - 200 or 4xx: final;
 *  - 503 with `applied: false`: retry the request as first sent (an unkeyed one without a key:
 *    the contract says it is safe, so a wrong `applied: false` shows as a double apply);
 *  - 503 naming a key without `applied: false`: retry with header `Idempotency-Key: <that key>`;
 *    every retry waits the Retry-After (jittered), or longer after several 503s in a row: the
 *    shipped client's doubling pause (full jitter, capped at 5 s);
 *  - 503 of a dependency (no key: "nothing of the request was applied"): retry as it was sent;
 *  - connection refused (never sent): retry as it was sent;
 *  - connection reset or no answer: retry only with a key; an unkeyed request got no advice and
 *    is never retried (it must then be applied at most once);
 *  - until a final answer, or the deadline set after the fault ends; that deadline follows the
 *    drain: each final answer after the fault sets it to what the operations still open would
 *    take at the pace of the latest final answers (`Burst.faultEnded`), so a machine that grows
 *    busier mid-drain gets the time its own pace says, and a drain that stops runs out of it.
 */
import { COUPON_CODE, WALLET_ID, type Scenario } from './scenario.js';
import { makeOrder } from '../../fixtures/records.js';
import { Rng } from '../../fixtures/random-stacks.js';
import { deadlineAfterFinal, latenessSince, type Drain, type DrainBound, type Probe } from './drain.js';
import { DEFAULT_MAX_DELAY_MS, retryPauseMs } from '../../../client/src/retry.js';

export type OpKind = 'redeem' | 'revert' | 'credit' | 'debit';

/** One HTTP exchange of an operation: a status, or what the connection did. */
export interface Exchange {
  /** The API it went to. */
  url: string;
  status: number | 'refused' | 'reset' | 'timeout';
  /** The key the request was sent with. */
  sentKey: string | undefined;
  body?: any;
  /** The 503's kind (documented ones only; `undocumented` otherwise, with `problem`). */
  kind503?: 'not_applied' | 'pending' | 'dependency' | 'undocumented';
  /** What was wrong with an undocumented 503, or the connection's error. */
  problem?: string;
  headerKey?: string | null;
  startedAt: number;
  ms: number;
  /** How late the API answered its liveness while this exchange was open (ms; `Burst.lateness`): the hang bound grows by its margin times this. */
  latenessMs?: number;
}

export interface Op {
  id: string;
  kind: OpKind;
  sourceId: string;
  orderId?: string;
  points?: number;
  /** Sent a client Idempotency-Key from the first request. */
  keyed: boolean;
  startedAt: number;
  exchanges: Exchange[];
  final?: 'ok' | 'refused' | 'error' | 'unresolved' | 'abandoned';
  /** The request in flight now (which API, with a key or not). */
  inFlight: { url: string; withKey: boolean } | null;
}

/**
 * How long the client waits for an answer at most until the fault ends (the API bounds its
 * answers at JOB_WAIT_TIMEOUT_MS + 5 s); from then on, the hang bound the scenario derived
 * (`Burst.hangMs`), also for an exchange already waiting; either plus the API's lateness
 * measured meanwhile (`Burst.lateness`): the client gives up exactly where the audit would call
 * the answer a hang, never earlier.
 */
export const CLIENT_TIMEOUT_MS = 60_000;

/** Aborts once `startedAt + limit()` has passed, `limit` read again whenever it comes due (it may have grown). */
function abortAfter(startedAt: number, limit: () => number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = startedAt + limit() - Date.now();
    if (left <= 0) controller.abort(new DOMException('no answer within the hang bound', 'TimeoutError'));
    else timer = setTimeout(arm, left);
  };
  arm();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** How often the burst asks the API for its liveness (`/healthz`), one request at a time: how late the API answers now. */
const LATENESS_PROBE_MS = 1000;
/** The margin on the API's measured lateness (the scenario's own, test/chaos/support/run.ts). */
export const LATENESS_MARGIN = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The longest pause between retries: the shipped client's (client/src/retry.ts). */
export const MAX_BACKOFF_MS = DEFAULT_MAX_DELAY_MS;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ERROR_ID = `(?: \\(error id ${UUID}\\))?`;
const NOT_APPLIED = new RegExp(
  `^the operation was not applied; retry the request \\(with the header Idempotency-Key: (\\S+) to be safe\\)${ERROR_ID}$`,
);
const PENDING = new RegExp(
  `^the operation is queued or running and will be applied at most once; retry the request with the header Idempotency-Key: (\\S+) to get its result${ERROR_ID}$`,
);
const DEPENDENCY = new RegExp(`^a dependency is unavailable; retry later \\(error id ${UUID}\\)$`);

/**
 * Classifies a 503 against the documented bodies (shared/client-errors.ts `operationUnavailable`
 * and `dependencyUnavailable`): exact fields, exact texts, the key consistent in
 * body, details and header, and never anything else (no internal error text).
 */
export function classify503(body: any, headers: Headers, sentKey: string | undefined): { kind: Exchange['kind503']; problem?: string } {
  const bad = (problem: string) => ({ kind: 'undocumented' as const, problem: `${problem}: ${JSON.stringify(body)}` });
  if (typeof body !== 'object' || body === null) return bad('not a JSON object');
  const allowed = new Set(['code', 'message', 'details', 'idempotency_key', 'applied', 'request_id']);
  const extra = Object.keys(body).filter((k) => !allowed.has(k));
  if (extra.length) return bad(`unexpected fields ${extra.join(', ')}`);
  if (body.code !== 503 || body.message !== 'Service Unavailable') return bad('code/message');
  if (typeof body.request_id !== 'string' || body.request_id !== headers.get('x-request-id')) return bad('request_id');
  if (headers.get('retry-after') !== '1') return bad('Retry-After');
  const details = String(body.details);
  if (DEPENDENCY.test(details)) {
    if ('idempotency_key' in body || 'applied' in body) return bad('a dependency 503 with a key or applied');
    return { kind: 'dependency' };
  }
  const m = NOT_APPLIED.exec(details) ?? PENDING.exec(details);
  if (!m) return bad('details');
  const kind = NOT_APPLIED.test(details) ? 'not_applied' : 'pending';
  if (body.idempotency_key !== m[1]) return bad('idempotency_key differs from the key in details');
  if (headers.get('idempotency-key') !== body.idempotency_key) return bad('Idempotency-Key header differs from the body');
  if (sentKey !== undefined && body.idempotency_key !== sentKey) return bad('a key other than the one sent');
  if (sentKey === undefined && !/^auto-/.test(body.idempotency_key)) return bad('a generated key not auto-…');
  if (kind === 'not_applied' ? body.applied !== false : 'applied' in body) return bad('applied');
  return { kind };
}

export interface BurstOptions {
  /** Operations started per second. */
  rateHz: number;
  /** The API a request goes to now (a scenario may switch it). */
  target: () => string;
  seed: number;
}

export class Burst {
  readonly ops: Op[] = [];
  private readonly running: Promise<void>[] = [];
  private deadline = Number.POSITIVE_INFINITY;
  /** After the fault: when it ended, the final answers since, the bound on the rest, and who is told of a later deadline. */
  private drain: (Drain & { moved: (deadline: number) => void }) | undefined;
  /** An exchange unanswered this long is a hang: the client's own limit until the fault ends (plus the API's lateness, `lateness`). */
  hangMs = CLIENT_TIMEOUT_MS;
  /** The liveness probes: when each was sent, and how long its answer took (undefined while in flight, or refused/reset). */
  private readonly probes: Probe[] = [];
  private probing: Promise<void> | undefined;
  /** Set once every operation has ended: the probes stop. */
  private probingDone = false;
  private generating = true;
  /** Operations started per second now (`start`, `setRate`). */
  private rateHz: number;
  private generator: Promise<void> | undefined;
  private readonly random: () => number;
  /** Acknowledged redeems not yet chosen for a revert. */
  private readonly revertable: Op[] = [];
  private seq = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly opts: BurstOptions,
  ) {
    this.rateHz = opts.rateHz;
    const rng = new Rng(opts.seed); // the same seed gives the same mix of operations
    this.random = () => rng.next();
  }

  /** Starts the stream at `rateHz` operations a second (default: the one given at construction). */
  start(rateHz = this.opts.rateHz): this {
    this.probing = this.probeLateness();
    this.rateHz = rateHz;
    this.generator = (async () => {
      for (let next = Date.now(); this.generating;) {
        this.launch(this.nextOp());
        next += 1000 / this.rateHz;
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
    return this;
  }

  /** Operations started per second from now on. */
  setRate(rateHz: number): void {
    this.rateHz = rateHz;
  }

  /**
   * The fault is over: every operation has `graceMs` from now to get a final answer, and an
   * exchange without an answer for `hangMs` is a hang (tests/chaos/support/run.ts derives both).
   * From then on each final answer sets the deadline to `bound(open, pace)` from now, the pace
   * that of the latest final answers, when that is later than the fault's end plus `graceMs`
   * (test/chaos/support/drain.ts); `moved` hears of every new deadline (the test's own timeout
   * follows). A drain that slows with the machine is given its pace; one that stops is not.
   */
  faultEnded(graceMs: number, hangMs: number, bound: DrainBound, moved: (deadline: number) => void): void {
    const since = Date.now();
    this.deadline = since + graceMs;
    this.hangMs = hangMs;
    this.drain = { since, floor: this.deadline, finalsAt: [], bound, moved };
  }

  /** When every operation must have its final answer (ms since the epoch; infinite until the fault ends). */
  get finalDeadline(): number {
    return this.deadline;
  }

  /** A final answer after the fault: the drain's recent pace sets how long the open operations may take. */
  private progressed(): void {
    if (!this.drain) return;
    const open = this.ops.reduce((k, o) => k + (o.final ? 0 : 1), 0);
    const deadline = deadlineAfterFinal(this.drain, Date.now(), open);
    if (deadline === this.deadline) return;
    this.deadline = deadline;
    this.drain.moved(deadline);
  }

  /** Stops starting operations and waits for every started one to end. */
  async finish(): Promise<void> {
    this.generating = false;
    await this.generator;
    if (!Number.isFinite(this.deadline)) this.deadline = Date.now() + 60_000;
    await Promise.all(this.running);
    this.probingDone = true;
    await this.probing;
  }

  /** The slowest liveness answer of the burst, and how many were asked (ms; for the report). */
  get livenessAnswers(): { slowestMs: number; asked: number } {
    return { slowestMs: Math.max(0, ...this.probes.map((p) => p.ms ?? 0)), asked: this.probes.length };
  }

  /**
   * Asks the API for `/healthz` every {@link LATENESS_PROBE_MS}, one request at a time, until the
   * burst is over: it answers from its event loop with no dependency, so its answer time is how
   * late the API (its process on this machine as it is now) answers anything.
   */
  private async probeLateness(): Promise<void> {
    while (!this.probingDone) {
      const probe: Probe = { startedAt: Date.now(), pending: true };
      this.probes.push(probe);
      try {
        const res = await fetch(`${this.opts.target()}/healthz`);
        await res.arrayBuffer();
        if (res.ok) probe.ms = Date.now() - probe.startedAt;
      } catch {
        // Refused or reset (an API killed by the scenario): no figure.
      }
      probe.pending = false;
      await sleep(LATENESS_PROBE_MS);
    }
  }

  /** How late the API answered while an exchange sent at `startedAt` was open (test/chaos/support/drain.ts). */
  private lateness(startedAt: number): number {
    return latenessSince(this.probes, startedAt, Date.now());
  }

  /** Requests in flight to `url` now, by whether they carry a key. */
  inFlightTo(url: string): { withKey: number; withoutKey: number } {
    let withKey = 0;
    let withoutKey = 0;
    for (const op of this.ops) {
      if (op.inFlight?.url !== url) continue;
      if (op.inFlight.withKey) withKey++;
      else withoutKey++;
    }
    return { withKey, withoutKey };
  }

  /**
   * Runs one extra operation to its end (the capacity probe, the recovery probe) and returns it:
   * within the burst's deadline, or within `withinMs` from now.
   */
  async runOne(kind: OpKind, sourceId: string, opts: { points?: number; keyed: boolean; withinMs?: number }): Promise<Op> {
    const op = this.newOp(kind, sourceId, opts.keyed, { points: opts.points });
    await this.drive(op, opts.withinMs === undefined ? undefined : Date.now() + opts.withinMs);
    return op;
  }

  private newOp(kind: OpKind, sourceId: string, keyed: boolean, extra: Partial<Op>): Op {
    const op: Op = {
      id: `${this.scenario.opts.name}-${process.pid}-${++this.seq}`,
      kind,
      sourceId,
      keyed,
      startedAt: Date.now(),
      exchanges: [],
      inFlight: null,
      ...extra,
    };
    if (kind === 'redeem' && !op.orderId) op.orderId = `order-${op.id}`;
    this.ops.push(op);
    return op;
  }

  private nextOp(): Op {
    const r = this.random();
    const keyed = this.random() < 0.5;
    const sourceId = this.scenario.sourceIds[Math.floor(this.random() * this.scenario.sourceIds.length)]!;
    const points = Math.round((1 + this.random() * 6) * 4) / 4; // 1 to 7 in quarters: hundredths in the ledger
    if (r < 0.15 && this.revertable.length > 0) {
      const redeem = this.revertable.splice(Math.floor(this.random() * this.revertable.length), 1)[0]!;
      return this.newOp('revert', redeem.sourceId, keyed, { orderId: redeem.orderId });
    }
    if (r < 0.5) return this.newOp('redeem', sourceId, keyed, {});
    if (r < 0.8) return this.newOp('credit', sourceId, keyed, { points });
    return this.newOp('debit', sourceId, keyed, { points });
  }

  private launch(op: Op): void {
    this.running.push(
      this.drive(op).then(() => {
        if (op.kind === 'redeem' && op.final === 'ok') this.revertable.push(op);
      }),
    );
  }

  private request(op: Op): { method: string; path: string; body: unknown } {
    if (op.kind === 'redeem' || op.kind === 'revert') {
      return {
        method: 'POST',
        path: `/coupons/apply?type=${op.kind}`,
        body: {
          source_id: op.sourceId,
          coupon_details: [{ coupon_code: COUPON_CODE }],
          order: makeOrder({ order_id: op.orderId }),
        },
      };
    }
    return {
      method: 'PUT',
      path: `/wallets/customer/${op.sourceId}/transactions/${WALLET_ID}`,
      body: { type: op.kind, points: op.points, description: op.id },
    };
  }

  /** Sends the operation until a final answer, following each answer's advice. */
  private async drive(op: Op, deadline?: number): Promise<void> {
    const { method, path, body } = this.request(op);
    const payload = JSON.stringify(body); // the same bytes on every retry
    let key: string | undefined = op.keyed ? `key-${op.id}` : undefined;
    let busy = 0; // 503s in a row
    for (;;) {
      if (Date.now() > (deadline ?? this.deadline)) {
        op.final = 'unresolved';
        return;
      }
      const url = this.opts.target();
      const exchange: Exchange = { url, status: 'refused', sentKey: key, startedAt: Date.now(), ms: 0 };
      op.exchanges.push(exchange);
      op.inFlight = { url, withKey: key !== undefined };
      let res: Response;
      let text: string;
      const timeout = abortAfter(exchange.startedAt, () => this.hangMs + LATENESS_MARGIN * this.lateness(exchange.startedAt));
      try {
        res = await fetch(`${url}${path}`, {
          method,
          headers: {
            authorization: this.scenario.app.auth,
            'content-type': 'application/json',
            ...(key ? { 'Idempotency-Key': key } : {}),
          },
          body: payload,
          signal: timeout.signal,
        });
        text = await res.text();
      } catch (err) {
        timeout.clear();
        op.inFlight = null;
        exchange.ms = Date.now() - exchange.startedAt;
        exchange.latenessMs = this.lateness(exchange.startedAt);
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        exchange.status = (err as Error).name === 'TimeoutError' ? 'timeout' : cause?.code === 'ECONNREFUSED' ? 'refused' : 'reset';
        exchange.problem = `${(err as Error).message}: ${cause?.code ?? ''} ${cause?.message ?? ''}`;
        // Refused: never sent, so safe to send again. Otherwise only a key makes a retry safe.
        if (exchange.status !== 'refused' && !key) {
          op.final = 'abandoned';
          return;
        }
        await sleep(200 + this.random() * 300);
        continue;
      }
      timeout.clear();
      op.inFlight = null;
      exchange.ms = Date.now() - exchange.startedAt;
      exchange.latenessMs = this.lateness(exchange.startedAt);
      exchange.status = res.status;
      exchange.headerKey = res.headers.get('idempotency-key');
      try {
        exchange.body = JSON.parse(text);
      } catch {
        exchange.body = text;
      }
      if (res.status === 200) {
        op.final = 'ok';
        this.progressed();
        return;
      }
      if (res.status >= 400 && res.status < 500) {
        op.final = 'refused';
        this.progressed();
        return;
      }
      if (res.status !== 503) {
        op.final = 'error';
        return;
      }
      const { kind, problem } = classify503(exchange.body, res.headers, key);
      exchange.kind503 = kind;
      exchange.problem = problem;
      // "applied": false is taken at its word: the request is sent again as the client first sent
      // it (an unkeyed one without a key), so a 503 that says so wrongly shows as a double apply.
      // Otherwise the operation may be queued: from now on only with the key the 503 names.
      if (kind === 'not_applied') key = op.keyed ? key : undefined;
      if (kind === 'pending') key = exchange.body.idempotency_key;
      // Retry-After: 1 (checked above), jittered so retries do not arrive in step; and, as the
      // shipped client (client/src/retry.ts retryPauseMs), a pause that doubles with each 503 in a
      // row (full jitter, capped at 5 s): a backlog's clients then stop multiplying the API's load.
      busy++;
      await sleep(retryPauseMs({ attempt: busy, retryAfterMs: 500 + this.random() * 500, random: this.random }));
    }
  }
}
