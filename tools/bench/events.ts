/**
 * `npm run bench -- events`: what each database statement of the event path costs the test
 * database (FerretDB + PostgreSQL CPU per call, from /proc: the embedded test database, or BENCH_DB_DIR's) and Redis, at 64
 * concurrent callers as under load, against a baseline in the same run: the redeem path's commit
 * (a redemption cycle written to the journal: a guarded upsert by `_id`, batched). The recording
 * job reserves its events' numbers (a Redis script) and writes a delivery and an event per event;
 * a delivery job reads its stream's pending deliveries and writes each outcome (docs/events.md).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Types } from 'mongoose';
import { DestinationPolicy } from '../../shared/domain/webhook-destination.js';
import { signatureHeader } from '../../shared/domain/webhook-signature.js';
import { createWebhookSender } from '../../shared/net/webhook-client.js';
import { redemptionKey } from '../../shared/data/redemption-journal.repository.js';
import { EventClock } from '../../shared/queue/event-clock.js';
import { pidsNamed, processSeconds } from './cpu.js';
import { log, startStack } from './stack.js';

const CALLS = Number(process.env.EVENTS_CALLS ?? 6000);
const CONCURRENCY = 64;

export async function eventsBench(): Promise<string[]> {
  const redisCpu = () => processSeconds(pidsNamed('redis-server'));
  const stack = await startStack();
  const database = stack.databaseCpu;
  if (!database) {
    await stack.stop();
    throw new Error(
      "this mode reads the test database's CPU: use the embedded one, or set BENCH_DB_DIR to its directory (tools/testdb/start.sh)",
    );
  }
  const clock = new EventClock(stack.config);
  try {
    const { repos } = stack.services;
    const app = new Types.ObjectId().toString();
    const campaign = new Types.ObjectId().toString();
    const endpoint = new Types.ObjectId().toString();
    const customers = Array.from({ length: 200 }, () => new Types.ObjectId().toString());
    const customer = (i: number) => customers[i % customers.length]!;
    // A delivery's bytes: the size of a redemption.completed event.
    const body = JSON.stringify({ id: 'evt_x', type: 'redemption.completed', data: { padding: 'x'.repeat(700) } });
    const rows: { name: string; ms: number; redisMs: number; rate: number }[] = [];
    const measure = async (name: string, call: (i: number) => Promise<unknown>) => {
      const before = database();
      const redisBefore = redisCpu();
      const t0 = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < CALLS) await call(next++);
        }),
      );
      const seconds = (Date.now() - t0) / 1000;
      rows.push({
        name,
        ms: ((database() - before) * 1000) / CALLS,
        redisMs: ((redisCpu() - redisBefore) * 1000) / CALLS,
        rate: CALLS / seconds,
      });
      log(`  ${name}: ${rows.at(-1)!.ms.toFixed(3)} ms of database CPU, ${rows.at(-1)!.redisMs.toFixed(3)} ms of Redis CPU per call`);
    };
    log(`${CALLS} calls of each statement, ${CONCURRENCY} at a time`);
    const periods = { day: '2026-11-25', week: '2026-W48', month: '2026-11' };
    await measure('baseline: a redemption committed to the journal (upsert, batched)', (i) =>
      repos.redemptions.commitCycle(
        {
          applicationId: app,
          campaignId: campaign,
          customerId: customer(i),
          couponCodeId: null,
          orderId: `o${i}`,
          cycle: 1,
          key: redemptionKey(campaign, `o${i}`, 1),
          couponId: 'BENCH',
          code: 'BENCH',
          discountCents: 100,
          cashbackCents: 0,
          cashbackWallet: null,
          periods,
          counters: [],
          refusal: null,
          redeemJobId: `job-${i}`,
        },
        `a${i}`,
        'completed',
      ),
    );
    await measure('event numbers reserved (Redis script, one per operation)', (i) =>
      clock.reserve({ queueName: `ops-{${String(i % 64).padStart(2, '0')}}`, jobId: `bench-events-${i}` }, 2, new Date()),
    );
    await measure('delivery written (insert, batched)', (i) =>
      repos.webhookDeliveries.createMissing(
        [
          {
            applicationId: app,
            endpointId: endpoint,
            customerId: customer(i),
            eventId: `evt_${i}`,
            eventType: 'redemption.completed',
            sequence: i,
            body,
            job: `deliver-evt_${i}-${endpoint}-g0`,
          },
        ],
        new Date(),
      ),
    );
    await measure('event written to the outbox (insert, batched)', (i) =>
      repos.events.record([
        {
          id: `evt_${i}`,
          applicationId: app,
          customerId: customer(i),
          type: 'redemption.completed',
          sequence: i,
          requestId: `req-${i}`,
          createdAt: new Date(),
          data: { source_id: `c${i % 200}`, order_id: `o${i}` } as never,
        },
      ]),
    );
    await measure('delivery outcome written (guarded update, batched)', (i) =>
      repos.webhookDeliveries.settle([
        {
          deliveryId: `evt_${i}-${endpoint}`,
          generation: 0,
          attempts: 0,
          set: {
            attempts: 1,
            lastAttemptAt: new Date(),
            lastStatusCode: 200,
            status: 'succeeded',
            nextAttemptAt: null,
            deliveredAt: new Date(),
          },
        },
      ]),
    );
    // As in a delivery run: its stream holds its own pending delivery (the others are settled above).
    await repos.webhookDeliveries.createMissing(
      customers.map((c, k) => ({
        applicationId: app,
        endpointId: endpoint,
        customerId: c,
        eventId: `evt_pending_${k}`,
        eventType: 'redemption.completed',
        sequence: CALLS + k,
        body,
      })),
      new Date(),
    );
    await measure("stream's pending deliveries read (find, shared by concurrent runs)", (i) =>
      repos.webhookDeliveries.pendingOfStream(endpoint, customer(i), CALLS + 1000, 2),
    );
    // The HTTP side, for scale: one signed POST of an event's bytes to a receiver on 127.0.0.1 (the
    // endpoints bench's: it reads the body, answers 204), both in this process, its CPU per POST.
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const send = createWebhookSender({ policy: new DestinationPolicy(['127.0.0.0/8']), timeoutMs: 5000 });
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const cpu0 = process.cpuUsage();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (sent < CALLS) {
          sent++;
          const at = Math.floor(Date.now() / 1000);
          await send(hook, body, { 'content-type': 'application/json', 'coupons-signature': signatureHeader(body, ['whsec_bench'], at) });
        }
      }),
    );
    const used = process.cpuUsage(cpu0);
    const postMs = (used.user + used.system) / 1000 / CALLS;
    receiver.close();
    log(`  a signed POST, sender and receiver: ${postMs.toFixed(3)} ms of CPU`);
    const base = rows[0]!.ms;
    return [
      '',
      `Database CPU (FerretDB + PostgreSQL) and Redis CPU per call, ${CALLS} calls at ${CONCURRENCY} at a time`,
      '',
      '| statement | database ms per call | × baseline | Redis ms per call | calls/s |',
      '|---|---|---|---|---|',
      ...rows.map(
        (r) => `| ${r.name} | ${r.ms.toFixed(3)} | ${(r.ms / base).toFixed(1)} | ${r.redisMs.toFixed(3)} | ${r.rate.toFixed(0)} |`,
      ),
      '',
      `A signed POST of the event's bytes to a receiver on 127.0.0.1, 10 at a time: ${postMs.toFixed(3)} ms of CPU (sender and receiver, one process).`,
    ];
  } finally {
    await clock.close();
    await stack.stop();
  }
}
