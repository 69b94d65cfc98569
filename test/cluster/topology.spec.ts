import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { JobAnswer } from '../../shared/queue/gateway.js';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { keySlot } from '../../scripts/redis-cluster.js';
import { BACKTEST_QUEUE, JOB, WEBHOOK_QUEUE, partitionOf, partitionQueueName, queueOptions } from '../../shared/queue/names.js';
import { redisConnection } from '../../shared/queue/redis.js';
import { prepareWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { createBulkCodes, createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { TEST_ADMIN_TOKEN, call, createTestApplication, startTestApi, type TestApplication } from '../support/context.js';
import { useClusterTopology } from '../support/cluster-topology.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';
import { PACE_MARGIN, timeoutFromNow } from '../support/pace.js';
import { nodeArgsFor } from '../../scripts/service-build.js';

const run = promisify(execFile);
const METRICS_TOKEN = 'cluster-metrics-token-0123456789';
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/**
 * The service on a Redis Cluster (3 primaries + 3 replicas, scripts/redis-cluster.ts): two API
 * processes and three worker processes with `REDIS_URL=redis+cluster://…` and 16 partitions, the
 * concurrency tests (limits exact under races, FIFO per customer, wallet races), a worker SIGKILL,
 * every Redis surface (Bull Board, metrics, the webhook queue, the CLI, the gateway's withdraw
 * script), and a change of the partition count mid-burst. Each test ends by checking that no node
 * answered CROSSSLOT and no service logged it. The failover of a primary is in failover.spec.ts.
 */
describe('Redis Cluster: 2 API and 3 worker processes, 16 partitions', function () {
  this.timeout(120_000);
  const topology = useClusterTopology({
    apis: 2,
    workers: 3,
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      METRICS_TOKEN,
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      // A SIGKILLed worker's job is re-run within seconds (safe: idempotent processors).
      JOB_LOCK_MS: '4000',
      STALLED_INTERVAL_MS: '1000',
      JOB_WAIT_TIMEOUT_MS: '60000',
    },
  });
  let app: TestApplication;
  let customers: string[];
  afterEach(async () => {
    await topology().expectNoCrossSlot();
  });
  beforeEach(async () => {
    app = await createTestApplication(topology().services);
    customers = Array.from({ length: 40 }, (_, i) => `cust-${i}`);
    await createCustomers(topology().services, app.id, customers);
  });

  /** Request `i` goes to API `i % 2`: both APIs take part in every burst. */
  const api = (i: number) => topology().apis[i % topology().apis.length]!.url;
  /**
   * A storefront's request as the contract advises, sent again until its answer is final: after a
   * 503 naming the operation's key, with that key once its Retry-After has passed (queued, not
   * answered within the API's wait: a busy machine); and at once when the connection was cut
   * without an answer (an idle keep-alive connection the API closed just as this machine's loaded
   * client reused it: nothing answered, so nothing is known). A wallet operation carries a key of
   * its own from the start, so that it can be sent again safely (docs/decisions.md#24); a redeem
   * needs none, being idempotent per order (#17: the same order answers the same result, counted
   * once). What is asserted is the final answer: exact limits and balances do not depend on how fast
   * this machine is today.
   */
  const untilFinal = async (i: number, method: string, path: string, body: unknown, keyed: boolean) => {
    const headers: Record<string, string> = keyed ? { 'idempotency-key': `topology-${randomUUID()}` } : {};
    for (let cut = 0; ;) {
      let res: Awaited<ReturnType<typeof call>>;
      try {
        res = await call(api(i), method, path, { auth: app.auth, body, headers });
      } catch (err) {
        // A cut connection is retried a few times; an API that is gone fails the test.
        if ((err as Error).message === 'fetch failed' && ++cut < 5) continue;
        throw err;
      }
      if (res.status !== 503 || typeof res.body?.idempotency_key !== 'string') return res;
      headers['idempotency-key'] = res.body.idempotency_key as string;
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
    }
  };
  const redeem = (i: number, sourceId: string, code: string, order = makeOrder()) =>
    untilFinal(
      i,
      'POST',
      '/coupons/apply?type=redeem',
      {
        source_id: sourceId,
        coupon_details: [{ coupon_id: code, coupon_code: code }],
        order,
      },
      false,
    );
  const walletUpdate = (i: number, sourceId: string, body: Record<string, unknown>) =>
    untilFinal(i, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, body, true);

  it('when the queues are on a cluster, then every key of a queue shares its slot and the 16 partitions spread over the 3 primaries', async () => {
    const t = topology();
    const connection = redisConnection(t.cluster.url);
    const perPrimary = new Map<number, string[]>();
    try {
      for (const name of [...Array.from({ length: 16 }, (_, p) => partitionQueueName(p)), WEBHOOK_QUEUE]) {
        const queue = new Queue(name, queueOptions(t.services.config, connection));
        // Every key BullMQ builds for the queue (wait, paused, active, meta, events, marker, …) and
        // a job's keys: one slot, computed by the cluster itself.
        const keys = [...Object.values(queue.keys), queue.toKey('op-123'), `${queue.toKey('op-123')}:lock`];
        const slots = new Set(await Promise.all(keys.map((k) => t.cluster.keyslot(k))));
        expect([...slots], name).to.deep.equal([keySlot(queue.keys.wait!)]);
        const primary = (await t.cluster.primaryOf([...slots][0]!)).port;
        perPrimary.set(primary, [...(perPrimary.get(primary) ?? []), name]);
        await queue.close();
      }
    } finally {
      connection.disconnect();
    }
    expect(perPrimary.size).to.equal(3);
  });

  it('when 200 redeems through both APIs race for a total limit of 25, then exactly 25 complete and the counter says 25', async () => {
    const t = topology();
    const campaign = await createCampaign(t.services, app.id, { code: 'TOTAL25', limits: { total: 25 } });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => redeem(i, customers[i % customers.length]!, 'TOTAL25')));
    for (const r of results) expect([200, 400], JSON.stringify(r.body)).to.include(r.status);
    expect(results.filter((r) => r.status === 200)).to.have.length(25);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body).to.include({ message: 'coupon validation failed', details: 'coupon code redemption total_limit exceeded' });
    expect(await usageOf(t.services, app.id, campaign.id, 'total')).to.equal(25);
  });

  it('when one customer races 60 orders through both APIs against a per-customer limit of 3, and 40 customers race for one single-use code, then exactly 3 and 1 complete', async () => {
    const t = topology();
    const perUser = await createCampaign(t.services, app.id, { code: 'PERUSER3', limits: { perCustomer: 3 } });
    const bulk = await createCampaign(t.services, app.id, { codeType: 'bulk', code: undefined, bulkCodeUsageLimit: 1 });
    await createBulkCodes(t.services, app.id, bulk.id, ['ONE-SHOT-1']);
    const [mine, shared] = await Promise.all([
      Promise.all(Array.from({ length: 60 }, (_, i) => redeem(i, 'cust-1', 'PERUSER3'))),
      Promise.all(Array.from({ length: 40 }, (_, i) => redeem(i, customers[i]!, 'ONE-SHOT-1'))),
    ]);
    expect(mine.filter((r) => r.status === 200)).to.have.length(3);
    expect(mine.filter((r) => r.status === 400).map((r) => r.body.details)).to.deep.equal(
      Array(57).fill('coupon code redemption per_user_limit exceeded'),
    );
    expect(
      await usageOf(t.services, app.id, perUser.id, `customer:${(await t.services.repos.customers.resolve(app.id, 'cust-1'))!.id}`),
    ).to.equal(3);
    expect(shared.filter((r) => r.status === 200)).to.have.length(1);
  });

  it("when a customer's operations are queued in order on the cluster, then the three workers apply them one at a time in that order", async () => {
    const t = topology();
    // An in-process gateway (this test's API) issues the adds in a known order on one connection.
    const gateway = await startTestApi({ ...t.env, LOG_LEVEL: 'silent' }, { inProcessWorker: false });
    try {
      const six = await createCustomers(t.services, app.id, ['a', 'b', 'c', 'd', 'e', 'f']);
      const wallet = await createWallet(t.services, app.id);
      const runs: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        for (const c of six) {
          const input = await prepareWalletOperation(t.services, {
            applicationId: app.id,
            sourceId: c.sourceId,
            walletId: 'loyalty',
            body: { type: 'credit', points: 1, description: String(i) },
            txnId: `fifo-${c.id}-${i}`,
            requestId: `r-${i}`,
          });
          runs.push(
            gateway.jobs.queueAndWait(
              { name: JOB.walletTransaction, customerId: c.id, payload: input },
              { applicationId: app.id, operationKey: input.txnId, fresh: true },
            ),
          );
        }
      }
      const answers = (await Promise.all(runs)) as JobAnswer[];
      expect(answers.every((a) => a.answered && a.outcome.ok)).to.equal(true);
      for (const c of six) {
        const ledger = await t.services.repos.walletTransactions.listForCustomer(app.id, c.id, wallet.id);
        const bySeq = [...ledger].sort((x, y) => x.seq! - y.seq!);
        expect(bySeq.map((e) => e.description)).to.deep.equal(Array.from({ length: 20 }, (_, i) => String(i)));
      }
    } finally {
      await gateway.close();
    }
  });

  it('when 40 debits of 7 points race through both APIs against balances of 100, then exactly 14 per customer apply and balances equal their ledgers', async () => {
    const t = topology();
    const wallet = await createWallet(t.services, app.id);
    const four = customers.slice(0, 4);
    for (const [i, c] of four.entries()) expect((await walletUpdate(i, c, { type: 'credit', points: 100 })).status).to.equal(200);
    const results = await Promise.all(
      Array.from({ length: 160 }, (_, i) =>
        walletUpdate(i, four[i % 4]!, { type: 'debit', points: 7 }).then((r) => ({ c: four[i % 4]!, r })),
      ),
    );
    for (const c of four) {
      const mine = results.filter((x) => x.c === c).map((x) => x.r);
      expect(mine.filter((r) => r.status === 200)).to.have.length(14);
      for (const r of mine.filter((x) => x.status !== 200)) expect([r.status, r.body.message]).to.deep.equal([400, 'insufficient points']);
      const read = await call(api(0), 'GET', `/wallets/customer/${c}`, { auth: app.auth });
      expect(read.body[0].loyalty_points).to.equal(2);
      const customer = (await t.services.repos.customers.resolve(app.id, c))!;
      expect(await t.services.repos.walletTransactions.sumApplied(app.id, customer.id, wallet.id)).to.equal(200);
    }
  });

  it('when one of the three workers is SIGKILLed mid-burst, then balances and counters match the accepted responses exactly, and a new worker joins', async () => {
    const t = topology();
    const wallet = await createWallet(t.services, app.id);
    const campaign = await createCampaign(t.services, app.id, { code: 'CRASH30', limits: { total: 30 } });
    const sourceIds = customers.slice(0, 12);
    const credits = Array.from({ length: 150 }, (_, i) => walletUpdate(i, sourceIds[i % 12]!, { type: 'credit', points: (i % 5) + 1 }));
    const redeems = Array.from({ length: 90 }, (_, i) => redeem(i, sourceIds[i % 12]!, 'CRASH30'));
    await new Promise((r) => setTimeout(r, 300));
    const victim = t.workers[0]!;
    await victim.kill();
    const replacement = t.startWorker();
    const creditResults = await Promise.all(credits);
    const redeemResults = await Promise.all(redeems);
    await replacement;
    for (const r of [...creditResults, ...redeemResults]) expect([200, 400], JSON.stringify(r.body)).to.include(r.status);
    expect(creditResults.every((r) => r.status === 200)).to.equal(true);
    for (const sourceId of sourceIds) {
      const accepted = creditResults.filter((_, i) => sourceIds[i % 12] === sourceId).reduce((s, r) => s + r.body.points, 0);
      const read = await call(api(1), 'GET', `/wallets/customer/${sourceId}`, { auth: app.auth });
      expect(read.body[0].loyalty_points, sourceId).to.equal(accepted);
      const customer = (await t.services.repos.customers.resolve(app.id, sourceId))!;
      expect((await t.services.repos.walletTransactions.sumApplied(app.id, customer.id, wallet.id)) / 100).to.equal(accepted);
    }
    expect(redeemResults.filter((r) => r.status === 200)).to.have.length(30);
    expect(await usageOf(t.services, app.id, campaign.id, 'total')).to.equal(30);
  });

  it('when Bull Board, readiness, metrics, a webhook and the CLI are used on the cluster, then each works: every queue listed with its counts, Redis up, depth per queue, a delivery through webhooks-{wh}, a redelivery queued by the CLI', async () => {
    const t = topology();
    const receiver = await new WebhookReceiver().up();
    try {
      await createWallet(t.services, app.id);
      const hook = await call(api(0), 'POST', `/admin/applications/${app.id}/webhooks`, {
        headers: ADMIN,
        body: { url: receiver.url, event_types: ['wallet.transaction.completed'] },
      });
      expect(hook.status, hook.text).to.equal(201);
      await new Promise((r) => setTimeout(r, 400)); // the workers' caches see the endpoint
      expect((await walletUpdate(0, 'cust-3', { type: 'credit', points: 5 })).status).to.equal(200);
      await waitFor('the first delivery', () => receiver.accepted.length === 1);
      expect(receiver.accepted[0]!.json.type).to.equal('wallet.transaction.completed');

      // The CLI, through one of the cluster's APIs, queues a redelivery.
      const env = { ...process.env, COUPONS_URL: api(0), COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN, MONGODB_URI: '' };
      const cli = async (...args: string[]) =>
        JSON.parse((await run('node', [...nodeArgsFor('scripts/admin.ts'), ...args], { env })).stdout);
      const [event] = (await cli('list-events', '--app', app.id)).events;
      expect(await cli('redeliver', '--app', app.id, '--webhook', hook.body.id, '--event', event.id)).to.deep.equal({ queued: 1 });
      await waitFor('the redelivery', () => receiver.accepted.length === 2);
      expect(receiver.accepted[1]!.json.id).to.equal(event.id);

      // Bull Board lists all 17 queues with their counts, and the cluster's Redis statistics. The
      // receiver has both deliveries; the worker marks the second job completed a moment after
      // the receiver's answer (read at once, the board may still count 1 completed).
      const readBoard = () => call(api(1), 'GET', '/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10', { headers: ADMIN });
      const hooksOf = (b: Awaited<ReturnType<typeof readBoard>>) => b.body.queues.find((q: { name: string }) => q.name === WEBHOOK_QUEUE);
      let board = await readBoard();
      await waitFor('both delivery jobs completed', async () => hooksOf((board = await readBoard()))?.counts.completed >= 2);
      expect(board.status, board.text).to.equal(200);
      const names = board.body.queues.map((q: { name: string }) => q.name).sort();
      expect(names).to.deep.equal([...Array.from({ length: 16 }, (_, p) => partitionQueueName(p)), WEBHOOK_QUEUE, BACKTEST_QUEUE].sort());
      expect(hooksOf(board).counts.completed).to.be.at.least(2); // the delivery (fanned out by the recording job), the redelivery
      const stats = await call(api(1), 'GET', '/admin/queues/api/redis/stats', { headers: ADMIN });
      expect(stats.status, stats.text).to.equal(200);
      expect(stats.body).to.include({ mode: 'cluster' });

      // Readiness pings the cluster.
      for (const i of [0, 1])
        expect((await call(api(i), 'GET', '/readyz')).body).to.deep.equal({ status: 'ready', mongodb: 'up', redis: 'up' });

      // Metrics: the depth of every queue, read from the cluster.
      const metrics = await call(api(0), 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(metrics.status).to.equal(200);
      const waiting = metrics.text
        .split('\n')
        .filter((l) => l.startsWith('coupons_queue_jobs{') && l.includes('state="waiting"'))
        .map((l) => /queue="([^"]+)"/.exec(l)![1])
        .sort();
      expect(waiting).to.deep.equal(names);
    } finally {
      await receiver.close();
    }
  });

  it('when the partition count changes from 4 to 8 mid-burst (new API and workers with 8 and previous 4, the old ones stopped), then every operation is applied exactly once, counters are exact and no job is left', async () => {
    const t = topology();
    const wallet = await createWallet(t.services, app.id);
    const campaign = await createCampaign(t.services, app.id, { code: 'ROLL30', limits: { total: 30, perCustomer: 2 } });
    // Its own queue prefix: the topology's 16-partition workers never see these queues.
    const prefix = `${t.env.QUEUE_PREFIX}-roll`;
    const before = { QUEUE_PREFIX: prefix, QUEUE_PARTITIONS: '4' };
    const after = { QUEUE_PREFIX: prefix, QUEUE_PARTITIONS: '8', QUEUE_PARTITIONS_PREVIOUS: '4' };
    const startedAt = Date.now();
    const [oldApi, oldWorker] = await Promise.all([t.startApi(before), t.startWorker(before)]);
    // What is left, from what starting a generation took on this machine now: another generation
    // started and one stopped, 3 s of load, the audit (about as long as a start) — with the margin.
    timeoutFromNow(PACE_MARGIN * (3 * (Date.now() - startedAt) + 3000));
    let target = oldApi.url;
    interface Op {
      kind: 'credit' | 'redeem';
      sourceId: string;
      tag: string;
      res?: { status: number; body: any };
    }
    const ops: Op[] = [];
    let stop = false;
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const n = ops.length;
        const sourceId = customers[(c * 7 + i) % 24]!;
        const op: Op = n % 3 === 2 ? { kind: 'redeem', sourceId, tag: `roll-order-${n}` } : { kind: 'credit', sourceId, tag: `roll-${n}` };
        ops.push(op);
        const res =
          op.kind === 'credit'
            ? await call(target, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, {
                auth: app.auth,
                body: { type: 'credit', points: 1, description: op.tag },
              })
            : await call(target, 'POST', '/coupons/apply?type=redeem', {
                auth: app.auth,
                body: {
                  source_id: sourceId,
                  coupon_details: [{ coupon_id: campaign.id, coupon_code: 'ROLL30' }],
                  order: makeOrder({ order_id: op.tag }),
                },
              });
        op.res = { status: res.status, body: res.body };
      }
    };
    // 4 clients, each waiting for its answer before the next: a steady load that leaves the new
    // generation CPU to start with (12 saturate both cores: a starting process can then print
    // nothing for over a minute, past the bound measured on an idle machine).
    const clients = Array.from({ length: 4 }, (_, c) => client(c));
    // Mid-burst: the new generation starts, takes the traffic, and the old one is stopped (drained).
    await new Promise((r) => setTimeout(r, 1500));
    const switchStarted = Date.now();
    const [newApi] = await Promise.all([t.startApi(after), t.startWorker(after), t.startWorker(after)]);
    // What is left, from what starting a generation took under this load: a stop, 1.5 s more of
    // load, the audit (about as long as a start) — with the margin.
    timeoutFromNow(PACE_MARGIN * (2 * (Date.now() - switchStarted) + 3000));
    const switchedAt = ops.length;
    target = newApi.url;
    expect(await t.stopProcess(oldApi.proc)).to.equal(0);
    expect(await t.stopProcess(oldWorker)).to.equal(0);
    await new Promise((r) => setTimeout(r, 1500));
    stop = true;
    await Promise.all(clients);

    expect(switchedAt, 'operations sent before the switch').to.be.above(20);
    expect(ops.length - switchedAt, 'operations sent after the switch').to.be.above(20);
    const other = ops.filter((o) => !(o.res!.status === 200 || (o.kind === 'redeem' && o.res!.status === 400)));
    expect(
      other.map((o) => o.res),
      'answers other than 200 or a limit refusal',
    ).to.deep.equal([]);
    // Exactly once: one applied ledger entry per acknowledged credit, one completed cycle per acknowledged redeem.
    const ledger = (
      await Promise.all(
        customers.slice(0, 24).map(async (s) => {
          const c = (await t.services.repos.customers.resolve(app.id, s))!;
          return t.services.repos.walletTransactions.listForCustomer(app.id, c.id, wallet.id);
        }),
      )
    ).flat();
    const credits = ops.filter((o) => o.kind === 'credit');
    const applied = new Map<string, number>();
    for (const e of ledger) if (e.state === 'applied') applied.set(e.description, (applied.get(e.description) ?? 0) + 1);
    expect(credits.filter((o) => applied.get(o.tag) !== 1).map((o) => o.tag)).to.deep.equal([]);
    expect(ledger).to.have.length(credits.length);
    const cycles = await t.services.db.models.Redemption.find({ campaign: campaign.id, state: 'completed' }).lean();
    const redeemed = ops.filter((o) => o.kind === 'redeem' && o.res!.status === 200).map((o) => o.tag);
    expect(cycles.map((c) => c.orderId).sort()).to.deep.equal(redeemed.sort());
    expect(await usageOf(t.services, app.id, campaign.id, 'total')).to.equal(redeemed.length);
    expect(redeemed.length).to.be.at.most(30);
    // Both generations ran jobs (lanes p4_NN and p8_NN), and nothing is left in any queue.
    const lanes = new Set<string>();
    const connection = redisConnection(t.cluster.url);
    try {
      for (let p = 0; p < 8; p++) {
        const queue = new Queue(partitionQueueName(p), queueOptions({ ...t.services.config, queuePrefix: prefix }, connection));
        for (const job of await queue.getJobs(['completed'])) lanes.add(String(job.data.lane).split('_')[0]!);
        await queue.close();
      }
    } finally {
      connection.disconnect();
    }
    expect([...lanes].sort()).to.deep.equal(['p4', 'p8']);
    expect(Object.values(await t.unfinishedJobs(8, prefix)).every((n) => n === 0)).to.equal(true);
  });

  it('when a queued operation waits past the timeout with no worker to take it, then the gateway withdraws it on the cluster: 503 applied false, and the job is gone', async () => {
    const t = topology();
    // Another queue prefix: no worker consumes it.
    const lonely = await startTestApi(
      { ...t.env, LOG_LEVEL: 'silent', QUEUE_PREFIX: `${t.env.QUEUE_PREFIX}-lonely`, JOB_WAIT_TIMEOUT_MS: '500' },
      { inProcessWorker: false },
    );
    try {
      await createWallet(t.services, app.id);
      const res = await call(lonely.url, 'PUT', '/wallets/customer/cust-5/transactions/loyalty', {
        auth: app.auth,
        body: { type: 'credit', points: 1 },
      });
      expect(res.status).to.equal(503);
      expect(res.body).to.include({ applied: false, idempotency_key: res.headers.get('idempotency-key') });
      const customer = (await t.services.repos.customers.resolve(app.id, 'cust-5'))!;
      const queue = lonely.jobs.partitionQueues[partitionOf(`${app.id}:${customer.id}`, 16)]!;
      expect(await queue.getJobCounts('waiting', 'active', 'completed')).to.deep.equal({ waiting: 0, active: 0, completed: 0 });
    } finally {
      await lonely.close();
    }
  });
});
