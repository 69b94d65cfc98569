import { expect } from 'chai';
import { keySlot } from '../../scripts/redis-cluster.js';
import { partitionOf, partitionQueueName } from '../../shared/queue/names.js';
import { createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { createTestApplication } from '../support/context.js';
import { useClusterTopology } from '../support/cluster-topology.js';
import { assertMatchesSpec } from '../support/openapi.js';

/**
 * A Redis primary SIGKILLed in the middle of a burst of wallet credits and redeems through two API
 * processes and three workers. Clients behave as documented: a 503 names the operation's key and
 * they retry with `Idempotency-Key: <key>` until the answer is final. After the replica took over,
 * every acknowledged operation must be applied exactly once and nothing may be lost; every answer
 * meanwhile is a final one or a documented 503 — never another 5xx, never a hang.
 */
describe('Redis Cluster: a primary killed mid-burst', function () {
  this.timeout(180_000);
  const topology = useClusterTopology({
    apis: 2,
    workers: 3,
    env: {
      // A job whose lock lived on the dead primary is re-run soon after the failover (safe: idempotent).
      JOB_LOCK_MS: '4000',
      STALLED_INTERVAL_MS: '1000',
      JOB_WAIT_TIMEOUT_MS: '10000',
    },
  });

  it('when a primary dies during 300 operations, then every acknowledged one is applied exactly once, none is lost, and the rest are documented 503s until they are final', async () => {
    const t = topology();
    const { services } = t;
    const app = await createTestApplication(services);
    const sourceIds = Array.from({ length: 48 }, (_, i) => `fo-${i}`);
    const customers = await createCustomers(services, app.id, sourceIds);
    const wallet = await createWallet(services, app.id);
    const limit = 40;
    const campaign = await createCampaign(services, app.id, { code: 'FAILOVER40', limits: { total: limit } });

    // The victim: the primary serving the most partitions of the customers in the burst.
    const partitions = Number(t.env.QUEUE_PARTITIONS);
    const byPrimary = new Map<number, number>();
    for (const c of customers) {
      const slot = keySlot(partitionQueueName(partitionOf(`${app.id}:${c.id}`, partitions)));
      const port = (await t.cluster.primaryOf(slot)).port;
      byPrimary.set(port, (byPrimary.get(port) ?? 0) + 1);
    }
    const victimPort = [...byPrimary].sort((a, b) => b[1] - a[1])[0]![0];
    const victim = t.cluster.nodes.find((n) => n.port === victimPort)!;

    interface Op {
      i: number;
      kind: 'credit' | 'redeem';
      sourceId: string;
      method: 'PUT' | 'POST';
      path: string;
      body: unknown;
      key?: string;
      answers: { status: number; at: number; applied?: boolean }[];
      final?: { status: number; body: any };
      hung: boolean;
    }
    const ops: Op[] = Array.from({ length: 300 }, (_, i) => {
      const sourceId = sourceIds[i % sourceIds.length]!;
      return i % 3 === 2
        ? {
            i,
            kind: 'redeem' as const,
            sourceId,
            method: 'POST' as const,
            path: '/coupons/apply?type=redeem',
            body: { source_id: sourceId, coupon_details: [{ coupon_id: campaign.id, coupon_code: 'FAILOVER40' }], order: makeOrder() },
            answers: [],
            hung: false,
          }
        : {
            i,
            kind: 'credit' as const,
            sourceId,
            method: 'PUT' as const,
            path: `/wallets/customer/${sourceId}/transactions/loyalty`,
            body: { type: 'credit', points: (i % 5) + 1, description: `op-${i}` },
            answers: [],
            hung: false,
          };
    });
    const unexpected: string[] = [];
    const send = async (op: Op): Promise<void> => {
      const deadline = Date.now() + 90_000;
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        const api = t.apis[(op.i + attempt) % t.apis.length]!;
        const headers: Record<string, string> = { authorization: app.auth, 'content-type': 'application/json' };
        if (op.key) headers['idempotency-key'] = op.key;
        let res: Response;
        try {
          res = await fetch(`${api.url}${op.path}`, {
            method: op.method,
            headers,
            body: JSON.stringify(op.body),
            signal: AbortSignal.timeout(30_000),
          });
        } catch (err) {
          op.hung = true;
          unexpected.push(`op ${op.i}: ${(err as Error).name} ${(err as Error).message}`);
          return;
        }
        const body = (await res.json().catch(() => null)) as any;
        op.answers.push({ status: res.status, at: Date.now(), ...(res.status === 503 ? { applied: body?.applied } : {}) });
        if (res.status === 503) {
          const template = op.kind === 'credit' ? '/wallets/customer/{source_id}/transactions/{wallet_id}' : '/coupons/apply';
          try {
            assertMatchesSpec(op.method, template, 503, body);
            expect(body.idempotency_key).to.be.a('string');
            if (op.key) expect(body.idempotency_key).to.equal(op.key);
          } catch (err) {
            unexpected.push(`op ${op.i}: 503 ${(err as Error).message}`);
          }
          op.key = body.idempotency_key;
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        if (res.status !== 200 && !(op.kind === 'redeem' && res.status === 400))
          unexpected.push(`op ${op.i}: ${res.status} ${JSON.stringify(body)}`);
        op.final = { status: res.status, body };
        return;
      }
      unexpected.push(`op ${op.i}: no final answer in 90 s (${op.answers.map((a) => a.status).join(',')})`);
    };

    // 24 clients at a time; the primary is killed once a fifth of the operations are answered.
    let next = 0;
    let killedAt = 0;
    const clients = Array.from({ length: 24 }, async () => {
      while (next < ops.length) await send(ops[next++]!);
    });
    let healthyAt = 0;
    const killer = (async () => {
      while (ops.filter((o) => o.final).length < ops.length / 5) await new Promise((r) => setTimeout(r, 50));
      killedAt = Date.now();
      await t.cluster.kill(victim);
      await t.cluster.waitHealthy(30_000);
      healthyAt = Date.now();
    })();
    await Promise.all([...clients, killer]);
    const failoverMs = healthyAt - killedAt;

    // What was applied, per operation: ledger entries by description, journal cycles by order.
    const ledger = (
      await Promise.all(customers.map((c) => services.repos.walletTransactions.listForCustomer(app.id, c.id, wallet.id)))
    ).flat();
    const appliedCredits = new Map<string, number>();
    for (const e of ledger) if (e.state === 'applied') appliedCredits.set(e.description!, (appliedCredits.get(e.description!) ?? 0) + 1);
    const redemptions = await services.db.models.Redemption.find({ campaign: campaign.id }).lean();
    const appliedRedeems = new Map<string, number>();
    for (const r of redemptions as any[])
      if (r.state === 'completed') appliedRedeems.set(r.orderId, (appliedRedeems.get(r.orderId) ?? 0) + 1);
    const appliedOf = (op: Op) =>
      op.kind === 'credit' ? (appliedCredits.get(`op-${op.i}`) ?? 0) : (appliedRedeems.get((op.body as any).order.order_id) ?? 0);
    const acknowledged = ops.filter((o) => o.final && o.final.status === 200);
    const refused = ops.filter((o) => o.final && o.final.status === 400);
    const figures = {
      attempted: ops.length,
      acknowledged: acknowledged.length,
      refused: refused.length,
      answered503: ops.reduce((s, o) => s + o.answers.filter((a) => a.status === 503).length, 0),
      notApplied503: ops.reduce((s, o) => s + o.answers.filter((a) => a.status === 503 && a.applied === false).length, 0),
      opsWith503: ops.filter((o) => o.answers.some((a) => a.status === 503)).length,
      answeredAfterKill: ops.filter((o) => o.final && o.answers.at(-1)!.at > killedAt).length,
      first503AfterKillMs: Math.min(...ops.flatMap((o) => o.answers.filter((a) => a.status === 503).map((a) => a.at - killedAt))),
      last503AfterKillMs: Math.max(...ops.flatMap((o) => o.answers.filter((a) => a.status === 503).map((a) => a.at - killedAt))),
      applied: ops.filter((o) => appliedOf(o) === 1).length,
      appliedTwice: ops.filter((o) => appliedOf(o) > 1).length,
      lost: acknowledged.filter((o) => appliedOf(o) === 0).length,
      failoverMs,
    };
    console.log(`      failover figures: ${JSON.stringify(figures)}`);
    expect(unexpected, 'answers other than 200, a limit refusal or a documented 503').to.deep.equal([]);
    expect(figures.appliedTwice).to.equal(0);
    expect(figures.lost).to.equal(0);
    expect(figures.applied).to.equal(figures.acknowledged);
    expect(ops.every((o) => o.final)).to.equal(true);
    expect(acknowledged.filter((o) => o.kind === 'redeem')).to.have.length(limit);
    expect(await usageOf(services, app.id, campaign.id, 'total')).to.equal(limit);
    await t.expectNoCrossSlot();
    expect(Object.values(await t.unfinishedJobs()).reduce((a, b) => a + b, 0)).to.equal(0);
  });
});
