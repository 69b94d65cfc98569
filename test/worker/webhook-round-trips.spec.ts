import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import { createLogger } from '../../shared/logger.js';
import { toOutcome } from '../../shared/queue/outcome.js';
import { prepareApply } from '../../shared/usecases/apply/prepare-apply.usecase.js';
import { redeemCoupon } from '../../shared/usecases/apply/redeem-coupon.usecase.js';
import { revertCoupon } from '../../shared/usecases/apply/revert-coupon.usecase.js';
import type { Committed, JobRun } from '../../shared/usecases/job-run.js';
import { changesOf, type FinishedOperation } from '../../shared/usecases/events/change-facts.js';
import { applyWalletOperation, prepareWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { WebhookWorker } from '../../worker/webhook-worker.js';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import {
  call,
  createTestApplication,
  startTestApi,
  TEST_ADMIN_TOKEN,
  TEST_QUEUE_PREFIX,
  type TestApi,
  type TestApplication,
} from '../support/context.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';

/**
 * What events cost, pinned: database commands (driver command monitoring over a real API, worker
 * and delivery pool in this process, sharing the monitored connection) and BullMQ jobs added to
 * the webhook queue, for a cashback redeem (two events) and a wallet credit (one event) of an
 * application with one endpoint. Counted in two phases: the operation (API and partition job —
 * the delivery pool is off, so nothing else runs), then its deliveries (a delivery pool started
 * for them, until the receiver has them and the queue is idle). Caches are warm and never
 * re-checked during the test. docs/events.md has the before/after table.
 */
describe('webhook round trips per operation and per delivered event', function () {
  this.timeout(60_000);
  const IGNORED = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo', 'getMore']);
  const JOB_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children'] as const;
  let api: TestApi;
  let app: TestApplication;
  let receiver: WebhookReceiver;
  let secret: string;
  let couponId: string;
  let onceId: string;

  before(async () => {
    receiver = await new WebhookReceiver().up();
    api = await startTestApi({
      QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-wh-cost`,
      CACHE_CHECK_MS: '60000',
      // No delivery pool in the API's worker: the test runs one when it counts deliveries.
      WEBHOOK_CONCURRENCY: '0',
      WEBHOOK_SWEEP_MS: '3600000',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      // The results' tallies are written by a timer apart from any operation: a minute apart, and
      // flushed before each count, so that none is written among a count's commands.
      RESULTS_TALLY_MS: '60000',
    });
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['warm', 'cash', 'back', 'wallet', 'facts', 'once', 'twice']);
    await createWallet(api.services, app.id);
    couponId = (
      await createCampaign(api.services, app.id, {
        code: 'HOOKCB',
        limits: { total: 1000 },
        discount: { kind: 'cashback', type: 'flat', value: 500, maxCents: null, walletId: 'loyalty' },
      })
    ).id;
    const registered = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, {
      auth: `Bearer ${TEST_ADMIN_TOKEN}`,
      body: { url: receiver.url },
    });
    expect(registered.status, registered.text).to.equal(201);
    secret = registered.body.secret;
    onceId = (await createCampaign(api.services, app.id, { code: 'ONCE', limits: { total: 1 } })).id;
    // Warm every cache on both sides (credentials, campaigns, wallets, endpoints, customers' source ids).
    expect((await redeem('warm')).status).to.equal(200);
    for (const sourceId of ['warm', 'cash', 'back', 'wallet', 'once', 'twice']) expect((await credit(sourceId)).status).to.equal(200);
    expect((await redeem('once', 'ONCE', onceId)).status).to.equal(200);
    await deliverAll(9);
  });
  after(async () => {
    await api?.webhooks.queue.obliterate({ force: true });
    await api?.close();
    await receiver?.close();
  });

  const redeem = (sourceId: string, code = 'HOOKCB', id = couponId, order: object = makeOrder(), type = 'redeem') =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, {
      auth: app.auth,
      body: { source_id: sourceId, coupon_details: [{ coupon_id: id, coupon_code: code }], order },
    });
  const credit = (sourceId: string) =>
    call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points: 5 } });

  /** The database commands sent while `run` runs, by name and collection, sorted (some run in parallel). */
  async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
    const client = api.services.db.connection.getClient();
    const seen: string[] = [];
    const onStart = (e: CommandStartedEvent) => {
      if (!IGNORED.has(e.commandName)) seen.push(`${e.commandName}:${String(e.command[e.commandName])}`);
    };
    await api.services.tally.flush();
    client.on('commandStarted', onStart);
    try {
      await run();
    } finally {
      client.off('commandStarted', onStart);
    }
    return seen.sort();
  }

  /** Every job of the webhook queue, by id. */
  const webhookJobs = async () =>
    new Map((await api.webhooks.queue.getJobs([...JOB_STATES], 0, -1)).map((j) => [j.id!, { name: j.name, data: j.data }]));

  /** The names of the webhook jobs added while `run` runs, sorted, and the commands it sent. */
  async function costOf(run: () => Promise<unknown>) {
    const before = await webhookJobs();
    const commands = await commandsOf(run);
    const added = [...(await webhookJobs()).entries()].filter(([id]) => !before.has(id)).map(([, j]) => j);
    return { commands, jobs: added.map((j) => j.name).sort(), added };
  }

  /** Runs a delivery pool (one job at a time) until `n` more events were accepted and the queue is idle. */
  async function deliverAll(n: number) {
    const total = receiver.accepted.length + n;
    // The pool starts on a paused queue (its start reads the database), then the count begins.
    await api.webhooks.queue.pause();
    const worker = new WebhookWorker(
      { ...api.services.config, webhookConcurrency: 1 },
      createLogger(api.services.config, 'test-deliveries'),
      api.services,
      api.webhooks,
    );
    await worker.start();
    try {
      return await costOf(async () => {
        await api.webhooks.queue.resume();
        await waitFor(`${total} events accepted`, () => receiver.accepted.length >= total, 20_000, 10);
        await waitFor(
          'the webhook queue idle',
          async () =>
            Object.values(await api.webhooks.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((n) => n === 0),
          20_000,
          10,
        );
      });
    } finally {
      await worker.close();
      expect(receiver.accepted).to.have.length(total);
      expect(receiver.allSigned(secret), 'every delivery is signed').to.equal(true);
    }
  }

  const report = <C extends { commands: string[]; jobs: string[] }>(name: string, cost: C): C => {
    if (process.env.ROUND_TRIPS_PRINT)
      process.stdout.write(
        `      ${name}: ${cost.commands.length} commands ${JSON.stringify(cost.commands)}, jobs ${JSON.stringify(cost.jobs)}\n`,
      );
    return cost;
  };

  // A cashback redeem of a customer with a balance this worker moved last (not read again:
  // docs/architecture.md "What a process remembers of a balance"), as in test/worker/round-trips.spec.ts.
  const REDEEM = [
    'find:customers',
    'update:limit_counters',
    'update:redemptions',
    'insert:wallet_transactions',
    'update:wallet_balances',
    'update:limit_counters',
  ];
  // The cashback revert: the cycles, the counter and the results counter given back (one command each),
  // commit, the credit read and its debit (after a void attempt; the balance remembered, not read).
  const REVERT = [
    'find:customers',
    'find:redemptions',
    'update:limit_counters',
    'update:limit_counters',
    'update:redemptions',
    'insert:wallet_transactions',
    'find:wallet_transactions',
    'insert:wallet_transactions',
    'update:wallet_balances',
    'update:limit_counters',
  ];
  // A redeem refused by the total limit (the counter refuses, the results counter taken with it is given
  // back; the cycles and counters are read for the answer).
  const REFUSED = [
    'find:customers',
    'update:limit_counters',
    'update:limit_counters',
    'find:redemptions',
    'find:limit_counters',
    'update:redemptions',
  ];
  const CREDIT = ['find:customers', 'insert:wallet_transactions', 'update:wallet_balances'];

  // Per operation: its deliveries written, its events written (numbered in Redis); one delivery job.
  const RECORDING = ['insert:webhook_deliveries', 'insert:events'];
  // Per delivery job: the stream's pending deliveries (ordering and state), the outcomes.
  const DELIVERY = ['find:webhook_deliveries', 'update:webhook_deliveries'];

  it('when a cashback coupon is redeemed (two events), then 2 more commands and one delivery job; its deliveries take 2 commands', async () => {
    const op = report('redeem (cashback, one endpoint)', await costOf(() => redeem('cash')));
    expect(op.commands).to.deep.equal([...REDEEM, ...RECORDING].sort());
    expect(op.jobs).to.deep.equal(['deliver-webhook']);
    expect(op.added[0]!.data.run.items.map((i: { eventType: string }) => i.eventType)).to.deep.equal([
      'redemption.completed',
      'wallet.transaction.completed',
    ]);
    const delivered = report('  its deliveries (2 events, one job)', await deliverAll(2));
    expect(delivered.commands).to.deep.equal(DELIVERY);
    expect(delivered.jobs).to.deep.equal([]);
    expect(receiver.accepted.slice(-2).map((r) => r.json.type)).to.deep.equal(['redemption.completed', 'wallet.transaction.completed']);
  });

  it('when a cashback redemption is reverted (two events), then 2 more commands and one delivery job; its deliveries take 2 commands', async () => {
    const order = makeOrder();
    expect((await redeem('back', 'HOOKCB', couponId, order)).status).to.equal(200);
    await deliverAll(2);
    const op = report('revert (cashback, one endpoint)', await costOf(() => redeem('back', 'HOOKCB', couponId, order, 'revert')));
    expect(op.commands).to.deep.equal([...REVERT, ...RECORDING].sort());
    expect(op.jobs).to.deep.equal(['deliver-webhook']);
    const delivered = report('  its deliveries (2 events, one job)', await deliverAll(2));
    expect(delivered.commands).to.deep.equal(DELIVERY);
    expect(receiver.accepted.slice(-2).map((r) => r.json.type)).to.deep.equal(['redemption.reverted', 'wallet.transaction.completed']);
  });

  it('when a redeem is refused (one event, keyed by its job), then the outbox is read first: 4 more commands, one delivery job', async () => {
    const op = report('refused redeem (one endpoint)', await costOf(() => redeem('twice', 'ONCE', onceId)));
    expect(op.commands).to.deep.equal([...REFUSED, 'find:events', 'find:webhook_deliveries', ...RECORDING].sort());
    expect(op.jobs).to.deep.equal(['deliver-webhook']);
    const delivered = report('  its delivery (1 event)', await deliverAll(1));
    expect(delivered.commands).to.deep.equal(DELIVERY);
    expect(receiver.accepted.at(-1)!.json.type).to.equal('redemption.refused');
  });

  it('when a wallet is credited (one event), then 2 more commands and one delivery job; its delivery takes 2 commands', async () => {
    const op = report('wallet credit (one endpoint)', await costOf(() => credit('wallet')));
    expect(op.commands).to.deep.equal([...CREDIT, ...RECORDING].sort());
    expect(op.jobs).to.deep.equal(['deliver-webhook']);
    const delivered = report('  its delivery (1 event)', await deliverAll(1));
    expect(delivered.commands).to.deep.equal(DELIVERY);
    expect(delivered.jobs).to.deep.equal([]);
  });

  it('when a cashback redeem, its revert and a wallet credit say what they committed, then their events are those the journals give', async () => {
    const services = api.services;
    const application = (await services.applications.get(app.id))!;
    const body = { source_id: 'facts', coupon_details: [{ coupon_id: couponId, coupon_code: 'HOOKCB' }], order: makeOrder() };
    /** Runs a use case as job `jobId`, then reads its changes with and without what it said it committed. */
    const both = async (
      op: Pick<FinishedOperation, 'name' | 'input'>,
      jobId: string,
      exec: (run: JobRun) => Promise<unknown>,
    ): Promise<{ told: Awaited<ReturnType<typeof changesOf>>; read: Awaited<ReturnType<typeof changesOf>> }> => {
      const observed: Committed[] = [];
      const outcome = await toOutcome(() => exec({ jobId, lane: 'facts-test', observe: (c) => observed.push(c) }));
      expect(outcome.ok, JSON.stringify(outcome)).to.equal(true);
      const finished = { ...op, jobId, outcome } as FinishedOperation;
      return { told: await changesOf(services, { ...finished, observed }), read: await changesOf(services, finished) };
    };

    const redeemed = await prepareApply(services, application, { type: 'redeem', body, requestId: 'req-facts-1' });
    const redeemInput = redeemed.input as Parameters<typeof redeemCoupon>[1];
    const redeem = await both({ name: 'redeem', input: redeemInput }, 'job-facts-redeem', (run) =>
      redeemCoupon(services, redeemInput, run),
    );
    expect(redeem.told.facts.map((f) => f.type)).to.deep.equal(['redemption.completed', 'wallet.transaction.completed']);
    expect(redeem.told).to.deep.equal({ ...redeem.read, fresh: true });
    expect(redeem.read.fresh).to.equal(false);
    // A re-run of the job finds its cycle and returns early: it says nothing, and its changes are read.
    const again = await both({ name: 'redeem', input: redeemInput }, 'job-facts-redeem', (run) => redeemCoupon(services, redeemInput, run));
    expect(again.told).to.deep.equal(redeem.read);

    const reverted = await prepareApply(services, application, { type: 'revert', body, requestId: 'req-facts-2' });
    const revert = await both({ name: 'revert', input: reverted.input }, 'job-facts-revert', (run) =>
      revertCoupon(services, reverted.input, run),
    );
    expect(revert.told.facts.map((f) => f.type)).to.deep.equal(['redemption.reverted', 'wallet.transaction.completed']);
    expect(revert.told.facts[1]!.data).to.include({ type: 'debit', origin: 'cashback_revert', points: 5, loyalty_points: 0 });
    expect(revert.told).to.deep.equal({ ...revert.read, fresh: true });

    const credited = await prepareWalletOperation(services, {
      applicationId: app.id,
      sourceId: 'facts',
      walletId: 'loyalty',
      body: { type: 'credit', points: 2.5 },
      txnId: 'txn-facts-1',
      requestId: 'req-facts-3',
    });
    const wallet = await both({ name: 'wallet-transaction', input: credited }, 'job-facts-credit', (run) =>
      applyWalletOperation(services, credited, run),
    );
    expect(wallet.told).to.deep.equal({ ...wallet.read, fresh: true });
    // A replay of the key finds the entry written: not fresh (the outbox is read first).
    const replay = await both({ name: 'wallet-transaction', input: credited }, 'job-facts-credit', (run) =>
      applyWalletOperation(services, credited, run),
    );
    expect(replay.told).to.deep.equal(wallet.read);
  });
});
