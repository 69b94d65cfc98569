import { expect } from 'chai';
import { renderEvent } from '../../shared/domain/events.js';
import { Queue } from 'bullmq';
import { EventClock } from '../../shared/queue/event-clock.js';
import { redisConnection } from '../../shared/queue/redis.js';
import { WebhookQueue } from '../../shared/queue/webhook-queue.js';
import type { Committed } from '../../shared/usecases/job-run.js';
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
  const clocks: EventClock[] = [];
  after(() => Promise.all(clocks.map((c) => c.close())));

  /** An application with one endpoint for every event, and a wallet credit of `sourceId` applied once (its job not yet recorded). */
  async function creditedWithEndpoint(services: Awaited<ReturnType<typeof testServices>>, queue: WebhookQueue, sourceId: string) {
    const clock = new EventClock(services.config);
    clocks.push(clock);
    const recorder = new EventRecorder({ ...services, webhooks: queue, clock });
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

  it('when a job reserves event numbers again, then it gets the same numbers and instant; later jobs get larger ones, even after the clock key is lost', async () => {
    const services = await testServices();
    const clock = new EventClock(services.config);
    clocks.push(clock);
    const queueName = 'ops-{clock}';
    const queue = new Queue(queueName, { connection: redisConnection(services.config.redisUrl!), prefix: services.config.queuePrefix });
    try {
      const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((name) => queue.add('noop', {}, { jobId: `clock-${name}-${Date.now()}` })));
      const job = (j: typeof a) => ({ queueName, jobId: j.id! });
      const t0 = new Date('2026-01-01T00:00:00.000Z');
      const first = await clock.reserve(job(a), 2, t0);
      // Microseconds of Redis's clock (this machine's): above any small per-customer count (docs/events.md, numbering).
      expect(first.first).to.be.within((Date.now() - 60_000) * 1000, (Date.now() + 60_000) * 1000);
      expect(first.at).to.deep.equal(t0);
      expect(await clock.reserve(job(a), 2, new Date()), 'a re-run of the job').to.deep.equal(first);
      const second = await clock.reserve(job(b), 1, new Date(t0.getTime() + 1));
      expect(second.first, 'the next job').to.be.greaterThan(first.first + 1);
      // Still held while the job exists, whoever took numbers since (a run overlapping a later job's).
      expect(await clock.reserve(job(a), 2, new Date())).to.deep.equal(first);
      // A run that makes another number of events (it found some recorded) takes new numbers.
      const recount = await clock.reserve(job(a), 1, t0);
      expect(recount.first).to.be.greaterThan(second.first);
      // A job that is not in Redis (removed) keeps nothing: each reservation is new.
      const gone = { queueName, jobId: 'clock-gone' };
      const g1 = await clock.reserve(gone, 1, t0);
      expect((await clock.reserve(gone, 1, t0)).first).to.be.greaterThan(g1.first);
      // The clock key lost (Redis restarted empty): numbers go on from Redis's time, not from zero.
      const redis = redisConnection(services.config.redisUrl!);
      await redis.del(`${services.config.queuePrefix}:${queueName}:event-clock`);
      await redis.quit();
      expect((await clock.reserve(job(c), 1, t0)).first).to.be.greaterThan(g1.first);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('when an event is recorded again after its deliveries were written but not the event, then it is written with their bytes and its job queued once', async () => {
    const services = await testServices();
    const queue = new WebhookQueue({ ...services.config, queuePrefix: `${TEST_QUEUE_PREFIX}-recording` });
    try {
      const { recorder, endpoint, input, observed, value } = await creditedWithEndpoint(services, queue, 'rec');
      const queueName = 'ops-{rec}';
      const [id] = await recorder.record({
        name: 'wallet-transaction',
        input,
        jobId: 'job-rec-1',
        queueName,
        outcome: { ok: true, value },
        observed,
      });
      const written = await services.repos.events.get(id!);
      const deliveryId = `${id}-${endpoint.id}`;
      const delivery = await services.repos.webhookDeliveries.get(deliveryId);
      expect(delivery!.body).to.equal(renderEvent(written!));
      const [job] = await queue.queue.getJobs(['waiting']);
      expect(job!.data.run.items.map((i: { body: string }) => i.body)).to.deep.equal([delivery!.body]);

      // As if the job had failed for good between the two writes, before queueing: no event, no job.
      await services.db.models.Event.deleteOne({ _id: id });
      await job!.remove();
      const clockKey = `${services.config.queuePrefix}:${queueName}:event-clock`;
      const redis = redisConnection(services.config.redisUrl!);
      const counter = await redis.get(clockKey);
      expect(counter).to.be.a('string');

      // Recorded again by another job (a retry of the request): the entry is found written, nothing is observed.
      const again: Committed[] = [];
      const replayed = await applyWalletOperation(services, input, { observe: (c) => again.push(c) });
      expect(again).to.deep.equal([]);
      await recorder.record({
        name: 'wallet-transaction',
        input,
        jobId: 'job-rec-2',
        queueName,
        outcome: { ok: true, value: replayed },
        observed: again,
      });

      const restored = await services.repos.events.get(id!);
      expect(renderEvent(restored!)).to.equal(delivery!.body);
      // No numbers were taken for it again.
      expect(await redis.get(clockKey)).to.equal(counter);
      await redis.quit();
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
      const op = {
        name: 'wallet-transaction' as const,
        input,
        jobId: 'job-rerun-1',
        queueName: 'ops-{rerun}',
        outcome: { ok: true as const, value },
        observed,
      };
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
      await receiver.close();
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
