import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import mongoose from 'mongoose';
import { campaignCounterId } from '../../shared/data/limit-counter.repository.js';
import { BUDGET_EXHAUSTED } from '../../shared/domain/messages.js';
import type { Budget, Campaign } from '../../shared/domain/types.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';
import { createCampaign } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { PACE_MARGIN } from '../support/pace.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/**
 * A money budget under a stampede, through the real API and two real worker processes: 5,000
 * distinct customers redeem a coupon of 10% off carts of eight sizes (4.20 to 19.99 off), whose
 * budget fits about 3,086 of them (the 20,000 and 12,345, scaled to a quarter: at full
 * size the stampede saturated both cores of a CI machine for ten minutes and starved the Redis
 * Cluster topology test's processes — docs/testing.md; BUDGET_STAMPEDE_CUSTOMERS=20000 runs it),
 * with `cap`: they spend it exactly; 2,000 customers on a budget of about 1,234 with `refuse`: the
 * discounts granted stay within it; 1,000 on about 617 with `cap` and one of the two workers
 * SIGKILLed a third of the way in: still spent exactly. Each time the counter's `amt` is the
 * journal's completed `budgetCents` to the cent, every 200 is journaled once with the amount its
 * Coupon-Discount header said, every refusal names budget_exhausted, and `amt` sampled throughout
 * never passes the budget. Then reverts racing new redeems at the budget's edge.
 *
 * The client keeps 64 requests in flight (as the flash-sale benchmark does) until all are
 * answered; a 503 naming a key is followed with that key after its Retry-After (docs/testing.md).
 * Timeouts come from the pace the loops measure (test/support/pace.ts), printed with the figures.
 */
/**
 * The capped stampede's customers: 5,000, or BUDGET_STAMPEDE_CUSTOMERS (20000 is the size,
 * run outside the suite: docs/testing.md). The other cases and every budget scale with it.
 */
const CUSTOMERS = Number(process.env.BUDGET_STAMPEDE_CUSTOMERS ?? 5_000);

describe(`a money budget under a stampede of ${CUSTOMERS.toLocaleString('en')} customers (two worker processes)`, function () {
  this.timeout(120_000); // until the loops have measured their own pace
  /** The 12,345 orders for 20,000 customers. */
  const fitsOf = (customers: number) => Math.floor((customers * 12_345) / 20_000);
  const FITS = fitsOf(CUSTOMERS);
  /** The refusing budget's stampede: two fifths of the capped one's. */
  const REFUSE_CUSTOMERS = Math.round(CUSTOMERS * 0.4);
  const REFUSE_FITS = fitsOf(REFUSE_CUSTOMERS);
  /** The stampede a worker is SIGKILLed in: a fifth of the capped one's. */
  const KILL_CUSTOMERS = Math.round(CUSTOMERS * 0.2);
  const KILL_FITS = fitsOf(KILL_CUSTOMERS);
  const IN_FLIGHT = 64;
  /** Cart sizes (selling subtotals): 10% off each is 4.20 to 19.99. */
  const CARTS = [42, 57.35, 64.2, 88, 99.99, 123.45, 171.3, 199.9];
  /** 10% of a cart, in cents, as the engine rounds it (half up). */
  const discountOf = (cart: number) => Math.round(cart * 10);
  const meanCents = CARTS.reduce((s, c) => s + discountOf(c), 0) / CARTS.length;
  const BUDGET_CENTS = Math.round(FITS * meanCents);

  /** Warnings logged: a job found stalled after a worker's death says so (the SIGKILL case counts them). */
  const WORKER_ENV = { LOG_LEVEL: 'warn' };
  let api: TestApi;
  let workers: WorkerProcess[];
  let app: TestApplication;
  const sourceIds = Array.from({ length: CUSTOMERS }, (_, i) => `bs-${i}`);
  /** When the running test (or hook) started: mocha counts its timeout from there. */
  let startedAt = Date.now();
  beforeEach(() => {
    startedAt = Date.now();
  });
  /** Gives the running test `ms` more from now (never less than it had): a bound from what it measured. */
  const allow = (ctx: Mocha.Context, ms: number) => ctx.timeout(Math.max(ctx.timeout(), Date.now() - startedAt + Math.ceil(ms)));
  /**
   * A watchdog for a loop of `total` steps: after every `window` steps the rest may take
   * {@link PACE_MARGIN} times the slowest window's pace per step (test/support/pace.ts, counted
   * from the test's start as mocha counts it).
   */
  function pace(ctx: Mocha.Context, total: number, window: number): (done: number) => void {
    let windowStart = Date.now();
    let slowest = 0;
    return (done) => {
      if (done % window !== 0) return;
      slowest = Math.max(slowest, (Date.now() - windowStart) / window);
      windowStart = Date.now();
      allow(ctx, slowest * (total - done) * PACE_MARGIN);
    };
  }

  before(async function () {
    startedAt = Date.now();
    api = await startTestApi({}, { inProcessWorker: false });
    workers = await Promise.all([startWorkerProcess(WORKER_ENV), startWorkerProcess(WORKER_ENV)]);
    app = await createTestApplication(api.services);
    // In bulk, as the flash-sale benchmark does: the admin upsert of 20,000 customers is slower than this needs.
    const Customer = api.services.db.models.Customer.collection;
    const application = new mongoose.Types.ObjectId(app.id);
    const chunk = 2_000;
    const watchdog = pace(this, CUSTOMERS, chunk);
    const started = Date.now();
    for (let from = 0; from < CUSTOMERS; from += chunk) {
      await Customer.insertMany(
        sourceIds.slice(from, from + chunk).map((sourceId) => ({ application, sourceId })),
        { ordered: false },
      );
      watchdog(from + chunk);
    }
    console.log(`      [budget] ${CUSTOMERS} customers inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
  after(async () => {
    await Promise.all((workers ?? []).map((w) => w.stop()));
    await api?.close();
  });

  let seq = 0;
  const budgetOf = (whenExceeded: Budget['whenExceeded'], totalCents = BUDGET_CENTS): Budget => ({
    totalCents,
    perDayCents: null,
    perWeekCents: null,
    perMonthCents: null,
    perCustomerCents: null,
    whenExceeded,
    notifyAt: [],
  });
  const newCampaign = (whenExceeded: Budget['whenExceeded'], totalCents?: number) =>
    createCampaign(api.services, app.id, { code: `BUDGET${++seq}`, budget: budgetOf(whenExceeded, totalCents) });

  /** A cart of one item, its size picked by `n`; its order id unique to the run. */
  const cart = (n: number) => {
    const size = CARTS[n % CARTS.length]!;
    return {
      order_id: `bs-${process.pid}-${++seq}`,
      original_price_subtotal: size,
      selling_price_subtotal: size,
      status: 'completed',
      items: [{ product_id: 'p1', sku: 'SKU1', name: 'Basket', original_price: size, selling_price: size, quantity: 1, shipping: 0 }],
    };
  };

  interface Answer {
    type: 'redeem' | 'revert';
    sourceId: string;
    order: ReturnType<typeof cart>;
    status: number;
    body: any;
    reason: string | null;
    /** The Coupon-Discount header of a 200, in cents. */
    grantedCents: number | null;
    tries: number;
  }

  /** One operation to its final answer: a 503 naming a key is sent again with that key after the Retry-After. */
  async function send(type: 'redeem' | 'revert', code: string, sourceId: string, order: ReturnType<typeof cart>): Promise<Answer> {
    // A connection cut without an answer (a keep-alive socket the API closed as it was reused) is sent
    // again as it was: a redeem of the same order applies at most once (docs/decisions.md#17), which the
    // journal check below counts.
    const headers: Record<string, string> = {};
    for (let tries = 1; ; tries++) {
      let res: Awaited<ReturnType<typeof call>>;
      try {
        res = await call(api.url, 'POST', `/coupons/apply?type=${type}`, {
          auth: app.auth,
          body: { source_id: sourceId, coupon_details: [{ coupon_code: code }], order },
          headers,
        });
      } catch (err) {
        if (tries < 5 && (err as Error).message === 'fetch failed') continue;
        throw err;
      }
      if (res.status === 503 && typeof res.body?.idempotency_key === 'string') {
        headers['idempotency-key'] = res.body.idempotency_key;
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        continue;
      }
      const granted = res.headers.get('coupon-discount');
      return {
        type,
        sourceId,
        order,
        status: res.status,
        body: res.body,
        reason: res.headers.get('coupon-reason'),
        grantedCents: res.status === 200 && granted !== null ? Math.round(Number(granted) * 100) : null,
        tries,
      };
    }
  }

  /**
   * Runs `ops` with {@link IN_FLIGHT} in flight, the test's timeout from the pace it measures; samples `amt` meanwhile.
   * `onAnswered` hears how many are answered after each answer.
   */
  async function stampede(ctx: Mocha.Context, campaign: Campaign, ops: (() => Promise<Answer>)[], onAnswered?: (done: number) => void) {
    const watchdog = pace(ctx, ops.length, Math.min(500, Math.ceil(ops.length / 4)));
    const answers: Answer[] = new Array(ops.length);
    let next = 0;
    let done = 0;
    const sampler = sampleAmt(campaign);
    const started = Date.now();
    let maxAmt: number;
    try {
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let i = next++; i < ops.length; i = next++) {
            answers[i] = await ops[i]!();
            watchdog(++done);
            onAnswered?.(done);
          }
        }),
      );
    } finally {
      // Stopped whatever happens: a sampler left running would read the counter during the lane's next files.
      maxAmt = await sampler.stop();
    }
    const seconds = (Date.now() - started) / 1000;
    // The checks after it read what it wrote (the journal, the counters, the verifier): the margin on the loop's own time.
    allow(ctx, PACE_MARGIN * seconds * 1000);
    return { answers, seconds, maxAmt };
  }

  /** Reads the campaign counter's `amt` every 50 ms until stopped: the largest seen. */
  function sampleAmt(campaign: Campaign) {
    let max = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        const doc = await api.services.repos.limitCounters.find(campaignCounterId(campaign.id));
        max = Math.max(max, doc?.amt ?? 0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return max;
      },
    };
  }

  /** The journal's cycles of a campaign, by state. */
  async function journal(campaign: Campaign) {
    const rows = (await api.services.db.models.Redemption.find(
      { campaign: campaign.id },
      { orderId: 1, state: 1, discountCents: 1, budgetCents: 1 },
    ).lean()) as unknown as { orderId: string; state?: string; discountCents: number; budgetCents?: number }[];
    const completed = rows.filter((r) => r.state === 'completed');
    return {
      completed,
      reverted: rows.filter((r) => r.state === 'reverted'),
      spent: completed.reduce((s, r) => s + (r.budgetCents ?? 0), 0),
    };
  }

  /**
   * What every case checks at its end: every 200 journaled exactly once with the amount its header
   * said, every refusal names the budget, amt = the journal's sum = the headers' sum, within the
   * budget, and the verifier finds nothing.
   */
  async function checkExact(campaign: Campaign, answers: Answer[], maxAmt: number) {
    const j = await journal(campaign);
    const redeemed = answers.filter((a) => a.type === 'redeem' && a.status === 200);
    const refused = answers.filter((a) => a.type === 'redeem' && a.status !== 200);
    const statuses = new Set(answers.map((a) => a.status));
    expect(
      [...statuses].filter((s) => s !== 200 && s !== 400),
      'only 200 and 400',
    ).to.deep.equal([]);
    for (const r of refused) {
      expect(r.body, JSON.stringify(r.body)).to.include({ message: 'coupon validation failed', details: BUDGET_EXHAUSTED });
      expect(r.reason).to.equal('budget_exhausted');
    }
    const byOrder = new Map<string, number>();
    for (const c of [...j.completed, ...j.reverted]) byOrder.set(c.orderId, (byOrder.get(c.orderId) ?? 0) + 1);
    const discountOfOrder = new Map([...j.completed, ...j.reverted].map((c) => [c.orderId, c.discountCents]));
    const wrong = redeemed.filter((a) => byOrder.get(a.order.order_id) !== 1 || discountOfOrder.get(a.order.order_id) !== a.grantedCents);
    expect(
      wrong.slice(0, 5).map((a) => a.order.order_id),
      'each 200 journaled once, with its header',
    ).to.deep.equal([]);
    const answered = new Set(redeemed.map((a) => a.order.order_id));
    expect(
      [...byOrder.keys()].filter((o) => !answered.has(o)),
      'journaled without a 200',
    ).to.deep.equal([]);
    for (const a of redeemed)
      expect(a.grantedCents!, 'granted at most the full discount').to.be.at.most(discountOf(a.order.selling_price_subtotal));

    const reverted = new Set(answers.filter((a) => a.type === 'revert' && a.status === 200).map((a) => a.order.order_id));
    const headersSum = redeemed.filter((a) => !reverted.has(a.order.order_id)).reduce((s, a) => s + a.grantedCents!, 0);
    const counter = await api.services.repos.limitCounters.find(campaignCounterId(campaign.id));
    expect({
      amt: counter?.amt,
      total: counter?.total,
      headers: headersSum,
      lanes: Object.keys(counter?.lanes ?? {}).length,
    }).to.deep.equal({
      amt: j.spent,
      total: j.completed.length,
      headers: j.spent,
      lanes: 0,
    });
    expect(j.spent, 'spent within the budget').to.be.at.most(campaign.budget!.totalCents!);
    expect(maxAmt, 'amt sampled during the run within the budget').to.be.at.most(campaign.budget!.totalCents!);
    const verified = await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 });
    expect(verified.discrepancies).to.deep.equal([]);
    return { spent: j.spent, completed: j.completed.length, refused: refused.length, retried: answers.filter((a) => a.tries > 1).length };
  }

  const line = (
    name: string,
    r: { seconds: number; maxAmt: number },
    f: { spent: number; completed: number; refused: number; retried: number },
    n = CUSTOMERS,
    budgetCents = BUDGET_CENTS,
  ) =>
    `      [budget] ${name}: ${n} redeems in ${r.seconds.toFixed(1)} s (${(n / r.seconds).toFixed(0)}/s, ${IN_FLIGHT} in flight): ` +
    `${f.completed} granted, ${f.refused} refused, ${f.retried} after a 503; spent ${f.spent} of ${budgetCents} cents (largest amt seen ${r.maxAmt})`;

  it(`when ${REFUSE_CUSTOMERS.toLocaleString('en')} customers stampede a budget that refuses, then what is granted stays within it and amt is the journal to the cent`, async function () {
    // Fewer than the capped stampede (the same carts, a budget of about 1,234 orders): refusals past the
    // edge go through the queue (whether a discount fits depends on the cart, so the API cannot refuse them).
    const customers = sourceIds.slice(0, REFUSE_CUSTOMERS);
    const budgetCents = Math.round(REFUSE_FITS * meanCents);
    const campaign = await newCampaign('refuse', budgetCents);
    const run = await stampede(
      this,
      campaign,
      customers.map((s, i) => () => send('redeem', campaign.code!, s, cart(i))),
    );
    const f = await checkExact(campaign, run.answers, run.maxAmt);
    console.log(line('refuse', run, f, customers.length, budgetCents));
    expect(f.completed + f.refused).to.equal(customers.length);
    expect(f.refused, 'the budget ran out').to.be.greaterThan(0);
    // A refusal comes only when less is left than the discount asked, and nothing is given back: what is left is below the largest discount.
    expect(budgetCents - f.spent).to.be.below(Math.max(...CARTS.map(discountOf)));
    expect(f.completed).to.be.within(REFUSE_FITS * 0.95, REFUSE_FITS * 1.05);
  });

  it(`when ${CUSTOMERS.toLocaleString('en')} customers stampede a budget that caps, then it is spent exactly, the last grants cut to what was left`, async function () {
    const campaign = await newCampaign('cap');
    const run = await stampede(
      this,
      campaign,
      sourceIds.map((s, i) => () => send('redeem', campaign.code!, s, cart(i))),
    );
    const f = await checkExact(campaign, run.answers, run.maxAmt);
    console.log(line('cap', run, f));
    expect(f.spent, 'the budget spent exactly').to.equal(BUDGET_CENTS);
    const cut = run.answers.filter((a) => a.grantedCents !== null && a.grantedCents < discountOf(a.order.selling_price_subtotal));
    expect(cut.length, 'grants cut to what was left').to.be.greaterThan(0);
    expect(f.completed + f.refused).to.equal(CUSTOMERS);
  });

  it(`when a worker is SIGKILLed a third of the way into a stampede of ${KILL_CUSTOMERS.toLocaleString('en')} customers on a budget that caps, then the budget is still spent exactly and each grant journaled once`, async function () {
    const customers = sourceIds.slice(0, KILL_CUSTOMERS);
    const budgetCents = Math.round(KILL_FITS * meanCents);
    const campaign = await newCampaign('cap', budgetCents);
    // One worker runs the stampede when it dies, frozen (SIGSTOP) first and then looked at, as the
    // chaos scenarios do: a job active now is its own and cannot finish before the kill. Killed
    // holding jobs, their locks run out, its replacement runs them again (the same jobs:
    // idempotent); the second worker comes back for the next test.
    await workers[1]!.stop();
    const activeJobs = async () => (await Promise.all(api.jobs.partitionQueues.map((q) => q.getActive()))).flat().length;
    let held = 0;
    let killed: Promise<void> | undefined;
    let killedAfter = 0;
    const kill = async () => {
      const victim = workers[0]!;
      for (let tries = 0; tries < 100 && held === 0; tries++) {
        process.kill(victim.child.pid!, 'SIGSTOP');
        held = await activeJobs();
        if (held === 0) {
          process.kill(victim.child.pid!, 'SIGCONT');
          await new Promise((r) => setTimeout(r, 30));
        }
      }
      await victim.kill();
      workers[0] = await startWorkerProcess(WORKER_ENV);
    };
    const run = await stampede(
      this,
      campaign,
      customers.map((s, i) => () => send('redeem', campaign.code!, s, cart(i))),
      (done) => {
        if (killed || done < Math.floor(KILL_CUSTOMERS / 3)) return;
        killedAfter = done;
        killed = kill();
      },
    );
    await killed;
    workers[1] = await startWorkerProcess(WORKER_ENV);
    expect(held, 'jobs the victim held when killed').to.be.greaterThan(0);
    expect(workers[0]!.alive(), 'the replacement worker').to.equal(true);
    // The kill interrupted jobs: a surviving worker found them stalled and ran them again.
    const stalled = workers
      .map(
        (w) =>
          readFileSync(w.log, 'utf8')
            .split('\n')
            .filter((l) => l.includes('job stalled, re-queued')).length,
      )
      .reduce((a, b) => a + b, 0);
    expect(stalled, 'jobs the dead worker held, re-queued').to.be.greaterThan(0);
    const f = await checkExact(campaign, run.answers, run.maxAmt);
    console.log(
      `${line('cap, a worker SIGKILLed', run, f, customers.length, budgetCents)}; killed after ${killedAfter} answers holding ${held} jobs, ${stalled} re-queued`,
    );
    expect(killedAfter, 'killed mid-run').to.be.below(f.completed);
    expect(f.spent, 'the budget spent exactly').to.equal(budgetCents);
    expect(f.completed + f.refused).to.equal(customers.length);
  });

  it('when reverts race new redeems at the edge of a capped budget, then amt is the journal of completed cycles and never passes the budget', async function () {
    // 400 redeems at the edge of a budget of about 300 of them, then 150 of those reverted while 600 more redeem.
    const budgetCents = Math.round(300 * meanCents);
    const campaign = await newCampaign('cap', budgetCents);
    const first = await stampede(
      this,
      campaign,
      sourceIds.slice(0, 400).map((s, i) => () => send('redeem', campaign.code!, s, cart(i))),
    );
    const won = first.answers.filter((a) => a.status === 200);
    expect((await journal(campaign)).spent, 'the budget spent before the race').to.equal(budgetCents);
    const reverts = won.slice(0, 150).map((a) => () => send('revert', campaign.code!, a.sourceId, a.order));
    const redeems = sourceIds.slice(400, 1000).map((s, i) => () => send('redeem', campaign.code!, s, cart(i)));
    // Interleaved: a revert among every four redeems.
    const race = redeems.flatMap((r, i) => (i % 4 === 0 && reverts[i / 4] ? [reverts[i / 4]!, r] : [r]));
    const second = await stampede(this, campaign, race);
    expect(second.answers.filter((a) => a.type === 'revert').map((a) => a.body?.status)).to.deep.equal(reverts.map(() => 'reverted'));
    const all = [...first.answers, ...second.answers];
    const f = await checkExact(campaign, all, Math.max(first.maxAmt, second.maxAmt));
    // What is left after the race is exactly what can still be granted: one by one until refused.
    let more = 0;
    for (const s of sourceIds.slice(1000, 1400)) {
      const a = await send('redeem', campaign.code!, s, cart(more));
      if (a.status !== 200) break;
      more++;
    }
    const after = await journal(campaign);
    expect(after.spent, 'the rest granted until the budget is spent').to.equal(budgetCents);
    console.log(
      `      [budget] reverts at the edge: ${reverts.length} reverts among ${redeems.length} redeems in ${second.seconds.toFixed(1)} s; ` +
        `spent after the race ${f.spent} of ${budgetCents} cents (largest amt seen ${Math.max(first.maxAmt, second.maxAmt)}), ${more} more granted to spend it`,
    );
  });
});
