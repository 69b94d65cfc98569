/**
 * Expiring and pending points end to end (docs/wallets.md), on a real API, worker and expiry
 * sweep with a clock the test moves (`services.now`, read by the API, the worker and the sweep of
 * this process): wallet settings through the admin API, credits and debits through the client
 * routes, the ledger and events as the admin API shows them, the Wallet-Points header.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { until as poll } from '../support/poll.js';
import { call, startTestApi, type TestApi } from '../support/context.js';
import { makeOrder } from '../fixtures/records.js';

/** How long a test waits for the sweep's settle job (EXPIRY_SWEEP_MS is 100 here): a failure's deadline, not a measured bound. */
const SETTLE_DEADLINE_MS = 30_000;

describe('wallets: expiring and pending points', function () {
  // The model-based test runs ~150 HTTP operations on a fresh shop per run.
  this.timeout(120_000);
  let api: TestApi;
  let clock = Date.parse('2026-11-20T10:00:00Z');
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', EXPIRY_SWEEP_MS: '100' });
    api.services.now = () => new Date(clock);
  });
  after(async () => {
    await api.close();
  });
  const { admin, newApp, must } = adminHelpers(() => api);
  const basic = (app: AdminApp) => `Basic ${Buffer.from(`${app.api_key}:${app.secret}`).toString('base64')}`;

  async function shop(wallet: Record<string, unknown>, customers = ['c1']) {
    const app = await newApp({ name: 'Shop', timezone: 'Europe/Berlin', currency: 'EUR' });
    await must('POST', `/applications/${app.id}/customers`, { customers: customers.map((source_id) => ({ source_id })) });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', ...wallet });
    await must('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    return app;
  }
  const op = (app: AdminApp, type: 'credit' | 'debit', points: number, customer = 'c1') =>
    call(api.url, 'PUT', `/wallets/customer/${customer}/transactions/loyalty`, { auth: basic(app), body: { type, points } });
  const read = (app: AdminApp, customer = 'c1') => call(api.url, 'GET', `/wallets/customer/${customer}`, { auth: basic(app) });
  const ledger = (app: AdminApp, customer = 'c1') =>
    must('GET', `/applications/${app.id}/customers/${customer}/wallets/loyalty/ledger?limit=100`);
  const events = async (app: AdminApp, type: string) =>
    ((await must('GET', `/applications/${app.id}/events?type=${type}`)).events as any[]).map((e) => e.data);
  const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>) => poll(what, probe, SETTLE_DEADLINE_MS);
  /** Every applied entry starts where the one before ended, and the balance is where the last one ended. */
  function expectChained(l: any) {
    const applied = (l.entries as any[]).filter((e) => e.state === 'applied');
    for (let i = 1; i < applied.length; i++) expect(applied[i].before, `entry ${i}`).to.equal(applied[i - 1].after);
    if (applied.length > 0) expect(l.balance).to.equal(applied.at(-1).after);
  }

  it('when points expire at the end of the month in the wallet timezone, then the read shows it at that instant, the sweep posts one expired entry and its event, and the ledger stays chained', async () => {
    clock = Date.parse('2026-11-20T10:00:00Z');
    const app = await shop({ timezone: 'Europe/Berlin', points_expiry: { kind: 'end_of', period: 'month' } });
    expect((await op(app, 'credit', 100)).body.loyalty_points).to.equal(100);
    const before = await read(app);
    expect(before.body).to.deep.equal([
      {
        wallet_id: 'loyalty',
        wallet_name: 'Loyalty points',
        currency: 'EUR',
        singular_unit_name: 'point',
        plural_unit_name: 'points',
        timezone: 'Europe/Berlin',
        loyalty_points: 100,
      },
    ]);
    // Midnight of 1 December in Berlin (CET, +01:00).
    expect(before.headers.get('wallet-points')).to.equal('loyalty;expiring=100;expires-at="2026-11-30T23:00:00.000Z"');

    clock = Date.parse('2026-11-30T22:59:59.999Z');
    expect((await read(app)).body[0].loyalty_points).to.equal(100);
    clock = Date.parse('2026-11-30T23:00:00.000Z');
    const after = await read(app);
    expect(after.body[0].loyalty_points, 'as of now, before any sweep').to.equal(0);
    expect(after.headers.get('wallet-points')).to.equal(null);

    const l = await until('the expired entry', async () => {
      const x = await ledger(app);
      return x.entries.some((e: any) => e.type === 'expired' && e.state === 'applied') && x;
    });
    expect(l.entries.map((e: any) => [e.type, e.points, e.before, e.after, e.origin, e.bucket?.move ?? null])).to.deep.equal([
      ['credit', 100, 0, 100, 'api', null],
      ['expired', 100, 100, 0, 'time', 'expired'],
    ]);
    expect([l.balance, l.pending_points, l.expiring_points, l.buckets]).to.deep.equal([0, 0, 0, []]);
    expectChained(l);
    const expired = await until('the expired event', async () => {
      const es = await events(app, 'wallet.points.expired');
      return es.length > 0 && es;
    });
    expect(expired).to.have.length(1);
    expect(expired[0]).to.include({
      source_id: 'c1',
      wallet_id: 'loyalty',
      points: 100,
      previous_loyalty_points: 100,
      loyalty_points: 0,
      expires_at: '2026-11-30T23:00:00.000Z',
    });
    // A later sweep finds nothing more to do.
    await new Promise((r) => setTimeout(r, 400));
    expect((await ledger(app)).entries).to.have.length(2);
  });

  it('when wallet settings are sent, then a pending period until an instant is kept normalised, and bad values are refused naming the field and the bound', async () => {
    const app = await shop({ timezone: 'UTC' });
    const until = await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { pending: { until: '2031-01-31T00:00:00+01:00' } });
    expect(until.pending).to.deep.equal({ until: '2031-01-30T23:00:00.000Z' });
    clock = Date.parse('2030-12-01T00:00:00Z');
    await op(app, 'credit', 5);
    expect((await read(app)).headers.get('wallet-points')).to.equal('loyalty;pending=5;available-at="2031-01-30T23:00:00.000Z"');
    const refusals: [unknown, string, string][] = [
      [{ points_expiry: { kind: 'after', amount: 0, unit: 'days' } }, 'points_expiry.amount', 'must be greater than or equal to 1'],
      [{ points_expiry: { kind: 'after', amount: 3, unit: 'weeks' } }, 'points_expiry.unit', 'must be one of [days, months]'],
      [{ points_expiry: { kind: 'end_of', period: 'week' } }, 'points_expiry.period', 'must be one of [month, quarter, year]'],
      [{ points_expiry: { kind: 'end_of', period: 'month', amount: 2 } }, 'points_expiry.amount', 'is not allowed'],
      [{ pending: { days: 2, until: '2031-01-01T00:00:00Z' } }, 'pending', 'contains a conflict between exclusive peers [days, until]'],
      [{ pending: { until: 'next week' } }, 'pending.until', 'must be in iso format'],
    ];
    for (const [body, field, says] of refusals) {
      const res = await admin('PATCH', `/applications/${app.id}/wallets/loyalty`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(Object.keys(res.body.fields ?? {}), JSON.stringify(res.body)).to.include(field);
      expect(res.body.fields[field], JSON.stringify(res.body)).to.include(says);
    }
    expect((await must('GET', `/applications/${app.id}/wallets`)).wallets[0].pending).to.deep.equal({ until: '2031-01-30T23:00:00.000Z' });
  });

  it('when the setting changes, then earlier credits keep their expiry; debits take the soonest-expiring points first, and what never expires last', async () => {
    clock = Date.parse('2027-03-10T10:00:00Z');
    const app = await shop({ timezone: 'UTC' });
    await op(app, 'credit', 40); // never expires (no setting yet)
    await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { points_expiry: { kind: 'end_of', period: 'month' } });
    await op(app, 'credit', 100); // expires 1 April
    const changed = await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { points_expiry: { kind: 'end_of', period: 'year' } });
    expect(changed.points_expiry).to.deep.equal({ kind: 'end_of', period: 'year' });
    await op(app, 'credit', 50); // expires 1 January 2028
    expect((await read(app)).headers.get('wallet-points')).to.equal('loyalty;expiring=150;expires-at="2027-04-01T00:00:00.000Z"');
    expect((await op(app, 'debit', 120)).body).to.include({ loyalty_points: 70, previous_loyalty_points: 190 });
    // 100 of March's points and 20 of the year's went: at the end of March nothing expires.
    clock = Date.parse('2027-04-01T00:00:00Z');
    expect((await read(app)).body[0].loyalty_points).to.equal(70);
    expect((await ledger(app)).buckets).to.deep.equal([{ points: 30, available_at: null, expires_at: '2028-01-01T00:00:00.000Z' }]);
    clock = Date.parse('2028-01-01T00:00:00Z');
    // The operation settles what is due first: 30 expire, 40 that never expire stay, and a debit of 41 is refused.
    const refused = await op(app, 'debit', 41);
    expect(refused.status).to.equal(400);
    expect(refused.body.details).to.equal('balance is 40, requested 41');
    const l = await ledger(app);
    expect(l.entries.map((e: any) => [e.type, e.points, e.state])).to.deep.equal([
      ['credit', 40, 'applied'],
      ['credit', 100, 'applied'],
      ['credit', 50, 'applied'],
      ['debit', 120, 'applied'],
      ['expired', 30, 'applied'],
      ['debit', 41, 'refused'],
    ]);
    expectChained(l);
  });

  it('when cashback goes to a wallet with a pending period, then it is pending until then; a revert while pending cancels it without touching the balance; after, a revert takes back what is left', async () => {
    clock = Date.parse('2026-06-01T08:00:00Z');
    const app = await shop({ timezone: 'UTC' });
    await op(app, 'credit', 10); // before the setting: spendable at once
    await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { pending: { days: 14 } });
    const campaign = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Cashback 5%',
      code: 'BACK5',
      discount: { kind: 'cashback', type: 'percentage', value: 5, wallet_id: 'loyalty' },
    });
    const apply = (type: 'redeem' | 'revert', order: Record<string, unknown>) =>
      call(api.url, 'POST', `/coupons/apply?type=${type}`, {
        auth: basic(app),
        body: { source_id: 'c1', coupon_details: [{ coupon_id: campaign.id, coupon_code: 'BACK5' }], order },
      });
    const first = makeOrder(); // 5% of 1000 = 50
    expect((await apply('redeem', first)).status).to.equal(200);
    let r = await read(app);
    expect(r.body[0].loyalty_points).to.equal(10);
    expect(r.headers.get('wallet-points')).to.equal('loyalty;pending=50;available-at="2026-06-15T08:00:00.000Z"');
    expect((await apply('revert', first)).status).to.equal(200);
    r = await read(app);
    expect([r.body[0].loyalty_points, r.headers.get('wallet-points')]).to.deep.equal([10, null]);

    const second = makeOrder();
    await apply('redeem', second);
    clock = Date.parse('2026-06-15T08:00:00Z');
    expect((await read(app)).body[0].loyalty_points).to.equal(60);
    await op(app, 'debit', 45); // spends the 10 that never expire... and 35 of the cashback (no expiry: one pool)
    await apply('revert', second); // takes back what is left: 15
    const l = await ledger(app);
    expect(l.balance).to.equal(0);
    expect(l.entries.map((e: any) => [e.type, e.points, e.before, e.after, e.origin, e.bucket?.move ?? null])).to.deep.equal([
      ['credit', 10, 0, 10, 'api', null],
      ['credit', 50, 10, 10, 'cashback', 'pending'],
      ['debit', 50, 10, 10, 'cashback_revert', 'cancelled'],
      ['credit', 50, 10, 10, 'cashback', 'pending'],
      ['available', 50, 10, 60, 'time', 'available'],
      ['debit', 45, 60, 15, 'api', null],
      ['debit', 15, 15, 0, 'cashback_revert', null],
    ]);
    expectChained(l);
    const types = async () =>
      ((await must('GET', `/applications/${app.id}/events`)).events as any[])
        .map((e) => e.type)
        .filter((t: string) => t.startsWith('wallet.'));
    const seen = await until('the events', async () => {
      const t = await types();
      return t.length >= 7 && t;
    });
    expect([...seen].sort()).to.deep.equal(
      [
        'wallet.transaction.completed',
        'wallet.points.pending',
        'wallet.points.cancelled',
        'wallet.points.pending',
        'wallet.points.available',
        'wallet.transaction.completed',
        'wallet.transaction.completed',
      ].sort(),
    );
  });

  it("when a cashback campaign has a pending period of its own, then its cashback waits that long whatever the wallet's setting, and other credits do not", async () => {
    clock = Date.parse('2026-07-01T09:00:00Z');
    const app = await shop({ timezone: 'UTC' });
    const campaign = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Cashback 10, pending 3 days',
      code: 'BACK10',
      discount: { kind: 'cashback', type: 'flat', value: 10, wallet_id: 'loyalty', pending: { days: 3 } },
    });
    expect(campaign.discount.pending).to.deep.equal({ days: 3 });
    const discounted = await admin('POST', `/applications/${app.id}/campaigns`, {
      name: 'A discount cannot have one',
      code: 'NOPE',
      discount: { kind: 'discount', type: 'flat', value: 10, pending: { days: 3 } },
    });
    expect([discounted.status, Object.keys(discounted.body.fields ?? {})]).to.deep.equal([400, ['discount.pending']]);
    await op(app, 'credit', 4);
    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: basic(app),
      body: { source_id: 'c1', coupon_details: [{ coupon_id: campaign.id, coupon_code: 'BACK10' }], order: makeOrder() },
    });
    expect(redeemed.status, redeemed.text).to.equal(200);
    const r = await read(app);
    expect([r.body[0].loyalty_points, r.headers.get('wallet-points')]).to.deep.equal([
      4,
      'loyalty;pending=10;available-at="2026-07-04T09:00:00.000Z"',
    ]);
  });

  it('when debits race the instant of an expiry, then no point is both spent and expired and the balance never goes below zero', async () => {
    clock = Date.parse('2026-09-30T23:59:59.000Z');
    const app = await shop({ timezone: 'UTC', points_expiry: { kind: 'end_of', period: 'month' } });
    await op(app, 'credit', 1000);
    // 20 debits of 60 (1200 > 1000): 10 sent before the expiry at 1 October, the clock crossing it
    // once the first has been answered (the rest queued or running), then 10 more; the sweep's
    // settle job (every 100 ms) races them too.
    const first = Array.from({ length: 10 }, () => op(app, 'debit', 60));
    await first[0];
    clock = Date.parse('2026-10-01T00:00:00.000Z');
    const answers = await Promise.all([...first, ...Array.from({ length: 10 }, () => op(app, 'debit', 60))]);
    expect(answers.every((a) => a.status === 200 || (a.status === 400 && a.body.details.startsWith('balance is')))).to.equal(true);
    const spent = answers.filter((a) => a.status === 200).length * 60;
    expect(spent, 'the first debit ran before the expiry').to.be.at.least(60);
    // Every entry applied (a settle job may still be finishing its write).
    const l = await until('every entry applied', async () => {
      const x = await ledger(app);
      return x.entries.every((e: any) => e.state !== 'pending') && x;
    });
    const expired = l.entries.filter((e: any) => e.type === 'expired').reduce((s: number, e: any) => s + e.points, 0);
    expect(spent + expired).to.equal(1000);
    expect(l.balance).to.equal(0);
    expect(l.entries.filter((e: any) => e.type === 'expired').length).to.be.at.most(1);
    for (const e of l.entries) if (e.after !== null) expect(e.after).to.be.at.least(0);
    expectChained(l);
  });

  it('when random credits, debits, setting changes and clock jumps run through the service, then balance, buckets and ledger equal a simple model at every step', async () => {
    /** The model: lots of points with the instant they become spendable and the instant they expire; nothing shared with the service's code. */
    type Lot = { points: number; availableAt: number; expiresAt: number };
    const DAY = 86_400_000;
    const settings = [
      { points_expiry: null, pending: null },
      { points_expiry: { kind: 'after', amount: 3, unit: 'days' }, pending: null },
      { points_expiry: { kind: 'after', amount: 5, unit: 'days' }, pending: { days: 2 } },
      { points_expiry: null, pending: { days: 1 } },
      { points_expiry: { kind: 'after', amount: 1, unit: 'days' }, pending: null },
    ] as const;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('credit' as const), points: fc.integer({ min: 1, max: 400 }) }),
      fc.record({ kind: fc.constant('debit' as const), points: fc.integer({ min: 1, max: 400 }) }),
      fc.record({ kind: fc.constant('setting' as const), which: fc.integer({ min: 0, max: settings.length - 1 }) }),
      fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 60 }) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 8, maxLength: 16 }), async (steps) => {
        clock = Date.parse('2026-01-05T12:00:00Z') + run++ * 400 * DAY;
        const app = await shop({ timezone: 'UTC' });
        let lots: Lot[] = [];
        let setting: (typeof settings)[number] = settings[0];
        const spendable = () => lots.filter((l) => l.availableAt <= clock && l.expiresAt > clock).reduce((s, l) => s + l.points, 0);
        for (const s of steps) {
          if (s.kind === 'wait') clock += s.hours * 3_600_000;
          else if (s.kind === 'setting') {
            setting = settings[s.which];
            await must('PATCH', `/applications/${app.id}/wallets/loyalty`, setting);
          } else if (s.kind === 'credit') {
            const res = await op(app, 'credit', s.points);
            expect(res.status, res.text).to.equal(200);
            const availableAt = clock + (setting.pending ? setting.pending.days * DAY : 0);
            const expiresAt = setting.points_expiry ? availableAt + setting.points_expiry.amount * DAY : Infinity;
            lots.push({ points: s.points, availableAt, expiresAt });
          } else {
            const has = spendable();
            const res = await op(app, 'debit', s.points);
            if (s.points > has) {
              expect(res.status, res.text).to.equal(400);
            } else {
              expect(res.status, res.text).to.equal(200);
              let left = s.points;
              for (const l of lots.filter((x) => x.availableAt <= clock && x.expiresAt > clock).sort((a, b) => a.expiresAt - b.expiresAt)) {
                const take = Math.min(left, l.points);
                l.points -= take;
                left -= take;
              }
            }
          }
          lots = lots.filter((l) => l.points > 0 && l.expiresAt > clock);
          const iso = (t: number) => new Date(t).toISOString();
          const r = await read(app);
          expect(r.body[0].loyalty_points, `spendable after ${JSON.stringify(s)}`).to.equal(spendable());
          // The header is the model's pending and expiring points with their soonest instants, exactly.
          const pendingLots = lots.filter((x) => x.availableAt > clock);
          const expiringLots = lots.filter((x) => x.availableAt <= clock && x.expiresAt !== Infinity);
          const sum = (xs: Lot[]) => xs.reduce((t, x) => t + x.points, 0);
          const parts = ['loyalty'];
          if (pendingLots.length > 0)
            parts.push(`pending=${sum(pendingLots)}`, `available-at="${iso(Math.min(...pendingLots.map((x) => x.availableAt)))}"`);
          if (expiringLots.length > 0)
            parts.push(`expiring=${sum(expiringLots)}`, `expires-at="${iso(Math.min(...expiringLots.map((x) => x.expiresAt)))}"`);
          expect(r.headers.get('wallet-points'), `header after ${JSON.stringify(s)}`).to.equal(parts.length > 1 ? parts.join(';') : null);
          const l = await ledger(app);
          if (s.kind === 'credit' || s.kind === 'debit') {
            // An operation settles what is due first: the stored balance and buckets are the model's now.
            expect(l.balance).to.equal(spendable());
            const group = (rows: [string, string, number][]) => {
              const m = new Map<string, number>();
              for (const [a, e, n] of rows) m.set(`${a}|${e}`, (m.get(`${a}|${e}`) ?? 0) + n);
              return Object.fromEntries([...m].sort());
            };
            expect(group(l.buckets.map((b: any) => [b.available_at ?? 'now', b.expires_at ?? 'never', b.points]))).to.deep.equal(
              group(
                [...pendingLots, ...expiringLots].map((x) => [
                  x.availableAt > clock ? iso(x.availableAt) : 'now',
                  x.expiresAt === Infinity ? 'never' : iso(x.expiresAt),
                  x.points,
                ]),
              ),
            );
          }
          expectChained(l);
        }
      }),
      {
        numRuns: 10,
        // Always tried first: two buckets of different expiries, a debit that takes part of them, both expiries crossed.
        examples: [
          [
            [
              { kind: 'setting', which: 1 },
              { kind: 'credit', points: 100 },
              { kind: 'wait', hours: 5 },
              { kind: 'credit', points: 100 },
              { kind: 'debit', points: 50 },
              { kind: 'wait', hours: 70 },
              { kind: 'credit', points: 1 },
              { kind: 'wait', hours: 5 },
              { kind: 'debit', points: 1 },
            ],
          ],
        ],
      },
    );
  });
});
