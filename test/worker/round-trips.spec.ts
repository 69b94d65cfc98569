import { expect } from 'chai';
import { monitorRedis } from '../support/redis-monitor.js';
import { startRedisServer } from '../../scripts/embedded-servers.js';
import type { CommandStartedEvent } from 'mongodb';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/**
 * Database commands per operation, counted with the driver's command monitoring over a real API
 * and worker in this process (they share the monitored connection). Pinned so that a regression
 * fails CI; docs/benchmarks.md has the before/after table. Caches are warm (a first request of
 * each kind runs before counting) and never re-checked during the test (CACHE_CHECK_MS). One
 * operation alone is counted first; then concurrent operations, whose statements share commands
 * (shared/data/batched.ts).
 */
/** The caches' re-check, at its largest: a count must end within it of the caches' reading. */
const CACHE_CHECK_MS = 60_000;

describe('database round trips per operation', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: TestApplication;
  const IGNORED = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo', 'getMore']);

  before(async () => {
    // No webhook deliveries in this process (nor their sweep): a delivery job another file of the
    // lane queued, or the periodic sweep, reads and updates webhook_deliveries among the commands
    // counted (two loaded CI runs). Events are still recorded.
    // The results' tallies (docs/results.md) are written by a timer, apart from any operation: a
    // minute between writes, and each count flushes them first, so that an earlier redeem's tallies
    // are never written among the commands of a count (a credit once counted one, 2 s after a redeem).
    api = await startTestApi({ CACHE_CHECK_MS: String(CACHE_CHECK_MS), WEBHOOK_CONCURRENCY: '0', RESULTS_TALLY_MS: '60000' });
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['warm', 'first', 'again', 'cash', 'wallet', 'wallet2']);
    await createWallet(api.services, app.id, 'loyalty');
    await createCampaign(api.services, app.id, { code: 'FLASH', limits: { total: 1000, perCustomer: 5, perDay: 500 } });
    await createCampaign(api.services, app.id, {
      code: 'CASHBACK',
      limits: { total: 1000 },
      discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: null, walletId: 'loyalty' },
    });
    // Warm every cache on both sides (credentials, campaigns, applications, wallets).
    for (const code of ['FLASH', 'CASHBACK']) expect((await redeem('warm', code)).status).to.equal(200);
    expect((await credit('warm')).status).to.equal(200);
  });
  after(() => api.close());

  const redeem = (sourceId: string, code: string, order = makeOrder(), type = 'redeem') =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_id: code, coupon_code: code }], order },
    });
  const credit = (sourceId: string) =>
    call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points: 5 } });

  /**
   * The application's caches read anew just before a count (a wallet credit of the warm-up customer
   * reads credentials, application, wallet and webhook endpoints; the campaigns are read by the
   * application's version), so that none is re-checked during it; returns a check, run after the count, that it ended within CACHE_CHECK_MS of that reading.
   */
  async function freshCaches(): Promise<() => void> {
    api.services.forget(app.id);
    const readAt = Date.now();
    expect((await credit('warm')).status).to.equal(200);
    await api.services.campaigns.get((await api.services.applications.get(app.id))!); // kept by version, not re-checked
    return () =>
      expect(Date.now() - readAt, 'the count ended before the caches were due to be re-checked (CACHE_CHECK_MS)').to.be.below(
        CACHE_CHECK_MS,
      );
  }

  /** The commands the operation sent, by name (in order). */
  async function commandsOf(run: () => Promise<{ status: number }>): Promise<string[]> {
    const client = api.services.db.connection.getClient();
    const seen: string[] = [];
    const onStart = (e: CommandStartedEvent) => {
      if (!IGNORED.has(e.commandName)) seen.push(`${e.commandName}:${String(e.command[e.commandName])}`);
    };
    await api.services.tally.flush();
    const inTime = await freshCaches();
    client.on('commandStarted', onStart);
    try {
      expect((await run()).status).to.equal(200);
    } finally {
      client.off('commandStarted', onStart);
    }
    inTime();
    return seen;
  }

  const report = (name: string, cmds: string[]) => {
    if (process.env.ROUND_TRIPS_PRINT) process.stdout.write(`      ${name}: ${cmds.length} ${JSON.stringify(cmds)}\n`);
    return cmds;
  };

  // The customer (API); both limit counters and the hour's results counter (docs/results.md) taken in
  // one command; the commit; the three lanes freed in one command.
  const REDEEM = ['find:customers', 'update:limit_counters', 'update:redemptions', 'update:limit_counters'];

  it('when a first-time customer redeems a coupon with total, per-customer and per-day limits, then 4 commands', async () => {
    expect(report('redeem (first-time customer)', await commandsOf(() => redeem('first', 'FLASH')))).to.deep.equal(REDEEM);
  });

  it('when a returning customer redeems again, then the same 4 commands', async () => {
    expect((await redeem('again', 'FLASH')).status).to.equal(200);
    expect(report('redeem (returning customer)', await commandsOf(() => redeem('again', 'FLASH')))).to.deep.equal(REDEEM);
  });

  it('when a redemption is reverted, then 7 commands', async () => {
    const order = makeOrder();
    expect((await redeem('again', 'FLASH', order)).status).to.equal(200);
    expect(report('revert', await commandsOf(() => redeem('again', 'FLASH', order, 'revert')))).to.deep.equal([
      'find:customers',
      'find:redemptions',
      // Give-backs are sent alone: each needs its own "matched" (a counter that does not exist gives nothing):
      // the two limit counters and the results counter of the redemption's hour.
      'update:limit_counters',
      'update:limit_counters',
      'update:limit_counters',
      'update:redemptions',
      'update:limit_counters',
    ]);
  });

  it('when a cashback coupon is redeemed by a customer without a balance yet, then 8 commands', async () => {
    expect(report('redeem (cashback)', await commandsOf(() => redeem('cash', 'CASHBACK')))).to.have.members([
      'find:customers',
      'update:limit_counters',
      'update:redemptions',
      // In parallel: the cashback credit (balance created on first use) and freeing the lane.
      'update:limit_counters',
      'find:wallet_balances',
      'findAndModify:wallet_balances',
      'insert:wallet_transactions',
      'update:wallet_balances',
    ]);
  });

  it('when the same customer redeems the cashback coupon again, then 6 commands: the balance is not read', async () => {
    expect(report('redeem (cashback, again)', await commandsOf(() => redeem('cash', 'CASHBACK')))).to.have.members([
      'find:customers',
      'update:limit_counters',
      'update:redemptions',
      'update:limit_counters',
      'insert:wallet_transactions',
      'update:wallet_balances',
    ]);
  });

  it('when a customer is credited for the first time and again, then 5 and 3 commands', async () => {
    // The customer is read (API; the wallet comes from the cache, as campaigns do); then the ledger (worker).
    const LEDGER = ['insert:wallet_transactions', 'update:wallet_balances'];
    const first = report('wallet credit (first)', await commandsOf(() => credit('wallet')));
    expect(first).to.deep.equal(['find:customers', 'find:wallet_balances', 'findAndModify:wallet_balances', ...LEDGER]);
    // The worker remembers what its move left the balance in: it writes without reading it.
    const again = report('wallet credit (again)', await commandsOf(() => credit('wallet')));
    expect(again).to.deep.equal(['find:customers', ...LEDGER]);
  });

  describe('concurrent operations', () => {
    /** Commands and statements (updates, inserted documents, `_id`s or keys asked for) by collection and command. */
    async function statementsOf(run: () => Promise<unknown>) {
      const client = api.services.db.connection.getClient();
      const commands = new Map<string, number>();
      const statements = new Map<string, number>();
      const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
      const onStart = (e: CommandStartedEvent) => {
        if (IGNORED.has(e.commandName)) return;
        const c = e.command;
        const k = `${e.commandName}:${String(c[e.commandName])}`;
        const inList = (f: Record<string, unknown> | undefined) =>
          Object.values(f ?? {}).reduce<number>(
            (n, v) => Math.max(n, Array.isArray((v as { $in?: unknown[] })?.$in) ? (v as { $in: unknown[] }).$in.length : 1),
            1,
          );
        add(commands, k, 1);
        add(
          statements,
          k,
          e.commandName === 'update'
            ? c.updates.length
            : e.commandName === 'insert'
              ? c.documents.length
              : e.commandName === 'find'
                ? inList(c.filter)
                : 1,
        );
      };
      await api.services.tally.flush();
      const inTime = await freshCaches();
      client.on('commandStarted', onStart);
      try {
        await run();
      } finally {
        client.off('commandStarted', onStart);
      }
      inTime();
      return { commands, statements };
    }

    it('when 24 customers redeem and are credited at the same moment, then every statement is sent once: none lost, none repeated', async () => {
      const ids = Array.from({ length: 24 }, (_, i) => `burst-${i}`);
      await createCustomers(api.services, app.id, ids);
      const { commands, statements } = await statementsOf(async () => {
        const answers = await Promise.all([...ids.map((id) => redeem(id, 'FLASH')), ...ids.map((id) => credit(id))]);
        expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 200));
      });
      if (process.env.ROUND_TRIPS_PRINT)
        process.stdout.write(`      ${JSON.stringify([...commands])}\n      ${JSON.stringify([...statements])}\n`);
      // What 24 of each send alone (above), statement for statement: none lost, none repeated.
      const n = ids.length;
      expect(statements.get('find:customers')).to.equal(2 * n);
      expect(statements.get('update:limit_counters')).to.equal(6 * n); // two limit counters and the results counter taken, three lanes freed
      expect(statements.get('update:redemptions')).to.equal(n);
      expect(statements.get('find:wallets') ?? 0).to.equal(0); // cached
      expect(statements.get('find:wallet_balances')).to.equal(n);
      expect(statements.get('findAndModify:wallet_balances')).to.equal(n);
      expect(statements.get('insert:wallet_transactions')).to.equal(n);
      expect(statements.get('update:wallet_balances')).to.equal(n);
      // Not asserted here: that they share commands. Statements share one only when their
      // operations reach the batcher in the same turn of the event loop, which a saturated machine
      // does not guarantee (beside two busy loops, all 24 inserts can go alone, each correct). That
      // statements issued at once go as one command is test/worker/batched.spec.ts; what sharing
      // saves under load is `npm run bench` (docs/benchmarks.md).
      // Never more commands than statements of a kind: a batch never sends a statement twice.
      for (const [kind, sent] of commands) expect(sent, kind).to.be.at.most(statements.get(kind)!);
    });
    it('when 24 customers earn cashback twice at the same moment, then the second time no balance is read and every entry is written once: no write on memory collided', async () => {
      const ids = Array.from({ length: 24 }, (_, i) => `twice-${i}`);
      await createCustomers(api.services, app.id, ids);
      const burst = async () => {
        const answers = await Promise.all(ids.map((id) => redeem(id, 'CASHBACK')));
        expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 200));
      };
      const first = await statementsOf(burst);
      const second = await statementsOf(burst);
      const n = ids.length;
      expect(first.statements.get('find:wallet_balances')).to.equal(n);
      expect(second.statements.get('find:wallet_balances') ?? 0, 'balances read the second time').to.equal(0);
      // One entry per redeem: an insert on a stale memory would be a second one (refused) for its redeem.
      expect([first.statements.get('insert:wallet_transactions'), second.statements.get('insert:wallet_transactions')]).to.deep.equal([
        n,
        n,
      ]);
      expect(second.statements.get('update:wallet_balances')).to.equal(n);
    });
  });

  describe('Redis commands per job', () => {
    let redis: Awaited<ReturnType<typeof startRedisServer>>;
    let own: TestApi;
    let ownApp: TestApplication;
    before(async () => {
      // A Redis of its own: every command it sees is this API's and worker's. The stalled-job
      // check runs once a minute, not every 5 s: on a loaded machine timers fire late while the
      // operations run, so periodic commands would not cancel out against the idle window.
      redis = await startRedisServer();
      own = await startTestApi({ REDIS_URL: redis.url, CACHE_CHECK_MS: '60000', QUEUE_PREFIX: 'redis-rt', STALLED_INTERVAL_MS: '60000' });
      ownApp = await createTestApplication(own.services);
      await createCustomers(own.services, ownApp.id, ['r1', 'r2']);
      await createWallet(own.services, ownApp.id);
      await createCampaign(own.services, ownApp.id, { code: 'RT', limits: { total: 1000, perCustomer: 500 } });
    });
    after(async () => {
      await own?.close();
      await redis?.stop();
    });

    /** Top-level commands (not those scripts run) per operation, by name, while `n` operations run one after another, less what the same time idle sends. */
    async function perOperation(n: number, run: (i: number) => Promise<{ status: number }>) {
      let seen: Map<string, number> | null = null;
      const monitor = await monitorRedis(redis.url, (name, source) => {
        if (seen && source !== 'lua') seen.set(name, (seen.get(name) ?? 0) + 1);
      });
      const count = async (work: () => Promise<void>) => {
        const mine = new Map<string, number>();
        seen = mine;
        const started = Date.now();
        await work();
        seen = null;
        return { seen: mine, ms: Date.now() - started };
      };
      try {
        const busy = await count(async () => {
          for (let i = 0; i < n; i++) expect((await run(i)).status).to.equal(200);
        });
        const idle = await count(() => new Promise((r) => setTimeout(r, busy.ms)));
        const per = new Map<string, number>();
        for (const name of new Set([...busy.seen.keys(), ...idle.seen.keys()]))
          per.set(name, ((busy.seen.get(name) ?? 0) - (idle.seen.get(name) ?? 0)) / n);
        if (process.env.ROUND_TRIPS_PRINT) process.stdout.write(`      ${JSON.stringify([...per].map(([k, v]) => [k, v.toFixed(2)]))}\n`);
        return per;
      } finally {
        monitor.stop();
      }
    }

    // One operation at a time: the queue's add; the worker's wake-up, take and finish (BullMQ wakes
    // and takes twice per job when the queue runs dry between jobs); the reply to this API and its
    // read. (The API does not read BullMQ's queue event stream: that would cost three reads per
    // job.) The reply goes out before the worker's finish (docs/reliability.md, item 9), so the
    // client's next operation can be added before that finish, which then hands the worker its next
    // job at once: no wake-up, no separate take. The queue runs dry between jobs only when the
    // finish wins that race, so those two are counted as at most what a dry queue costs — never
    // more.
    // The add and the finish are always there: at least 2 scripts.
    const EXACT = { xadd: 1, xread: 1 };
    const RANGE = { evalsha: [2, 4], bzpopmin: [0, 2] } as const;
    const within = (per: Map<string, number>) => {
      for (const [name, n] of Object.entries(EXACT)) expect(per.get(name) ?? 0, name).to.be.closeTo(n, 0.2);
      for (const [name, [lo, hi]] of Object.entries(RANGE)) expect(per.get(name) ?? 0, name).to.be.within(lo - 0.2, hi + 0.2);
      const total = [...per.values()].reduce((a, b) => a + b, 0);
      expect(total, 'all commands').to.be.at.most(8.3);
    };

    it('when redeems run one after another, then 8 Redis commands each', async () => {
      within(
        await perOperation(60, (i) =>
          call(own.url, 'POST', '/coupons/apply?type=redeem', {
            auth: ownApp.auth,
            body: { source_id: `r${(i % 2) + 1}`, coupon_details: [{ coupon_id: 'RT', coupon_code: 'RT' }], order: makeOrder() },
          }),
        ),
      );
    });

    it('when wallet credits run one after another, then 8 Redis commands each', async () => {
      within(
        await perOperation(60, (i) =>
          call(own.url, 'PUT', `/wallets/customer/r${(i % 2) + 1}/transactions/loyalty`, {
            auth: ownApp.auth,
            body: { type: 'credit', points: 1 },
          }),
        ),
      );
    });
  });
});
