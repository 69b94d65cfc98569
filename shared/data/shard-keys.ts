/**
 * The MongoDB sharding plan, in one place: the shard key of every collection that grows with
 * customers or traffic, the queries knowingly sent to every shard (and why that is acceptable),
 * and the collections that stay unsharded. docs/scaling.md ("Sharding MongoDB") quotes it, and
 * test/worker/shard-keys.spec.ts runs the hot paths (list, validate, redeem, revert, wallet read,
 * wallet credit and debit, with webhooks on) under the driver's command monitoring and fails on
 * any command on a sharded collection that neither targets its shard key ({@link targetsShardKey})
 * nor is one of the delivery worker's scatter-gather queries listed here — so the plan cannot rot
 * silently. Admin and background scatter-gathers are listed for the record; none runs while a
 * client request waits.
 *
 * Unique indexes of a sharded collection must start with its shard key (and `_id` is unique only
 * per shard unless the `_id` determines the shard): every key below was chosen so that they do.
 */

/** A shard key as `sh.shardCollection` takes it. */
export type ShardKey = Record<string, 1 | 'hashed'>;

/** Where a scatter-gather query runs: never while a client request waits for it. */
export type ScatterWhere = 'delivery worker' | 'admin' | 'background';

/** A query that goes to every shard holding the collection, on purpose. */
export interface ScatterQuery {
  /** The repository method sending it. */
  query: string;
  where: ScatterWhere;
  /** The filter's top-level fields, which identify it in the command stream … */
  fields: readonly string[];
  /** … and those it may have besides. */
  optional?: readonly string[];
  /** Why a scatter-gather is acceptable there. */
  why: string;
}

export interface ShardedCollection {
  key: ShardKey;
  why: string;
  scatter: readonly ScatterQuery[];
}

const PAGED = 'paged, indexed on every shard, never on a client request';

export const SHARDED: Readonly<Record<string, ShardedCollection>> = {
  limit_counters: {
    key: { _id: 'hashed' },
    why: 'every read and every guarded update goes by counter id (`<campaign>`, `<campaign>:u:<customer>`, `<campaign>:b:<code>`); hashing spreads the per-customer counters, and a hot campaign counter is one document wherever it lives',
    scatter: [
      {
        query: 'limitCounters.campaignPage / countOfCampaign',
        where: 'admin',
        fields: ['_id'],
        why: "the exactness verifier: a campaign's counters are one `_id` range, on every shard under a hashed key; paged",
      },
      {
        query: 'limitCounters.resultsRange',
        where: 'admin',
        fields: ['$or'],
        why: "campaign results (docs/results.md): a campaign's hours are one `_id` range each, at most one document per campaign and hour",
      },
    ],
  },
  campaign_tallies: {
    key: { _id: 1 },
    why: "`_id` is `<campaign>:<local hour>`: written by `_id`, and a campaign's hours read as one `_id` range (ranged, so that range stays on one shard)",
    scatter: [],
  },
  campaign_customers: {
    key: { _id: 'hashed' },
    why: '`_id` is `<campaign>:<customer>`, inserted once by `_id` and never read back: hashing spreads the inserts',
    scatter: [],
  },
  recorded_carts: {
    key: { a: 1, t: 1 },
    why: "a backtest reads one application's carts of a period in time order: one range of `{a, t}` (ranged, so a period stays on few shards). Inserts go to each application's newest chunk, in batches of one insert per process and second (shared/cache/cart-recorder.ts)",
    scatter: [
      {
        query: 'recordedCarts.eraseCustomer / ofCustomer',
        where: 'admin',
        fields: ['a', 'c'],
        why: "erasing a person (rare): one application's carts of one customer, by the `{a, c}` index on every shard",
      },
    ],
  },
  redemptions: {
    key: { _id: 1 },
    why: '`_id` is `<campaign>:<order ref>:<cycle>`: the journal commits by `_id`, and the cycles of one order are one `_id` range (ranged, not hashed, so that range stays on one shard)',
    scatter: [
      {
        query: 'redemptions.list',
        where: 'admin',
        fields: ['application', 'state'],
        optional: ['customer', 'campaign', 'createdAt', '$and'],
        why: PAGED,
      },
    ],
  },
  wallet_balances: {
    key: { application: 1, customer: 1 },
    why: "a customer's balances in every wallet together (the wallet read is one shard); `_id` (`<application>:<customer>:<wallet>`) carries both fields, so every by-id filter names them, and the unique index (application, customer, wallet) starts with the key",
    scatter: [
      { query: 'walletBalances.applicationPage', where: 'admin', fields: ['application', '_id'], why: `the exactness verifier, ${PAGED}` },
    ],
  },
  wallet_transactions: {
    key: { application: 1, customer: 1 },
    why: "a customer's ledger next to its balance; slot ids (`<balance>:<version>`) carry both fields; the unique index (application, customer, txnId) starts with the key",
    scatter: [
      {
        query: 'walletTransactions.hasEntries',
        where: 'admin',
        fields: ['application', 'wallet'],
        why: 'refusing to delete a wallet that has entries: one indexed probe per shard',
      },
      { query: 'walletTransactions.slotPage', where: 'admin', fields: ['application', '_id'], why: `the exactness verifier, ${PAGED}` },
    ],
  },
  customers: {
    key: { application: 1, sourceId: 1 },
    why: 'every client request names its customer by `source_id`, and jobs carry it; the unique index (application, sourceId) is the key',
    scatter: [
      {
        query: 'customers.findByIds / resolve by id',
        where: 'admin',
        fields: ['application', '_id'],
        optional: ['archivedAt'],
        why: 'admin reads by the service id and assigned-customer lists; within one application',
      },
    ],
  },
  idempotency_records: {
    key: { application: 1, key: 1 },
    why: 'claimed and read by (application, Idempotency-Key), the unique index; the TTL index expires them on every shard',
    scatter: [],
  },
  events: {
    key: { _id: 'hashed' },
    why: 'the outbox is written and read by event id (`evt_<hash>`): a re-run finds its events by id',
    scatter: [
      { query: 'events.list / inRange', where: 'admin', fields: ['application'], optional: ['type', 'customer', 'createdAt'], why: PAGED },
      {
        query: 'events.deleteBefore',
        where: 'background',
        fields: ['createdAt'],
        why: 'retention, once a day, on an index',
      },
    ],
  },
  webhook_deliveries: {
    key: { _id: 'hashed' },
    why: 'a delivery job carries only its delivery id (`<event>-<endpoint>`): every state change is a guarded update by `_id`',
    scatter: [
      {
        query: 'webhookDeliveries.firstPendingBefore / firstPendingAfter',
        where: 'delivery worker',
        fields: ['endpoint', 'customer', 'sequence', 'status'],
        why: 'stream ordering: an indexed probe per shard for the first pending delivery of one (endpoint, customer)',
      },
      { query: 'webhookDeliveries.list', where: 'admin', fields: ['application', 'endpoint'], optional: ['status', 'event'], why: PAGED },
      {
        query: 'webhookDeliveries.cancelPendingOfEndpoint',
        where: 'admin',
        fields: ['endpoint', 'status'],
        optional: ['_id'],
        why: 'disabling an endpoint (or the receiver answering 410): once per endpoint',
      },
      {
        query: 'webhookDeliveries.listOverdue / deleteFinishedBefore',
        where: 'background',
        fields: ['status'],
        optional: ['nextAttemptAt', 'createdAt'],
        why: 'the sweep and retention, on an index',
      },
    ],
  },
};

