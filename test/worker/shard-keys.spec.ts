import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import { Types } from 'mongoose';
import { SHARDED, UNSHARDED, plannedScatter, targetsShardKey, type ShardKey } from '../../shared/data/shard-keys.js';
import { createBulkCodes, createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, testDatabase, useTestApi } from '../support/context.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';

type Filter = Record<string, unknown>;
const TEST_QUERY = 'shard-keys.spec';

/** The filters (or inserted documents) of a data command, with its collection; null for other commands. */
function filtersOf(e: CommandStartedEvent): { collection: string; filters: Filter[] } | null {
  const c = e.command;
  const collection = String(c[e.commandName]);
  switch (e.commandName) {
    case 'find':
    case 'count':
    case 'distinct':
      return { collection, filters: [(c.filter ?? c.query ?? {}) as Filter] };
    case 'findAndModify':
      return { collection, filters: [(c.query ?? {}) as Filter] };
    case 'update':
      return { collection, filters: (c.updates as { q: Filter }[]).map((u) => u.q) };
    case 'delete':
      return { collection, filters: (c.deletes as { q: Filter }[]).map((d) => d.q) };
    case 'insert':
      return { collection, filters: c.documents as Filter[] };
    case 'aggregate': {
      const first = (c.pipeline as Filter[])[0];
      return { collection, filters: [(first?.$match ?? {}) as Filter] };
    }
    default:
      return null; // getMore, killCursors, hello, createIndexes…: no filter to route
  }
}

