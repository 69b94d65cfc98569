/**
 * Admin use cases on wallets and their ledgers. A change of a wallet is announced to every process
 * (announce.ts): their wallet caches hold it, by `wallet_id`.
 */
import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import { isDuplicateKeyError } from '../../data/db.js';
import type { WalletRecord } from '../../data/wallet.repository.js';
import { fromHundredths } from '../../domain/points.js';
import { expiringPoints, pendingPoints, type BucketState, type ExpiryRule } from '../../domain/point-buckets.js';
import type { Services } from '../../services.js';
import { presentWallet } from '../wallet-operation.usecase.js';
import { adminConflict, adminInvalid } from '../../admin-errors.js';
import { foundOr404, validateInput } from './admin-input.js';
import { expirySchema, pendingRuleOf, pendingSchema } from './points-settings.js';
import { earningRulesSchema, fromEarningRules, toEarningRules } from './earning-rules.js';
import { fromTierProgram, presentTier, tiersSchema, toTierProgram, type TiersInput } from './tier-settings.js';
import { currencySchema, requireApplication, timezoneSchema } from './applications.usecase.js';
import { requireCustomer } from './customers.usecase.js';
import { toggleArchived, type ArchiveDeps } from './archive.js';
import { announcing, type AnnounceDeps } from './announce.js';
import { idPage, pageOf, parsePageQuery, timeCursor } from './paging.js';

type Deps = Pick<Services, 'repos'>;
type ChangeDeps = Deps & AnnounceDeps;

/** Everything has a default but the currency of an application that has none (docs/admin-api.md). */
const createSchema = Joi.object({
  wallet_id: Joi.string().pattern(/^[A-Za-z0-9_-]{1,64}$/),
  wallet_name: Joi.string().min(1).max(200).default('Loyalty points'),
  currency: currencySchema,
  singular_unit_name: Joi.string().min(1).max(50).default('point'),
  plural_unit_name: Joi.string().min(1).max(50).default('points'),
  timezone: timezoneSchema,
  points_expiry: expirySchema.default(null),
  pending: pendingSchema.default(null),
  earning_rules: earningRulesSchema.default(null),
  tiers: tiersSchema.default(null),
});

/** What PATCH may change: names and the points settings (later credits only: docs/wallets.md); not the currency or timezone. */
const updateSchema = Joi.object({
  wallet_name: Joi.string().min(1).max(200),
  singular_unit_name: Joi.string().min(1).max(50),
  plural_unit_name: Joi.string().min(1).max(50),
  points_expiry: expirySchema,
  pending: pendingSchema,
  earning_rules: earningRulesSchema,
  tiers: tiersSchema,
}).min(1);

/** The admin's wallet: the contract's Wallet fields (without a balance) and when it was archived. */
const present = (w: WalletRecord) => ({
  ...presentWallet(w),
  points_expiry: w.pointsExpiry,
  pending: w.pendingCredits,
  earning_rules: fromEarningRules(w.earningRules),
  tiers: fromTierProgram(w.tiers),
  archived_at: w.archivedAt,
});

/** `wal_` and 16 random hex digits: never colliding in practice, and valid in a URL path as it is. */
const generateWalletId = () => `wal_${randomBytes(8).toString('hex')}`;

/**
 * Creates a custom wallet. `wallet_id` is generated when absent; the timezone defaults to the
 * application's, the currency to the application's (400 when it has none). An id already used
 * in the application — archived wallets' included — is 409.
 */
