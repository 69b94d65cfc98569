/**
 * Every kind of admin change leaves its audit entry, checked field by field: the action, the
 * actor, the target, and the fields the change moved with their values before and after. The
 * table is written by hand (what each route must record); the routes are read from the router, so
 * a changing route added later without a row fails here.
 */
import { expect } from 'chai';
import type { Router } from 'express';
import { adminRouter } from '../../api/admin/admin.router.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, useTestApi } from '../support/context.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

type Check = unknown | ((v: unknown) => boolean);
interface Row {
  /** `METHOD /path` as the router names it. */
  route: string;
  run: () => Promise<{ status: number; body: any }>;
  action: string;
  /** The target's id (after the call). */
  target: () => string | null;
  /** Changed fields: [before, after], a value or a predicate. */
  fields: Record<string, [Check, Check]>;
}

const aDate = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const anything = () => true;

describe('admin API: the audit entry of every kind of change', function () {
  this.timeout(120_000);
  const api = useTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  const admin = (method: string, path: string, body?: unknown) =>
    call(api().url, method, `/admin${path}`, { headers: ADMIN_HEADERS, body });
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await new WebhookReceiver().up();
  });
  after(() => receiver.close());

  it('when each changing route is called once, then its entry names the action, actor and target, and each moved field before and after', async () => {
    const seq = `${process.pid}-${Date.now()}`;
    const ids: Record<string, string> = {};
    const A = () => `/applications/${ids.app}`;
    const rows: Row[] = [
      {
        route: 'POST /applications',
        run: () => admin('POST', '/applications', { name: 'Audited', currency: 'INR' }),
        action: 'application.create',
        target: () => ids.app!,
        fields: { name: [null, 'Audited'] },
      },
      {
        route: 'PATCH /applications/:app',
        run: () => admin('PATCH', A(), { name: 'Renamed' }),
        action: 'application.update',
        target: () => ids.app!,
        fields: { name: ['Audited', 'Renamed'] },
      },
      {
        route: 'POST /applications/:app/rotate-secret',
        run: () => admin('POST', `${A()}/rotate-secret`),
        action: 'application.rotate_secret',
        target: () => ids.app!,
        fields: { secretHash: ['[redacted]', '[redacted]'] },
      },
      {
        route: 'POST /applications/:app/customers',
        run: () => admin('POST', `${A()}/customers`, { customers: [{ source_id: 'c1', name: 'C One' }, { source_id: 'c2' }] }),
        action: 'customer.upsert',
        target: () => null,
        fields: { request: [null, { customers: [{ source_id: 'c1', name: 'C One' }, { source_id: 'c2' }] }] },
      },
      {
        route: 'POST /applications/:app/customers/:customer/archive',
        run: () => admin('POST', `${A()}/customers/c1/archive`),
        action: 'customer.archive',
        target: () => ids.c1!,
        fields: { archivedAt: [null, aDate] },
      },
      {
        route: 'POST /applications/:app/customers/:customer/unarchive',
        run: () => admin('POST', `${A()}/customers/c1/unarchive`),
        action: 'customer.unarchive',
        target: () => ids.c1!,
        fields: { archivedAt: [aDate, null] },
      },
      {
        route: 'POST /applications/:app/customers/:customer/erase',
        run: () => admin('POST', `${A()}/customers/c1/erase`),
        action: 'customer.erase',
        target: () => ids.c1!,
        fields: { name: ['[erased]', null], sourceId: ['[erased]', () => `erased-${ids.c1}`], erasedAt: [null, aDate] },
      },
      {
        route: 'DELETE /applications/:app/customers/:customer',
        run: () => admin('DELETE', `${A()}/customers/c2`),
        action: 'customer.delete',
        target: () => ids.c2!,
        fields: { sourceId: ['c2', null] },
      },
      {
        route: 'POST /applications/:app/wallets',
        run: () => admin('POST', `${A()}/wallets`, { wallet_id: 'w1' }),
        action: 'wallet.create',
        target: () => ids.w1!,
        fields: { walletId: [null, 'w1'] },
      },
      {
        route: 'PATCH /applications/:app/wallets/:wallet',
        run: () => admin('PATCH', `${A()}/wallets/w1`, { pending: { days: 7 } }),
        action: 'wallet.update',
        target: () => ids.w1!,
        fields: { pendingCredits: [null, { days: 7 }] },
      },
      {
        route: 'POST /applications/:app/wallets/:wallet/archive',
        run: () => admin('POST', `${A()}/wallets/w1/archive`),
        action: 'wallet.archive',
        target: () => ids.w1!,
        fields: { archivedAt: [null, aDate] },
      },
      {
        route: 'POST /applications/:app/wallets/:wallet/unarchive',
        run: () => admin('POST', `${A()}/wallets/w1/unarchive`),
        action: 'wallet.unarchive',
        target: () => ids.w1!,
        fields: { archivedAt: [aDate, null] },
      },
      {
        route: 'DELETE /applications/:app/wallets/:wallet',
        run: () => admin('DELETE', `${A()}/wallets/w1`),
        action: 'wallet.delete',
        target: () => ids.w1!,
        fields: { walletId: ['w1', null] },
      },
      {
        route: 'POST /applications/:app/customers/:customer/wallets/:wallet/adjustments',
        run: async () => {
          expect((await admin('POST', `${A()}/wallets`, { wallet_id: 'w2' })).status).to.equal(201);
          return admin('POST', `${A()}/customers/${ids.c1}/wallets/w2/adjustments`, { type: 'credit', points: 5, reason: 'goodwill' });
        },
        action: 'customer.adjust_points',
        target: () => ids.c1!,
        fields: {
          request: [
            null,
            (v: unknown) => {
              const r = v as Record<string, unknown>;
              return (
                r.type === 'credit' && r.points === 5 && r.reason === 'goodwill' && r.wallet_id === 'w2' && typeof r.txn_id === 'string'
              );
            },
          ],
        },
      },
      {
        route: 'POST /applications/:app/campaigns',
        run: () =>
          admin('POST', `${A()}/campaigns`, { name: 'Five', code_type: 'bulk', discount: { kind: 'discount', type: 'flat', value: 5 } }),
        action: 'campaign.create',
        target: () => ids.campaign!,
        fields: { name: [null, 'Five'] },
      },
      {
        route: 'PATCH /applications/:app/campaigns/:campaign',
        run: () => admin('PATCH', `${A()}/campaigns/${ids.campaign}`, { name: 'Six' }),
        action: 'campaign.update',
        target: () => ids.campaign!,
        fields: { name: ['Five', 'Six'] },
      },
      {
        route: 'POST /applications/:app/campaigns/:campaign/codes',
        run: () => admin('POST', `${A()}/campaigns/${ids.campaign}/codes`, { codes: ['AUDA1', 'AUDA2'] }),
        action: 'campaign.add_codes',
        target: () => ids.campaign!,
        fields: { request: [null, { codes: ['AUDA1', 'AUDA2'] }] },
      },
      {
        route: 'POST /applications/:app/campaigns/:campaign/archive',
        run: () => admin('POST', `${A()}/campaigns/${ids.campaign}/archive`),
        action: 'campaign.archive',
        target: () => ids.campaign!,
        fields: { archivedAt: [null, aDate] },
      },
      {
        route: 'POST /applications/:app/campaigns/:campaign/unarchive',
        run: () => admin('POST', `${A()}/campaigns/${ids.campaign}/unarchive`),
        action: 'campaign.unarchive',
        target: () => ids.campaign!,
        fields: { archivedAt: [aDate, null] },
      },
      {
        route: 'DELETE /applications/:app/campaigns/:campaign',
        run: () => admin('DELETE', `${A()}/campaigns/${ids.campaign}`),
        action: 'campaign.delete',
        target: () => ids.campaign!,
        fields: { name: ['Six', null] },
      },
      {
        route: 'POST /applications/:app/gift-cards',
        run: () => admin('POST', `${A()}/gift-cards`, { amount: 25, code: `AUD-GC-${seq}` }),
        action: 'gift_card.issue',
        target: () => ids.card!,
        fields: { balance: [null, 2500], status: [null, 'active'] },
      },
      {
        route: 'POST /applications/:app/gift-cards/:card/top-up',
        run: () => admin('POST', `${A()}/gift-cards/${ids.card}/top-up`, { amount: 5 }),
        action: 'gift_card.top_up',
        target: () => ids.card!,
        fields: { balance: [2500, 3000] },
      },
      {
        route: 'PATCH /applications/:app/gift-cards/:card',
        run: () => admin('PATCH', `${A()}/gift-cards/${ids.card}`, { status: 'disabled' }),
        action: 'gift_card.update',
        target: () => ids.card!,
        fields: { status: ['active', 'disabled'] },
      },
      {
        route: 'POST /applications/:app/gift-cards/bulk',
        run: () => admin('POST', `${A()}/gift-cards/bulk`, { count: 2, amount: 5 }),
        action: 'gift_card.issue_bulk',
        target: () => null,
        fields: { request: [null, { count: 2, amount: 5 }] },
      },
      {
        route: 'POST /applications/:app/gift-cards/import',
        run: () => admin('POST', `${A()}/gift-cards/import`, { csv: `code,amount\nAUD-IMP-${seq},7` }),
        action: 'gift_card.import',
        target: () => null,
        fields: { request: [null, { csv: `code,amount\nAUD-IMP-${seq},7` }] },
      },
      {
        route: 'POST /applications/:app/customers/:customer/store-credit',
        run: async () => {
          await admin('POST', `${A()}/customers`, { customers: [{ source_id: 'credited' }] });
          return admin('POST', `${A()}/customers/credited/store-credit`, { amount: 3 });
        },
        action: 'gift_card.store_credit',
        target: () => null,
        fields: { request: [null, { amount: 3 }] },
      },
      {
        route: 'POST /applications/:app/webhooks',
        run: () => admin('POST', `${A()}/webhooks`, { url: receiver.url }),
        action: 'webhook.create',
        target: () => ids.webhook!,
        fields: { url: [null, receiver.url], secret: [null, '[redacted]'] },
      },
      {
        route: 'PATCH /applications/:app/webhooks/:webhook',
        run: () => admin('PATCH', `${A()}/webhooks/${ids.webhook}`, { description: 'orders' }),
        action: 'webhook.update',
        target: () => ids.webhook!,
        fields: { description: [anything, 'orders'] },
      },
      {
        route: 'POST /applications/:app/webhooks/:webhook/rotate-secret',
        run: () => admin('POST', `${A()}/webhooks/${ids.webhook}/rotate-secret`, {}),
        action: 'webhook.rotate_secret',
        target: () => ids.webhook!,
        fields: { secret: ['[redacted]', '[redacted]'] },
      },
      {
        route: 'POST /applications/:app/webhooks/:webhook/ping',
        run: () => admin('POST', `${A()}/webhooks/${ids.webhook}/ping`),
        action: 'webhook.ping',
        target: () => ids.webhook!,
        fields: {},
      },
      {
        route: 'POST /applications/:app/webhooks/:webhook/redeliver',
        run: () =>
          admin('POST', `${A()}/webhooks/${ids.webhook}/redeliver`, {
            from: new Date(Date.now() - 60_000).toISOString(),
            to: new Date().toISOString(),
          }),
        action: 'webhook.redeliver',
        target: () => ids.webhook!,
        fields: {},
      },
      {
        route: 'POST /operators',
        run: () => admin('POST', '/operators', { email: `audit-routes-${seq}@shop.example`, role: 'viewer' }),
        action: 'operator.create',
        target: () => ids.operator!,
        fields: { role: [null, 'viewer'] },
      },
      {
        route: 'PATCH /operators/:operator',
        run: () => admin('PATCH', `/operators/${ids.operator}`, { role: 'editor' }),
        action: 'operator.update',
        target: () => ids.operator!,
        fields: { role: ['viewer', 'editor'] },
      },
      {
        route: 'POST /operators/:operator/tokens',
        run: () => admin('POST', `/operators/${ids.operator}/tokens`, { name: 'ci' }),
        action: 'token.create',
        target: () => ids.token!,
        fields: { name: [null, 'ci'], digest: [null, '[redacted]'] },
      },
      {
        route: 'DELETE /operators/:operator/tokens/:token',
        run: () => admin('DELETE', `/operators/${ids.operator}/tokens/${ids.token}`),
        action: 'token.revoke',
        target: () => ids.token!,
        fields: { revokedAt: [null, aDate] },
      },
      {
        route: 'POST /applications/:app/archive',
        run: () => admin('POST', `${A()}/archive`),
        action: 'application.archive',
        target: () => ids.app!,
        fields: { archivedAt: [null, aDate] },
      },
      {
        route: 'POST /applications/:app/unarchive',
        run: () => admin('POST', `${A()}/unarchive`),
        action: 'application.unarchive',
        target: () => ids.app!,
        fields: { archivedAt: [aDate, null] },
      },
    ];
    // Not audited: signing in and out (they configure nothing), "Try a cart", the campaign preview,
    // the earning explain and a backtest (POSTs that change nothing live: test/api/explain.spec.ts,
    // campaign-preview.spec.ts and backtest.spec.ts check theirs; the earning explain only reads the wallet).
    const unaudited = new Set([
      'POST /sessions',
      'DELETE /sessions/current',
      'POST /applications/:app/explain',
      'POST /applications/:app/campaign-preview',
      'POST /applications/:app/wallets/:wallet/earning/explain',
      'POST /applications/:app/backtests',
    ]);
    // Routes whose change needs a state this test does not build (a session to revoke, an application without data to delete).
    const elsewhere = new Set(['DELETE /operators/:operator/sessions/:session', 'DELETE /applications/:app']);
    const changing = routesOf(adminRouter(api().services)).filter((r) => !r.startsWith('GET ') && !unaudited.has(r) && !elsewhere.has(r));
    expect(
      changing.filter((r) => !rows.some((row) => row.route === r)),
      'changing routes without a row',
    ).to.deep.equal([]);

    for (const row of rows) {
      const res = await row.run();
      expect(res.status, `${row.route}: ${JSON.stringify(res.body)}`).to.be.within(200, 299);
      if (row.action === 'application.create') ids.app = res.body.id;
      if (row.action === 'customer.upsert') for (const c of res.body.customers) ids[c.source_id] = c.id;
      if (row.action === 'campaign.create') ids.campaign = res.body.id;
      if (row.action === 'gift_card.issue') ids.card = res.body.id;
      if (row.action === 'webhook.create') ids.webhook = res.body.id;
      if (row.action === 'operator.create') ids.operator = res.body.id;
      if (row.action === 'token.create') ids.token = res.body.id;
      const [entry] = (await admin('GET', '/audit?limit=1')).body.entries;
      const said = `${row.route}: ${JSON.stringify(entry)}`;
      // A wallet is named by its wallet_id in routes; the log names it by the service's id.
      if (row.action === 'wallet.create') ids.w1 = String(entry.target.id).match(/^[0-9a-f]{24}$/)?.[0] ?? 'not an id';
      expect(entry.action, said).to.equal(row.action);
      expect(entry.actor, said).to.deep.equal({ kind: 'admin_token', operator_id: null, email: null, token_id: null });
      expect(entry.target.type, said).to.equal(row.action.split('.')[0]);
      expect(entry.target.id, said).to.equal(row.target());
      if (row.route.startsWith('POST /applications/:app') || row.route.startsWith('PATCH /applications/:app'))
        expect(entry.target.application, said).to.equal(ids.app);
      for (const [field, [before, after]] of Object.entries(row.fields)) {
        const got = entry.changes[field];
        expect(got, `${said}: ${field} changed`).to.be.an('object');
        for (const [side, want] of [
          ['before', before],
          ['after', after],
        ] as const) {
          const value = (got as Record<string, unknown>)[side];
          if (typeof want === 'function') {
            const w = want as (v: unknown) => unknown;
            const r = w(value);
            if (typeof r === 'boolean') expect(r, `${said}: ${field}.${side} = ${JSON.stringify(value)}`).to.equal(true);
            else expect(value, `${said}: ${field}.${side}`).to.equal(r);
          } else expect(value, `${said}: ${field}.${side}`).to.deep.equal(want);
        }
      }
      // Only what moved is recorded: every recorded field differs before and after (secrets redacted on both sides).
      for (const [field, v] of Object.entries(entry.changes as Record<string, { before: unknown; after: unknown }>))
        if (v.before !== '[redacted]' && field !== 'request')
          expect(JSON.stringify(v.before), `${said}: ${field} unchanged but recorded`).to.not.equal(JSON.stringify(v.after));
    }
  });
});

function routesOf(router: Router): string[] {
  const out: string[] = [];
  for (const layer of router.stack as unknown as { route?: { path: string; methods: Record<string, boolean> } }[]) {
    if (!layer.route) continue;
    for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') out.push(`${m.toUpperCase()} ${layer.route.path}`);
  }
  return out;
}
