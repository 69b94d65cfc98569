import { expect } from 'chai';
import { renderEvent } from '../../shared/domain/events.js';
import { WebhookQueue } from '../../shared/queue/webhook-queue.js';
import type { Committed } from '../../shared/usecases/apply-coupon.usecase.js';
import { EventRecorder } from '../../shared/usecases/events/record-events.usecase.js';
import { applyWalletOperation, prepareWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import {
  call,
  createTestApplication,
  startTestApi,
  TEST_ADMIN_TOKEN,
  TEST_QUEUE_PREFIX,
  testServices,
  type TestApi,
} from '../support/context.js';
import { WebhookReceiver, waitFor } from '../support/webhook-receiver.js';

/**
 * What recording and delivering rely on that the burst and crash tests only reach by chance: the
 * numbers a job reserves come back to a re-run of it, a recording that finds deliveries already
 * written takes their bytes, and a delivery is never cancelled on a stale cache's word.
 */
describe('webhook recording', function () {
  this.timeout(60_000);

  /** An application with one endpoint for every event, and a wallet credit of `sourceId` applied once (its job not yet recorded). */
  async function creditedWithEndpoint(services: Awaited<ReturnType<typeof testServices>>, queue: WebhookQueue, sourceId: string) {
    const recorder = new EventRecorder({ ...services, webhooks: queue });
    const app = await createTestApplication(services);
    await createCustomers(services, app.id, [sourceId]);
    await createWallet(services, app.id);
    const endpoint = await services.repos.webhookEndpoints.create(app.id, {
      url: 'https://93.184.216.34/hooks',
      eventTypes: ['*'],
      description: '',
      secret: `whsec_${sourceId}`,
    });
    const input = await prepareWalletOperation(services, {
      applicationId: app.id,
      sourceId,
      walletId: 'loyalty',
      body: { type: 'credit', points: 3 },
      txnId: `txn-${sourceId}-1`,
      requestId: `req-${sourceId}-1`,
    });
    const observed: Committed[] = [];
    const value = await applyWalletOperation(services, input, { observe: (c) => observed.push(c) });
    return { recorder, app, endpoint, input, observed, value };
  }

  it('when a job reserves event numbers again, then it gets the same numbers and instant; another job gets the next ones', async () => {
    const services = await testServices();
    const { eventSequences } = services.repos;
    const app = await createTestApplication(services);
    const [customer] = await createCustomers(services, app.id, ['seq']);
    const t0 = new Date('2026-01-01T00:00:00.000Z');
    const first = await eventSequences.reserve(app.id, customer!.id, 2, 'job-a/2', t0);
    expect(first).to.deep.equal({ first: 1, at: t0 });
    expect(await eventSequences.reserve(app.id, customer!.id, 2, 'job-a/2', new Date())).to.deep.equal(first);
    expect(await eventSequences.reserve(app.id, customer!.id, 1, 'job-b/1', t0)).to.deep.equal({ first: 3, at: t0 });
    // Once another job took numbers, the first one's holder is gone: it would get new ones.
    expect((await eventSequences.reserve(app.id, customer!.id, 2, 'job-a/2', t0)).first).to.equal(4);
  });

  it('when an event is recorded again after its deliveries were written but not the event, then it is written with their bytes and its job queued once', async () => {
    const services = await testServices();
    const queue = new WebhookQueue({ ...services.config, queuePrefix: `${TEST_QUEUE_PREFIX}-recording` });
    try {
      const { recorder, app, endpoint, input, observed, value } = await creditedWithEndpoint(services, queue, 'rec');
      const [id] = await recorder.record({ name: 'wallet-transaction', input, jobId: 'job-rec-1', outcome: { ok: true, value }, observed });
      const written = await services.repos.events.get(id!);
      const deliveryId = `${id}-${endpoint.id}`;
      const delivery = await services.repos.webhookDeliveries.get(deliveryId);
      expect(delivery!.body).to.equal(renderEvent(written!));
      const [job] = await queue.queue.getJobs(['waiting']);
      expect(job!.data.run.items.map((i: { body: string }) => i.body)).to.deep.equal([delivery!.body]);

      // As if the job had failed for good between the two writes, before queueing: no event, no job.
      await services.db.models.Event.deleteOne({ _id: id });
      await job!.remove();
      const counter = await services.db.models.EventSequence.findById(`${app.id}:${input.customerId}`).lean();

      // Recorded again by another job (a retry of the request): the entry is found written, nothing is observed.
      const again: Committed[] = [];
      const replayed = await applyWalletOperation(services, input, { observe: (c) => again.push(c) });
      expect(again).to.deep.equal([]);
      await recorder.record({
        name: 'wallet-transaction',
        input,
        jobId: 'job-rec-2',
        outcome: { ok: true, value: replayed },
        observed: again,
      });

      const restored = await services.repos.events.get(id!);
      expect(renderEvent(restored!)).to.equal(delivery!.body);
      expect(restored!.dispatched).to.equal(true);
      // No numbers were taken for it again.
      expect(await services.db.models.EventSequence.findById(`${app.id}:${input.customerId}`).lean()).to.deep.equal(counter);
      const jobs = await queue.queue.getJobs(['waiting']);
      expect(jobs.map((j) => [j.id, j.data.run.items[0].body])).to.deep.equal([[job!.id, delivery!.body]]);
    } finally {
      await queue.queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('when a job wrote its events and deliveries but died before queueing them, then its re-run queues them once; a new endpoint gets no old event', async () => {
    const services = await testServices();
    const queue = new WebhookQueue({ ...services.config, queuePrefix: `${TEST_QUEUE_PREFIX}-recording-rerun` });
    try {
      const { recorder, app, endpoint, input, observed, value } = await creditedWithEndpoint(services, queue, 'rerun');
      const op = { name: 'wallet-transaction' as const, input, jobId: 'job-rerun-1', outcome: { ok: true as const, value }, observed };
      const [id] = await recorder.record(op);
      // As if the worker had died after both writes, before its delivery job reached Redis.
      const [job] = await queue.queue.getJobs(['waiting']);
      await job!.remove();
      // An endpoint registered meanwhile: the event happened before it existed.
      const later = await services.repos.webhookEndpoints.create(app.id, {
        url: 'https://93.184.216.35/hooks',
        eventTypes: ['*'],
        description: '',
        secret: 'whsec_later',
      });
      services.webhookEndpoints.forget(app.id);

      // The stall check runs the job again: its use case finds the entry written and says nothing.
      const again = await applyWalletOperation(services, input, { observe: () => undefined });
      await recorder.record({ ...op, outcome: { ok: true, value: again }, observed: [] });
      await recorder.record({ ...op, outcome: { ok: true, value: again }, observed: [] }); // and once more

      const jobs = await queue.queue.getJobs(['waiting']);
      expect(jobs.map((j) => j.id)).to.deep.equal([job!.id]);
      expect(jobs[0]!.data.run.items.map((i: { deliveryId: string }) => i.deliveryId)).to.deep.equal([`${id}-${endpoint.id}`]);
      expect(await services.repos.webhookDeliveries.get(`${id}-${later.id}`)).to.equal(null);
    } finally {
      await queue.queue.obliterate({ force: true });
      await queue.close();
    }
  });

  describe('with a delivery pool whose endpoints cache is not re-read during the test', () => {
    let api: TestApi;
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await new WebhookReceiver().up();
      api = await startTestApi({
        QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-recording-cache`,
        CACHE_CHECK_MS: '60000',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      });
    });
    after(async () => {
      await api.webhooks.queue.obliterate({ force: true });
      await api.close();
      await receiver.down();
    });

    it('when another process re-enables an endpoint this one cached as disabled, then a redelivery is sent, not cancelled', async () => {
      const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
      const app = await createTestApplication(api.services);
      await createCustomers(api.services, app.id, ['c1']);
      await createWallet(api.services, app.id);
      const hooks = `/admin/applications/${app.id}/webhooks`;
      const created = await call(api.url, 'POST', hooks, { auth: ADMIN, body: { url: receiver.url } });
      expect(created.status).to.equal(201);
      expect((await call(api.url, 'PATCH', `${hooks}/${created.body.id}`, { auth: ADMIN, body: { status: 'disabled' } })).status).to.equal(
        200,
      );
      // Recorded while disabled: this process caches the endpoint as disabled (for a minute).
      const credited = await call(api.url, 'PUT', '/wallets/customer/c1/transactions/loyalty', {
        auth: app.auth,
        body: { type: 'credit', points: 1 },
      });
      expect(credited.status).to.equal(200);
      const cached = await api.services.webhookEndpoints.get(app.id);
      expect(cached.map((e) => e.status)).to.deep.equal(['disabled']);
      // Another process (the CLI) re-enables it: this one's cache is not told.
      await api.services.repos.webhookEndpoints.update(app.id, created.body.id, { status: 'active' }, new Date());
      const [event] = (await call(api.url, 'GET', `/admin/applications/${app.id}/events`, { auth: ADMIN })).body.events;
      const redelivered = await call(api.url, 'POST', `${hooks}/${created.body.id}/redeliver`, {
        auth: ADMIN,
        body: { event_id: event.id },
      });
      expect(redelivered.status, redelivered.text).to.equal(202);
      await waitFor('the redelivery', () => receiver.accepted.length === 1, 10_000);
      expect(receiver.accepted[0]!.json.id).to.equal(event.id);
      const deliveries = await call(api.url, 'GET', `${hooks}/${created.body.id}/deliveries`, { auth: ADMIN });
      await waitFor('delivery marked', async () => {
        const res = await call(api.url, 'GET', `${hooks}/${created.body.id}/deliveries`, { auth: ADMIN });
        return res.body.deliveries[0]?.status === 'succeeded';
      });
      expect(deliveries.body.deliveries).to.have.length(1);
    });
  });
});
