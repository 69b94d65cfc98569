/**
 * A model-based test of orders (docs/wallets.md "Earning rules", "Caps per period", "Orders reported
 * by the storefront", "Partial returns", "Tiers"): random completed orders, repeats, partial and
 * whole returns, spending and clock jumps across month ends and the nights clocks change in the
 * wallet's timezone (Europe/Berlin) run through the real API and worker, in a wallet with tiers over
 * a rolling window of two months whose upper level earns 1.5×; after every step the balance, the
 * answer, what the capped rule has left and the customer's tier and window equal a simple model
 * that shares no code with the service.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';

describe('orders against a model: earning, caps per period, partial and whole returns, spending, across month ends and DST', function () {
  // Each run is ~20 HTTP operations on a fresh shop.
  this.timeout(180_000);
  let api: TestApi;
  let clock = Date.parse('2026-10-24T12:00:00Z');
  before(async () => {
    api = await startTestApi();
    api.services.now = () => new Date(clock);
  });
  after(async () => {
    await api.close();
  });
  const { admin, client, must, newApp } = adminHelpers(() => api);

  /** Rule A: 1 point per 10.00, at most 30 a month (Berlin); rule B: 1 point per 100.00, no cap. Points in hundredths. */
  const CAP = 3000;
  const ruleA = (cents: number) => Math.floor(cents / 1000) * 100;
  const ruleB = (cents: number) => Math.floor(cents / 10_000) * 100;
  /** The Berlin month of an instant, computed from the offsets (CET +1, CEST +2 from the last Sunday of March to the last Sunday of October, 01:00 UTC). */
  function berlinMonth(t: number): string {
    const lastSunday = (y: number, m: number) => {
      const d = new Date(Date.UTC(y, m + 1, 0, 1));
      return d.getTime() - d.getUTCDay() * 86_400_000;
    };
    const y = new Date(t).getUTCFullYear();
    const summer = t >= lastSunday(y, 2) && t < lastSunday(y, 9);
    const local = new Date(t + (summer ? 2 : 1) * 3_600_000);
    return `${local.getUTCFullYear()}-${String(local.getUTCMonth() + 1).padStart(2, '0')}`;
  }

  /** The first instant of the Berlin month after the one `t` falls in. */
  function berlinMonthEnd(t: number): number {
    const [y, m] = berlinMonth(t).split('-').map(Number) as [number, number];
    const next = Date.UTC(y, m, 1); // 00:00 UTC on the 1st of the next month
    return [next - 2 * 3_600_000, next - 3_600_000].find((c) => berlinMonth(c) !== berlinMonth(c - 1))!;
  }
  const monthIndex = (k: string) => Number(k.slice(0, 4)) * 12 + Number(k.slice(5, 7)) - 1;
  /** Tiers: Silver from 40 points earned in this Berlin month and the one before, 1.5× points; kept until the month after ends. */
  const SILVER = 4000;

  type Order = { lines: number[]; earned: number; taken: number; countedA: number; period: string; returns: Map<string, number> };
  const step = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('complete' as const),
        lines: fc.array(fc.integer({ min: 300, max: 12_000 }), { minLength: 1, maxLength: 3 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('repeat' as const), pick: fc.nat() }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('part' as const), pick: fc.nat(), line: fc.nat(), ret: fc.integer({ min: 1, max: 3 }) }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('whole' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('spend' as const), share: fc.integer({ min: 1, max: 100 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 200 }) }) },
    // Weeks at once: the tier window (two months) rolls past months with earnings, and held levels expire.
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 240, max: 960 }) }) },
  );

  it('when random orders, returns, spending and clock jumps run through the service, then balance, answers and the cap left equal the model at every step', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 20 }), async (steps) => {
        // Each run starts a week before a month end; odd runs before the last Sunday of October (clocks go back).
        clock = Date.parse(run % 2 ? '2026-10-22T20:00:00Z' : '2027-03-24T20:00:00Z') + Math.floor(run / 2) * 3_600_000;
        run++;
        const app: AdminApp = await newApp({ name: 'Model shop', timezone: 'Europe/Berlin', currency: 'EUR' });
        await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
        await must('POST', `/applications/${app.id}/wallets`, {
          wallet_id: 'loyalty',
          timezone: 'Europe/Berlin',
          earning_rules: [
            { name: 'A', points: 1, per: 10, max_per_period: { points: CAP / 100, period: 'month' } },
            { name: 'B', points: 1, per: 100 },
          ],
          tiers: {
            rolling_months: 2,
            levels: [
              { name: 'Member', min_points: 0 },
              { name: 'Silver', min_points: SILVER / 100, earning_multiplier: 1.5 },
            ],
          },
        });
        // The tier model: points earned per Berlin month, the level held until the month's end.
        const tier = { earned: new Map<string, number>(), held: 'Member', until: null as number | null };
        const windowSum = (t: number) => {
          const m = monthIndex(berlinMonth(t));
          let sum = 0;
          for (const [k, v] of tier.earned) if (monthIndex(k) === m || monthIndex(k) === m - 1) sum += v;
          return sum;
        };
        const levelOf = (h: number) => (h >= SILVER ? 'Silver' : 'Member');
        const higher = (a: string, b: string) => (a === 'Silver' || b === 'Silver' ? 'Silver' : 'Member');
        /** The month ends passed by `t`: each re-assesses on the window that closed (nothing changes at Member). */
        const settle = (t: number) => {
          while (tier.until !== null && tier.until <= t) {
            const e = tier.until;
            if (higher(tier.held, levelOf(windowSum(e - 1))) === 'Member') {
              tier.until = berlinMonthEnd(t);
              break;
            }
            tier.held = levelOf(windowSum(e - 1));
            tier.until = berlinMonthEnd(e);
          }
        };
        const levelNow = () => {
          settle(clock);
          return higher(tier.held, levelOf(windowSum(clock)));
        };
        const earnTier = (h: number) => {
          settle(clock);
          tier.until ??= berlinMonthEnd(clock);
          const month = berlinMonth(clock);
          tier.earned.set(month, (tier.earned.get(month) ?? 0) + h);
        };
        const releaseTier = (o: Order, ask: number) => {
          settle(clock);
          const had = tier.earned.get(o.period) ?? 0;
          tier.earned.set(o.period, had - Math.min(had, o.earned, ask));
        };
        const orders: Order[] = [];
        let balance = 0;
        let counter = { period: '', used: 0 };
        const left = () => (counter.period === berlinMonth(clock) ? CAP - counter.used : CAP);
        const send = async (order: Record<string, unknown>) => {
          const res = await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order });
          expect(res.status, res.text).to.equal(200);
          return res.body as { points: number; txn_id: string | null };
        };
        const itemsOf = (lines: number[]) =>
          lines.map((c, i) => ({ product_id: `p${i}`, selling_price: c / 100, original_price: c / 100, quantity: 1 }));
        const takeBack = (o: Order, ask: number) => {
          // Its share of what the order counted toward the cap, to the period it counted in.
          const share = (upTo: number) => (o.earned === 0 ? 0 : Math.floor((o.countedA * upTo) / o.earned));
          const release = share(o.taken + ask) - share(o.taken);
          if (counter.period === o.period) counter = { ...counter, used: counter.used - Math.min(counter.used, release) };
          if (tier.until !== null) releaseTier(o, ask);
          o.taken += ask;
          const moved = Math.min(ask, balance);
          balance -= moved;
          return moved;
        };
        for (const [n, s] of steps.entries()) {
          const what = `step ${n} ${JSON.stringify(s)}`;
          if (s.kind === 'wait') clock += s.hours * 3_600_000;
          else if (s.kind === 'complete') {
            const cents = s.lines.reduce((a, b) => a + b, 0);
            const period = berlinMonth(clock);
            if (counter.period !== period) counter = { period, used: 0 };
            // The tier's multiplier, once, before each rule's single rounding (down, to whole points).
            const m = levelNow() === 'Silver' ? 150 : 100;
            const a = Math.min(Math.floor((cents * m) / 100_000) * 100, CAP - counter.used);
            const earned = a + Math.floor((cents * m) / 1_000_000) * 100;
            counter = { period, used: counter.used + a };
            balance += earned;
            if (earned > 0) earnTier(earned);
            const id = `o-${orders.length}`;
            orders.push({ lines: s.lines, earned, taken: 0, countedA: a, period, returns: new Map() });
            const got = await send({
              order_id: id,
              status: 'completed',
              selling_price_subtotal: cents / 100,
              original_price_subtotal: cents / 100,
              items: itemsOf(s.lines),
            });
            expect(got.points, what).to.equal(earned / 100);
          } else if (orders.length > 0 && s.kind === 'repeat') {
            const o = orders[s.pick % orders.length]!;
            const id = `o-${orders.indexOf(o)}`;
            const cents = o.lines.reduce((a, b) => a + b, 0);
            const got = await send({
              order_id: id,
              status: 'completed',
              selling_price_subtotal: cents / 100,
              original_price_subtotal: cents / 100,
              items: itemsOf(o.lines),
            });
            expect(got.points, `${what}: a repeat answers what was earned`).to.equal(o.earned / 100);
          } else if (orders.length > 0 && s.kind === 'part') {
            const o = orders[s.pick % orders.length]!;
            const line = o.lines[s.line % o.lines.length]!;
            const returnId = `r-${s.ret}`;
            let moved: number;
            if (o.returns.has(returnId)) moved = o.returns.get(returnId)!;
            else if (o.returns.has('*')) moved = 0;
            else {
              const ask = Math.min(ruleA(line) + ruleB(line), o.earned - o.taken);
              moved = ask > 0 ? takeBack(o, ask) : 0;
              if (ask > 0) o.returns.set(returnId, moved);
            }
            const got = await send({ order_id: `o-${orders.indexOf(o)}`, status: 'returned', return_id: returnId, items: itemsOf([line]) });
            expect(got.points, what).to.equal(moved / 100);
          } else if (orders.length > 0 && s.kind === 'whole') {
            const o = orders[s.pick % orders.length]!;
            let moved: number;
            if (o.returns.has('*')) moved = o.returns.get('*')!;
            else {
              const ask = o.earned - o.taken;
              moved = ask > 0 ? takeBack(o, ask) : 0;
              if (ask > 0) o.returns.set('*', moved);
            }
            const got = await send({ order_id: `o-${orders.indexOf(o)}`, status: 'returned' });
            expect(got.points, what).to.equal(moved / 100);
          } else if (s.kind === 'spend' && balance >= 100) {
            const points = Math.max(1, Math.floor(((balance / 100) * s.share) / 100));
            const res = await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'debit', points });
            expect(res.status, `${what}: ${res.text}`).to.equal(200);
            balance -= points * 100;
          }
          const read = await client(app, 'GET', '/wallets/customer/c1');
          expect(read.body[0].loyalty_points, `balance after ${what}`).to.equal(balance / 100);
          const explained = await admin('POST', `/applications/${app.id}/wallets/loyalty/earning/explain`, {
            order: { selling_price_subtotal: 1, original_price_subtotal: 1 },
            customer: 'c1',
          });
          expect(explained.body.rules[0].period, `cap after ${what}`).to.deep.equal({ period: berlinMonth(clock), left: left() / 100 });
          const ledger = await must('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger?limit=1`);
          expect([ledger.tier.level, ledger.tier.earned_points], `tier after ${what}`).to.deep.equal([levelNow(), windowSum(clock) / 100]);
        }
        expect((await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 })).discrepancies).to.deep.equal([]);
      }),
      { numRuns: 8 },
    );
  });
});
