import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import { Types } from 'mongoose';
import type { PendingDelivery } from '../../shared/data/webhook-delivery.repository.js';
import { testServices } from '../support/context.js';

/**
 * The stream reads of concurrent delivery runs share one `find` (webhook-delivery.repository.ts,
 * `StreamReads`): each run must still get exactly what a read of its own stream gives — its
 * stream's pending deliveries up to its number, lowest first, at most its limit — whatever the
 * other streams in the same command hold, and a backlog larger than the shared read takes must not
 * cut any answer short.
 */
describe('webhook stream reads, coalesced', function () {
  this.timeout(60_000);

  it('when runs of many streams read at once, then one command answers them and each answer equals its own read; the streams a backlog cuts short are read on their own', async () => {
    const services = await testServices();
    const { WebhookDelivery } = services.db.models;
    const deliveries = services.repos.webhookDeliveries;
    const application = new Types.ObjectId();
    const endpoints = [new Types.ObjectId(), new Types.ObjectId(), new Types.ObjectId()];
    const customers = Array.from({ length: 5 }, () => new Types.ObjectId());
    const statuses = ['pending', 'succeeded', 'pending', 'dead', 'pending', 'cancelled'] as const;
    const docs: Record<string, unknown>[] = [];
    endpoints.forEach((endpoint, e) =>
      customers.forEach((customer, c) => {
        // Streams of 0 to 8 deliveries, in every status, numbers out of insertion order.
        for (let k = 0; k < (e * 5 + c) % 9; k++)
          docs.push({
            _id: `sr-${e}-${c}-${k}`,
            application,
            endpoint,
            customer,
            event: `evt_sr_${e}_${c}_${k}`,
            eventType: 'redemption.completed',
            sequence: 1000 - k * 7 + c,
            body: '{}',
            status: statuses[(k + c) % statuses.length],
            generation: k % 2,
            attempts: k % 3,
            nextAttemptAt: new Date(1_800_000_000_000 + k),
            createdAt: new Date(),
            updatedAt: new Date(),
          });
      }),
    );
    // A backlog: one stream with far more pending deliveries than a shared read takes.
    const backlogCustomer = new Types.ObjectId();
    for (let k = 0; k < 300; k++)
      docs.push({
        _id: `sr-backlog-${k}`,
        application,
        endpoint: endpoints[0],
        customer: backlogCustomer,
        event: `evt_sr_backlog_${k}`,
        eventType: 'redemption.completed',
        sequence: k,
        body: '{}',
        status: 'pending',
        generation: 0,
        attempts: 0,
        nextAttemptAt: new Date(),
        createdAt: new Date(),
        updatedAt: new Date(),
      });
    await WebhookDelivery.collection.insertMany(docs as never[]);

    const reads = endpoints.flatMap((endpoint, e) =>
      customers.map((customer, c) => ({
        endpoint: String(endpoint),
        customer: String(customer),
        upTo: 990 + c * 2 + e,
        limit: 1 + (c % 3),
      })),
    );
    const backlog = { endpoint: String(endpoints[0]), customer: String(backlogCustomer), upTo: 250, limit: 2 };
    const readAll = (rs: typeof reads) => Promise.all(rs.map((r) => deliveries.pendingOfStream(r.endpoint, r.customer, r.upTo, r.limit)));

    // What each stream holds, read one at a time (each read alone in its command).
    const alone: PendingDelivery[][] = [];
    for (const r of [...reads, backlog]) alone.push(await deliveries.pendingOfStream(r.endpoint, r.customer, r.upTo, r.limit));
    expect(alone.flat().length, 'the reads are not vacuous').to.be.greaterThan(10);
    expect(alone.at(-1)!.map((p) => p.sequence)).to.deep.equal([0, 1]);
    // Computed from the documents: pending, numbered up to upTo, lowest first, at most limit.
    const expected = [...reads, backlog].map((r) =>
      docs
        .filter((d) => String(d.endpoint) === r.endpoint && String(d.customer) === r.customer)
        .filter((d) => d.status === 'pending' && (d.sequence as number) <= r.upTo)
        .sort((a, b) => (a.sequence as number) - (b.sequence as number))
        .slice(0, r.limit)
        .map((d) => ({ id: d._id, sequence: d.sequence, generation: d.generation, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt })),
    );
    expect(alone).to.deep.equal(expected);

    const client = services.db.connection.getClient();
    const finds: CommandStartedEvent[] = [];
    const onStart = (e: CommandStartedEvent) => e.commandName === 'find' && e.command.find === 'webhook_deliveries' && finds.push(e);
    client.on('commandStarted', onStart);
    try {
      // Every stream at once: one command.
      expect(await readAll(reads)).to.deep.equal(expected.slice(0, -1));
      expect(finds.length).to.equal(1);
      // With the backlog among them: the shared read is cut short inside the backlog's stream (read
      // in index order: the ids were made in increasing order, the backlog's customer last), so
      // that stream and those after it are read alone; those before it came whole.
      finds.length = 0;
      expect(await readAll([...reads, backlog])).to.deep.equal(expected);
      const cut = `${backlog.endpoint}:${backlog.customer}`;
      const alonePart = [...reads, backlog].filter((r) => `${r.endpoint}:${r.customer}` >= cut).length;
      expect(alonePart).to.equal(1 + 2 * customers.length);
      expect(finds.length).to.equal(1 + alonePart);
    } finally {
      client.off('commandStarted', onStart);
      await WebhookDelivery.deleteMany({ application });
    }
  });
});