describe('the MongoDB sharding plan (shared/data/shard-keys.ts)', function () {
  this.timeout(60_000);

  describe('the targeting check', () => {
    const byCustomer: ShardKey = { application: 1, customer: 1 };
    const hashedId: ShardKey = { _id: 'hashed' };
    const rangedId: ShardKey = { _id: 1 };
    const app = new Types.ObjectId();
    const cases: [string, ShardKey, Filter, boolean][] = [
      ['both fields by equality', byCustomer, { application: app, customer: app, wallet: app }, true],
      ['only the first field (a prefix: every shard of the application)', byCustomer, { application: app, txnId: 'x' }, false],
      ['a list of values', byCustomer, { application: app, customer: { $in: [app, app] } }, true],
      ['a range on a field', byCustomer, { application: app, customer: { $gt: app } }, false],
      ['fields inside $and', byCustomer, { $and: [{ application: app }, { customer: app }] }, true],
      ['every $or branch pinned', byCustomer, { application: app, customer: app, $or: [{ _id: 'a' }, { txnId: 'b' }] }, true],
      ['one $or branch without the key', byCustomer, { application: app, $or: [{ _id: 'a', customer: app }, { txnId: 'b' }] }, false],
      ['a hashed _id by equality', hashedId, { _id: 'c1', 'lanes.p16_01': { $exists: false } }, true],
      ['a hashed _id by $in', hashedId, { _id: { $in: ['c1', 'c2'] } }, true],
      ['a range on a hashed _id', hashedId, { _id: { $gt: 'a', $lt: 'b' } }, false],
      ['a two-sided range on a ranged _id', rangedId, { _id: { $gt: 'c:o:', $lt: 'c:o:~' }, orderId: 'o' }, true],
      ['a one-sided range on a ranged _id', rangedId, { _id: { $gt: 'c:o:' } }, false],
      ['no filter', hashedId, {}, false],
    ];
    for (const [label, key, filter, expected] of cases) {
      it(`when a filter has ${label}, then it ${expected ? 'targets' : 'does not target'} the shard key`, () => {
        expect(targetsShardKey(key, filter)).to.equal(expected);
      });
    }

    it('when a filter has exactly the fields of a planned scatter-gather query, then it is that query; other fields or fewer are not', () => {
      const delivery = ['delivery worker'] as const;
      const stream = { endpoint: app, customer: app, sequence: { $lt: 3 }, status: 'pending' };
      expect(plannedScatter('webhook_deliveries', stream, delivery)?.query).to.equal(
        'webhookDeliveries.firstPendingBefore / firstPendingAfter',
      );
      expect(plannedScatter('webhook_deliveries', { endpoint: app, customer: app, status: 'pending' }, delivery)).to.equal(undefined);
      expect(plannedScatter('webhook_deliveries', { ...stream, type: 'x' }, delivery)).to.equal(undefined);
      expect(plannedScatter('wallet_balances', { application: app }, delivery)).to.equal(undefined);
      // An admin scatter-gather is in the plan, but not among the delivery worker's.
      expect(plannedScatter('customers', { application: app, _id: app }, delivery)).to.equal(undefined);
      expect(plannedScatter('customers', { application: app, _id: app }, ['admin'])?.query).to.equal('customers.findByIds / resolve by id');
    });

    it('when the plan is read, then every collection of the models is either sharded or unsharded, and every sharded one says why', async () => {
      const collections = Object.values((await testDatabase()).models).map((m) => m.collection.collectionName);
      expect(collections.filter((c) => !(c in SHARDED) && !(c in UNSHARDED))).to.deep.equal([]);
      expect(Object.keys(SHARDED).filter((c) => c in UNSHARDED)).to.deep.equal([]);
      for (const [name, plan] of Object.entries(SHARDED)) expect(plan.why.length, name).to.be.above(20);
    });
  });

  describe('the hot paths', () => {
    const api = useTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await new WebhookReceiver().up();
    });
    after(async () => {
      await receiver.close();
    });

    it('when list, validate, redeem, revert, wallet read, credit and debit run (webhooks on, cold and warm caches, with and without Idempotency-Key), then every command on a sharded collection targets its planned shard key or is a planned scatter-gather', async () => {
      const { services, url } = api();
      const app = await createTestApplication(services);
      await createCustomers(services, app.id, ['s1', 's2', 's3']);
      await createWallet(services, app.id);
      await createCampaign(services, app.id, { code: 'LIMITED', limits: { total: 100, perCustomer: 5, perDay: 50 } });
      await createCampaign(services, app.id, {
        code: 'CASHBACK',
        limits: { total: 100 },
        discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: null, walletId: 'loyalty' },
      });
      const bulk = await createCampaign(services, app.id, { codeType: 'bulk', code: undefined, bulkCodeUsageLimit: 1 });
      await createBulkCodes(services, app.id, bulk.id, ['BULK-1']);
      const hook = await call(url, 'POST', `/admin/applications/${app.id}/webhooks`, {
        headers: ADMIN_HEADERS,
        body: { url: receiver.url },
      });
      expect(hook.status, hook.text).to.equal(201);

      const client = services.db.connection.getClient();
      const seen: CommandStartedEvent[] = [];
      const onStart = (e: CommandStartedEvent) => seen.push(e);
      client.on('commandStarted', onStart);
      const ok = async (p: Promise<{ status: number; text: string }>, status = 200) => {
        const res = await p;
        expect(res.status, res.text).to.equal(status);
      };
      const apply = (type: string, sourceId: string, code: string, order = makeOrder(), headers: Record<string, string> = {}) =>
        call(url, 'POST', `/coupons/apply?type=${type}`, {
          auth: app.auth,
          headers,
          body: { source_id: sourceId, coupon_details: [{ coupon_id: code, coupon_code: code }], order },
        });
      const wallet = (sourceId: string, body: unknown, headers: Record<string, string> = {}) =>
        call(url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, headers, body });
      try {
        for (const sourceId of ['s1', 's2', 's3']) {
          // Twice: cold caches, then warm.
          for (let round = 0; round < 2; round++) {
            await ok(call(url, 'POST', '/coupons/list/all', { auth: app.auth, body: { source_id: sourceId, order: makeOrder() } }));
            await ok(
              call(url, 'POST', '/coupons/validate', {
                auth: app.auth,
                body: { source_id: sourceId, coupon_details: [{ coupon_code: 'LIMITED' }], order: makeOrder() },
              }),
            );
          }
          const order = makeOrder();
          await ok(apply('redeem', sourceId, 'LIMITED', order));
          await ok(apply('revert', sourceId, 'LIMITED', order));
          const cashback = makeOrder();
          await ok(apply('redeem', sourceId, 'CASHBACK', cashback, { 'Idempotency-Key': `cb-${sourceId}` }));
          await ok(apply('redeem', sourceId, 'CASHBACK', cashback, { 'Idempotency-Key': `cb-${sourceId}` })); // replayed
          await ok(apply('revert', sourceId, 'CASHBACK', cashback));
          await ok(wallet(sourceId, { type: 'credit', points: 10 }));
          await ok(wallet(sourceId, { type: 'credit', points: 5 }, { 'Idempotency-Key': `cr-${sourceId}` }));
          await ok(wallet(sourceId, { type: 'debit', points: 3 }));
          await ok(wallet(sourceId, { type: 'debit', points: 1000 }), 400); // refused: insufficient points
          await ok(call(url, 'GET', `/wallets/customer/${sourceId}`, { auth: app.auth }));
        }
        await ok(apply('redeem', 's1', 'BULK-1'));
        await ok(apply('redeem', 's2', 'BULK-1'), 400); // the code is used up
        // The deliveries of every event (the delivery worker's queries are watched too).
        // (This test's own query carries a comment and is not checked.)
        const pending = () =>
          services.db.models.WebhookDelivery.countDocuments({ application: app.id, status: 'pending' }).comment(TEST_QUERY);
        await waitFor('every delivery', async () => (await pending()) === 0 && receiver.accepted.length > 0);
      } finally {
        client.off('commandStarted', onStart);
      }

      const offending: string[] = [];
      const touched = new Set<string>();
      for (const e of seen) {
        if (e.command.comment === TEST_QUERY) continue;
        const data = filtersOf(e);
        if (!data) continue;
        touched.add(data.collection);
        const plan = SHARDED[data.collection];
        if (!plan) {
          expect(UNSHARDED, `collection ${data.collection} is neither sharded nor unsharded in the plan`).to.have.property(data.collection);
          continue;
        }
        for (const filter of data.filters) {
          // The only scatter-gathers allowed here are the delivery worker's (it runs during the test).
          if (
            targetsShardKey(plan.key, filter) ||
            (e.commandName !== 'insert' && plannedScatter(data.collection, filter, ['delivery worker']))
          )
            continue;
          offending.push(`${e.commandName} ${data.collection} ${JSON.stringify(filter)}`);
        }
      }
      if (process.env.SHARD_KEYS_PRINT)
        process.stdout.write(`${[...new Set(offending.map((o) => o.replace(/"[0-9a-f]{24}[^"]*"/g, '…')))].join('\n')}\n`);
      expect(offending, 'commands that neither target the shard key nor are a planned scatter-gather').to.deep.equal([]);
      // The hot paths reached every sharded collection they should (the check above is not vacuous).
      for (const collection of [
        'customers',
        'limit_counters',
        'redemptions',
        'wallet_balances',
        'wallet_transactions',
        'idempotency_records',
        'events',
        'webhook_deliveries',
      ])
        expect([...touched], collection).to.include(collection);
    });
  });
});
