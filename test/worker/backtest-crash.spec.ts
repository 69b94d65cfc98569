/**
 * A worker SIGKILLed in the middle of a backtest (docs/results.md "Backtests"): its job is stalled
 * and another worker runs it again from the first cart — the backtest ends `done` with every cart
 * replayed once and the figures of one whole replay, never a half counted twice. Real worker
 * processes on a real Redis and database; the recorded carts written as the recorder writes them.
 */
import { expect } from 'chai';
import { createCustomers, makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';
import { createCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import type { CartToRecord } from '../../shared/data/recorded-cart.repository.js';

const CARTS = 40_000;
const CUSTOMERS = 500;
const LIMIT = 5_000;
/** A dead worker's job is taken again within a few seconds (its lock, and the stall check). */
const FAST_STALL = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '500' };

describe('worker: a worker killed during a backtest', function () {
  this.timeout(240_000);
  let api: TestApi;
  const workers: WorkerProcess[] = [];
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
  });
  after(async () => {
    for (const w of workers) if (w.alive()) await w.kill();
    await api.close();
  });

  it('when the worker running a backtest is SIGKILLed, then another runs it again from the start and every cart counts once', async () => {
    const { services } = api;
    const app = await createTestApplication(services);
    const start = Date.now() - 3 * 86_400_000;
    const campaign = await createCampaign(services, app.id, {
      name: 'Replayed',
      code: 'REPLAYED',
      discount: { kind: 'discount', type: 'flat', value: 1 },
      limits: { total: LIMIT },
      valid_from: new Date(start).toISOString(),
    });
    const customers = await createCustomers(
      services,
      app.id,
      Array.from({ length: CUSTOMERS }, (_, i) => `bt-${i}`),
    );
    // Every cart a redeem the live campaign applied (its limit aside): the replay keeps LIMIT of them.
    const step = (2 * 86_400_000) / CARTS;
    for (let i = 0; i < CARTS; i += 10_000) {
      const rows: CartToRecord[] = Array.from({ length: 10_000 }, (_, k) => {
        const j = i + k;
        const at = new Date(start + 3_600_000 + j * step);
        return {
          id: `A${String(j).padStart(8, '0')}`,
          applicationId: app.id,
          at,
          kind: 'r',
          customerId: customers[j % CUSTOMERS]!.id,
          order: makeOrder({ order_id: `o-${j}` }),
          codes: ['REPLAYED'],
          orderId: `o-${j}`,
          outcomes: [{ cp: String(campaign.id), ok: true, d: 100, cb: 0, b: 100_000 }],
          expiresAt: new Date(at.getTime() + 30 * 86_400_000),
        };
      });
      await services.repos.recordedCarts.append(rows);
    }
    workers.push(await startWorkerProcess(FAST_STALL));
    const asked = await call(api.url, 'POST', `/admin/applications/${app.id}/backtests`, {
      headers: ADMIN_HEADERS,
      body: { campaign_id: campaign.id, from: new Date(start).toISOString().slice(0, 10) },
    });
    expect(asked.status, asked.text).to.equal(202);
    const id = String(asked.body.id);
    const read = async () => (await services.repos.backtests.byId(id))!;

    // Killed once it has replayed some carts and not all.
    let b = await read();
    while (!(b.status === 'running' && b.done > 0)) {
      expect(b.status, 'finished before it could be killed: more carts are needed').to.not.equal('done');
      await new Promise((r) => setTimeout(r, 10));
      b = await read();
    }
    await workers[0]!.kill();
    const killedAt = (await read()).done;
    expect(killedAt).to.be.within(1, CARTS - 1);

    workers.push(await startWorkerProcess(FAST_STALL));
    const deadline = Date.now() + 120_000;
    while ((b = await read()).status !== 'done') {
      expect(b.status, b.error ?? '').to.not.equal('failed');
      if (Date.now() > deadline) throw new Error(`not done: ${b.status}, ${b.done} of ${b.total}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(b).to.include({ done: CARTS, total: CARTS });
    const r = b.result as { replayed: Record<string, number>; backtest: Record<string, number>; changed: Record<string, number> };
    expect(r.replayed).to.deep.equal({ orders: CARTS, checks: 0, lists: 0, reverts: 0 });
    expect(r.backtest).to.include({ orders: LIMIT, discountCents: LIMIT * 100 });
    expect(r.changed).to.include({ lost: CARTS - LIMIT, gained: 0 });
  });
});
