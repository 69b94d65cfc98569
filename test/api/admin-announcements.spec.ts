/**
 * Which admin requests announce a change to every process (shared/usecases/admin/announce.ts),
 * heard on the real Redis channel the processes listen to: a change of what the caches hold (an
 * application, its campaigns and codes, its wallets, its webhook endpoints) is announced once, for
 * its application; a refusal before anything is written, a read, a dry run and a change of what no
 * cache holds announce nothing; a change refused after it wrote part of itself is announced.
 * That an announcement reaches another process's caches: test/worker/config-changes.spec.ts.
 */
import { expect } from 'chai';
import { redisConnection, type RedisClient } from '../../shared/queue/redis.js';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { TEST_QUEUE_PREFIX, testDatabase, useTestApi } from '../support/context.js';
import { databaseFaults, WHY_NO_FAULTS } from '../support/db-faults.js';

const UNKNOWN_ID = '0123456789abcdef01234567';
const flat = { kind: 'discount', type: 'flat', value: 10 };

describe('admin API: which changes are announced to the other processes', function () {
  this.timeout(120_000);
  const api = useTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  const { admin, newApp, must } = adminHelpers(api);
  const channel = `${TEST_QUEUE_PREFIX}:config-changes`;
  let listener: RedisClient;
  let marker: RedisClient;
  const heard: string[] = [];
  let marks = 0;

  before(async () => {
    listener = redisConnection(api().services.config.redisUrl!);
    listener.on('message', (from: string, message: string) => {
      if (from === channel) heard.push(message);
    });
    await listener.subscribe(channel);
    marker = redisConnection(api().services.config.redisUrl!);
  });
  after(async () => {
    await listener?.quit();
    await marker?.quit();
  });

  /**
   * The applications announced while `request` ran: every message heard before a mark published
   * once it has answered. Redis sends a channel's messages in the order it ran their PUBLISHes, and
   * an announcement is published before the admin API answers, so any is heard before the mark.
   */
  async function announcedBy(request: () => Promise<{ status: number; text: string }>, status: number): Promise<string[]> {
    heard.length = 0;
    const res = await request();
    expect(res.status, res.text).to.equal(status);
    const mark = `mark-${process.pid}-${++marks}`;
    await marker.publish(channel, mark);
    for (const until = Date.now() + 10_000; !heard.includes(mark); await new Promise((r) => setTimeout(r, 5)))
      if (Date.now() > until) throw new Error(`the mark ${mark} was not heard`);
    return heard.slice(0, heard.indexOf(mark));
  }

  /** An application with customer c1, wallets w1 and cash, a fixed campaign FIX10, a bulk campaign and a webhook endpoint. */
  async function setup() {
    const app = await newApp();
    const A = `/applications/${app.id}`;
    await must('POST', `${A}/customers`, { customers: [{ source_id: 'c1' }] });
    await must('POST', `${A}/wallets`, { wallet_id: 'w1' });
    await must('POST', `${A}/wallets`, { wallet_id: 'cash' });
    const fixed = await must('POST', `${A}/campaigns`, { name: 'fixed', code: 'FIX10', discount: flat });
    const bulk = await must('POST', `${A}/campaigns`, { name: 'bulk', code_type: 'bulk', discount: flat });
    await must('POST', `${A}/campaigns`, {
      name: 'cashback',
      code: 'BACK10',
      discount: { kind: 'cashback', type: 'flat', value: 10, wallet_id: 'cash' },
    });
    const webhook = await must('POST', `${A}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    return { app, A, fixed: fixed.id as string, bulk: bulk.id as string, webhook: webhook.id as string };
  }

  it('when a change of what the caches hold succeeds, then it is announced once, for its application', async () => {
    const { app, A, bulk, webhook } = await setup();
    const empty: AdminApp = await newApp();
    const ids: Record<string, string> = {};
    const stash = <T extends { body: any }>(name: string, res: T): T => {
      ids[name] = res.body?.id;
      return res;
    };
    const rows: [string, () => ReturnType<typeof admin>, number][] = [
      ['application update', () => admin('PATCH', A, { name: 'renamed', rate_limit: { requests: 100 } }), 200],
      ['application secret rotation', () => admin('POST', `${A}/rotate-secret`), 200],
      ['application archive', () => admin('POST', `${A}/archive`), 200],
      ['application unarchive', () => admin('POST', `${A}/unarchive`), 200],
      [
        'campaign creation',
        async () => stash('campaign', await admin('POST', `${A}/campaigns`, { name: 'new', code: 'NEW10', discount: flat })),
        201,
      ],
      ['campaign update', () => admin('PATCH', `${A}/campaigns/${ids.campaign}`, { name: 'newer' }), 200],
      ['campaign archive', () => admin('POST', `${A}/campaigns/${ids.campaign}/archive`), 200],
      ['campaign unarchive', () => admin('POST', `${A}/campaigns/${ids.campaign}/unarchive`), 200],
      ['campaign deletion', () => admin('DELETE', `${A}/campaigns/${ids.campaign}`), 200],
      ['codes added', () => admin('POST', `${A}/campaigns/${bulk}/codes`, { codes: ['ANN-1', 'ANN-2'] }), 200],
      ['codes generated', () => admin('POST', `${A}/campaigns/${bulk}/codes`, { generate: { count: 3, prefix: 'G-' } }), 200],
      ['wallet creation', () => admin('POST', `${A}/wallets`, { wallet_id: 'w2' }), 201],
      ['wallet update', () => admin('PATCH', `${A}/wallets/w2`, { pending: { days: 3 } }), 200],
      ['wallet archive', () => admin('POST', `${A}/wallets/w2/archive`), 200],
      ['wallet unarchive', () => admin('POST', `${A}/wallets/w2/unarchive`), 200],
      ['wallet deletion', () => admin('DELETE', `${A}/wallets/w2`), 200],
      ['webhook creation', () => admin('POST', `${A}/webhooks`, { url: 'http://127.0.0.1:9/other' }), 201],
      ['webhook update', () => admin('PATCH', `${A}/webhooks/${webhook}`, { status: 'disabled' }), 200],
      ['webhook secret rotation', () => admin('POST', `${A}/webhooks/${webhook}/rotate-secret`, {}), 200],
    ];
    for (const [what, request, status] of rows) expect(await announcedBy(request, status), what).to.deep.equal([app.id]);
    expect(await announcedBy(() => admin('DELETE', `/applications/${empty.id}`), 200), 'application deletion').to.deep.equal([empty.id]);
  });

  it('when a change is refused before it writes anything, then nothing is announced', async () => {
    const { A, fixed } = await setup();
    const viewer = await must('POST', '/operators', { email: `announce-viewer-${process.pid}-${Date.now()}@shop.example`, role: 'viewer' });
    const token = (await must('POST', `/operators/${viewer.id}/tokens`, { name: 'tests' })).token as string;
    const rows: [string, () => ReturnType<typeof admin>, number][] = [
      ['a viewer', () => admin('PATCH', A, { name: 'viewed' }, { authorization: `Bearer ${token}` }), 403],
      ['an empty application update', () => admin('PATCH', A, {}), 400],
      ['an application with data deleted', () => admin('DELETE', A), 409],
      [
        'an invalid campaign',
        () => admin('POST', `${A}/campaigns`, { name: 'bad', code: 'BAD10', discount: { ...flat, value: 'ten' } }),
        400,
      ],
      ['a campaign with a code taken', () => admin('POST', `${A}/campaigns`, { name: 'again', code: 'FIX10', discount: flat }), 409],
      ['an unknown campaign updated', () => admin('PATCH', `${A}/campaigns/${UNKNOWN_ID}`, { name: 'x' }), 404],
      ['codes added to a fixed campaign', () => admin('POST', `${A}/campaigns/${fixed}/codes`, { codes: ['NOPE-1'] }), 400],
      ['a wallet_id already used (refused by the unique index)', () => admin('POST', `${A}/wallets`, { wallet_id: 'w1' }), 409],
      ['a cashback wallet archived', () => admin('POST', `${A}/wallets/cash/archive`), 409],
      ['a webhook URL refused', () => admin('POST', `${A}/webhooks`, { url: 'ftp://127.0.0.1/hooks' }), 400],
      ['an unknown webhook updated', () => admin('PATCH', `${A}/webhooks/${UNKNOWN_ID}`, { description: 'x' }), 404],
    ];
    for (const [what, request, status] of rows) expect(await announcedBy(request, status), what).to.deep.equal([]);
  });

  it('when a request changes nothing a cache holds, then nothing is announced', async () => {
    const { A, fixed } = await setup();
    const rows: [string, () => ReturnType<typeof admin>, number][] = [
      ['a read', () => admin('GET', `${A}/campaigns`), 200],
      ['a campaign preview', () => admin('POST', `${A}/campaign-preview`, { campaign: { name: 'p', code: 'PRE10', discount: flat } }), 200],
      ['"Try a cart"', () => admin('POST', `${A}/explain`, { order: makeOrder() }), 200],
      ['a live campaign unarchived (nothing to change)', () => admin('POST', `${A}/campaigns/${fixed}/unarchive`), 200],
      ['customers upserted', () => admin('POST', `${A}/customers`, { customers: [{ source_id: 'c2', name: 'C Two' }] }), 200],
      ['a customer archived', () => admin('POST', `${A}/customers/c2/archive`), 200],
      ['a customer erased', () => admin('POST', `${A}/customers/c2/erase`), 200],
      [
        'points adjusted',
        () => admin('POST', `${A}/customers/c1/wallets/w1/adjustments`, { type: 'credit', points: 5, reason: 'goodwill' }),
        200,
      ],
      [
        'an operator created',
        () => admin('POST', '/operators', { email: `announce-${process.pid}-${Date.now()}@shop.example`, role: 'viewer' }),
        201,
      ],
    ];
    for (const [what, request, status] of rows) expect(await announcedBy(request, status), what).to.deep.equal([]);
  });

  it('when a campaign is stored and the database then refuses its code, then the change is announced', async function () {
    const faults = await databaseFaults(await testDatabase());
    if (!faults) {
      console.log(`      skipped: ${WHY_NO_FAULTS}`);
      this.skip();
    }
    const { app, A } = await setup();
    try {
      // The campaign's insert goes through; the insert of its code is refused (a busy database).
      await faults.failNextWrites('coupon_codes', ['INSERT'], 1);
      expect(await announcedBy(() => admin('POST', `${A}/campaigns`, { name: 'half', code: 'HALF10', discount: flat }), 503)).to.deep.equal(
        [app.id],
      );
    } finally {
      await faults.clear();
    }
  });
});