export async function createWallet(deps: ChangeDeps, applicationId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const v = validateInput(createSchema, input) as Record<string, string | undefined> & {
    points_expiry: ExpiryRule;
    pending: { days?: number; until?: string } | null;
    earning_rules: Parameters<typeof toEarningRules>[0];
    tiers: TiersInput | null;
  };
  const currency = v.currency ?? app.currency;
  if (!currency) throw adminInvalid('"currency" is required: the application has no currency to default to');
  let w: WalletRecord;
  try {
    w = await deps.repos.wallets.create(applicationId, {
      walletId: v.wallet_id ?? generateWalletId(),
      name: v.wallet_name!,
      currency,
      singularUnitName: v.singular_unit_name!,
      pluralUnitName: v.plural_unit_name!,
      timezone: v.timezone ?? app.timezone,
      pointsExpiry: v.points_expiry,
      pendingCredits: pendingRuleOf(v.pending),
      earningRules: toEarningRules(v.earning_rules),
      tiers: toTierProgram(v.tiers),
    });
  } catch (err) {
    // Refused whole (the insert wrote nothing): nothing to announce.
    if (isDuplicateKeyError(err)) throw adminConflict('"wallet_id" already exists in this application');
    throw err;
  }
  // The caches keep no wallet that was not found, but a read of this wallet_id begun before the
  // insert is shared by the reads that come while it loads: announced, they read it anew.
  await deps.changes.announce(applicationId);
  return present(w);
}

/**
 * Changes a wallet's names or points settings. A new `points_expiry` or `pending` applies to
 * credits made after it (each credit keeps the rules it was made under: docs/wallets.md).
 */
export async function updateWallet(deps: ChangeDeps, applicationId: string, walletId: string, input: unknown) {
  const wallet = await requireWallet(deps, applicationId, walletId);
  const v = validateInput(updateSchema, input) as {
    wallet_name?: string;
    singular_unit_name?: string;
    plural_unit_name?: string;
    points_expiry?: ExpiryRule;
    pending?: { days?: number; until?: string } | null;
    earning_rules?: Parameters<typeof toEarningRules>[0];
    tiers?: TiersInput | null;
  };
  const earningRules = v.earning_rules === undefined ? undefined : toEarningRules(v.earning_rules);
  const tiers = v.tiers === undefined ? undefined : toTierProgram(v.tiers);
  const updated = await announcing(deps, applicationId, () =>
    deps.repos.wallets.update(applicationId, wallet.id, {
      ...(v.wallet_name !== undefined ? { name: v.wallet_name } : {}),
      ...(v.singular_unit_name !== undefined ? { singularUnitName: v.singular_unit_name } : {}),
      ...(v.plural_unit_name !== undefined ? { pluralUnitName: v.plural_unit_name } : {}),
      ...(v.points_expiry !== undefined ? { pointsExpiry: v.points_expiry } : {}),
      ...(v.pending !== undefined ? { pendingCredits: pendingRuleOf(v.pending) } : {}),
      ...(earningRules !== undefined ? { earningRules } : {}),
      ...(tiers !== undefined ? { tiers } : {}),
    }),
  );
  return present(await foundOr404(Promise.resolve(updated), 'wallet'));
}

/**
 * A balance's pending and expiring points (docs/wallets.md): the pending total, the spendable points
 * that expire, and each bucket with its dates, soonest first (points in units).
 */
export const presentBuckets = (b: BucketState) => ({
  pending_points: fromHundredths(pendingPoints(b)),
  expiring_points: fromHundredths(expiringPoints(b)),
  buckets: b.buckets.map((k) => ({ points: fromHundredths(k.points), available_at: k.availableAt, expires_at: k.expiresAt })),
});

/** A page of wallets in creation order; archived ones only with `include_archived`. */
export async function listWallets(deps: Deps, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const page = await idPage(parsePageQuery(query, ['include_archived']), (q) => deps.repos.wallets.page(applicationId, q));
  return { wallets: page.rows.map(present), next_cursor: page.next_cursor };
}

async function requireWallet(deps: Deps, applicationId: string, walletId: string): Promise<WalletRecord> {
  await requireApplication(deps, applicationId);
  return foundOr404(deps.repos.wallets.findByWalletId(applicationId, walletId, { includeArchived: true }), 'wallet');
}