/** Small collections that stay on the primary shard (read through in-process caches, or per application). */
export const UNSHARDED: Readonly<Record<string, string>> = {
  applications: 'one document per shop, read by API key through the credential cache',
  campaigns: 'tens to thousands per application, read through the campaign cache',
  coupon_codes:
    'one per fixed code plus bulk codes; read by (application, code). If bulk code sets reach tens of millions, shard by { application: 1, codeNormalized: 1 } — the unique index already starts with it',
  wallets: 'a handful of wallet definitions per application, cached',
  webhook_endpoints: 'a handful per application, cached',
  operators: 'the people who configure the service: tens, read by id or e-mail on admin requests only',
  operator_tokens: 'a few per operator, read by digest on admin requests only',
  operator_sessions: 'one per signed-in browser, read by digest on admin requests only; expired ones removed by a TTL index',
  gift_cards:
    'one per gift card or store credit: read by (application, holder); if cards reach tens of millions, shard by { application: 1, holder: 1 } — the unique index already starts with it',
  gift_card_entries:
    "a card's ledger, read by (card, …); if it grows past one server, shard by { card: 1 } — its unique index (card, txnId) starts with it, and a slot `_id` starts with the card id",
  audit_entries: 'one per admin change (people at work: thousands a day at most), read on admin requests only',
  backtests: 'one per backtest asked (a few a day per application), read by id on admin requests and by the worker running it',
};

type Filter = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Filter =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** True when `cond` pins one value or a list of values of a field (equality or `$in`), not a range. */
function pinsValue(cond: unknown): boolean {
  if (cond === undefined) return false;
  if (!isPlainObject(cond)) return true; // a literal, an ObjectId, a Date: equality
  const ops = Object.keys(cond);
  if (ops.length === 0 || !ops.every((k) => k.startsWith('$'))) return true; // an embedded document: equality
  if ('$eq' in cond) return true;
  if ('$in' in cond) return Array.isArray(cond.$in) && cond.$in.length > 0;
  return false;
}

/** True when `cond` bounds a ranged key on both sides (mongos targets the chunks of that range). */
const boundsRange = (cond: unknown): boolean =>
  isPlainObject(cond) && ('$gt' in cond || '$gte' in cond) && ('$lt' in cond || '$lte' in cond);

/**
 * True when a filter (or an inserted document) lets mongos target the shards of `key` without
 * asking every shard: each field of the key is pinned (equality or `$in`; for a ranged `_id`
 * also a two-sided range), at the top level, through `$and`, or in every branch of an `$or`.
 */
export function targetsShardKey(key: ShardKey, filter: Filter): boolean {
  const pinned = (f: Filter): boolean =>
    Object.entries(key).every(([field, kind]) => pinsValue(f[field]) || (kind === 1 && boundsRange(f[field])));
  if (pinned(filter)) return true;
  const and = Array.isArray(filter.$and) ? (filter.$and as Filter[]) : [];
  const merged: Filter = Object.assign({}, ...and, filter);
  delete merged.$and;
  if (pinned(merged)) return true;
  const or = Array.isArray(merged.$or) ? (merged.$or as Filter[]) : [];
  if (or.length === 0) return false;
  const rest = { ...merged };
  delete rest.$or;
  return or.every((branch) => targetsShardKey(key, { ...rest, ...branch }));
}

/**
 * The planned scatter-gather query (of those running `where`) a filter is, if any: it has all of
 * the query's fields, and nothing but its optional ones besides.
 */
export function plannedScatter(collection: string, filter: Filter, where: readonly ScatterWhere[]): ScatterQuery | undefined {
  const fields = Object.keys(filter);
  return SHARDED[collection]?.scatter.find(
    (s) =>
      where.includes(s.where) &&
      s.fields.every((f) => fields.includes(f)) &&
      fields.every((f) => s.fields.includes(f) || !!s.optional?.includes(f)),
  );
}