/**
 * Archives (`archive` true) or unarchives a wallet, idempotently. Archived, the wallet read no
 * longer shows it and updates answer 404 `wallet not found`; balances and ledgers stay, frozen.
 * Archiving is refused (409) while a campaign that is not archived credits its cashback there.
 */
export async function setWalletArchived(deps: ArchiveDeps & AnnounceDeps, applicationId: string, walletId: string, archive: boolean) {
  const wallet = await requireWallet(deps, applicationId, walletId);
  if (archive && !wallet.archivedAt) {
    const live = (await deps.repos.campaigns.findByCashbackWallet(applicationId, walletId)).filter((c) => !c.archivedAt);
    if (live.length > 0)
      throw adminConflict(`wallet receives the cashback of campaign ${live[0]!.id}: change or archive that campaign first`);
  }
  const { resource } = await toggleArchived(wallet, archive, deps.now, (archivedAt) =>
    announcing(deps, applicationId, () => deps.repos.wallets.setArchived(applicationId, wallet.id, archivedAt)),
  );
  return present(resource);
}

/** Deletes a wallet without ledger entries that no campaign names; otherwise 409 (archive it). */
export async function deleteWallet(deps: ChangeDeps, applicationId: string, walletId: string) {
  const wallet = await requireWallet(deps, applicationId, walletId);
  if (await deps.repos.walletTransactions.hasEntries(applicationId, { walletDbId: wallet.id }))
    throw adminConflict('wallet has transactions: archive it instead');
  const named = await deps.repos.campaigns.findByCashbackWallet(applicationId, walletId);
  if (named.length > 0)
    throw adminConflict(`wallet is the cashback wallet of campaign ${named[0]!.id}: change that campaign first, or archive the wallet`);
  await announcing(deps, applicationId, () => deps.repos.wallets.delete(applicationId, wallet.id));
  return { wallet_id: walletId, deleted: true as const };
}

/**
 * A customer's balance and a page of its ledger in one wallet (points in units, oldest first).
 * Archived customers and wallets are readable here.
 */
export async function readLedger(
  deps: Deps & Pick<Services, 'now'>,
  applicationId: string,
  customerIdOrSource: string,
  walletId: string,
  query: unknown = {},
) {
  const q = parsePageQuery(query);
  const customer = await requireCustomer(deps, applicationId, customerIdOrSource);
  const wallet = await requireWallet(deps, applicationId, walletId);
  // The balance first: the entries' states derive from its version, so the balance and the applied
  // entries tell the same moment (an entry written since shows as pending).
  const balance = await deps.repos.walletBalances.getOrCreate(applicationId, customer.id, wallet.id);
  const rows = await deps.repos.walletTransactions.listForCustomer(
    applicationId,
    customer.id,
    wallet.id,
    { limit: q.limit + 1, ...(q.cursor !== undefined ? { after: timeCursor.decode(q.cursor) } : {}) },
    balance.version,
  );
  const page = pageOf(rows, q.limit, (e) => timeCursor.encode(e.createdAt, e.id));
  return {
    balance: fromHundredths(balance.points),
    ...presentBuckets(balance),
    // The customer's tier and progress (docs/wallets.md "Tiers"); null: the wallet has no tiers.
    tier: wallet.tiers ? presentTier({ program: wallet.tiers, timezone: wallet.timezone }, balance.tier, deps.now()) : null,
    entries: page.rows.map((e) => ({
      txn_id: e.txnId,
      type: e.type,
      points: fromHundredths(e.points),
      before: e.before === null ? null : fromHundredths(e.before),
      after: e.after === null ? null : fromHundredths(e.after),
      description: e.description,
      state: e.state,
      origin: e.origin,
      bucket: e.bucket ? { move: e.bucket.move, available_at: e.bucket.availableAt, expires_at: e.bucket.expiresAt } : null,
      created_at: e.createdAt,
    })),
    next_cursor: page.next_cursor,
  };
}
