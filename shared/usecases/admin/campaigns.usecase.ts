/**
 * Admin use cases on campaigns and their codes. Every change bumps the application's config version
 * and is announced to every process (announce.ts): their campaign caches reload the application's
 * campaigns. The preview writes nothing and announces nothing.
 */
import { randomInt } from 'node:crypto';
import Joi from 'joi';
import type { CampaignInput } from '../../data/campaign.repository.js';
import { CAMPAIGN_DEFAULTS } from '../../domain/campaign-defaults.js';
import { campaignRuleTexts } from '../../domain/engine.js';
import type { Campaign } from '../../domain/types.js';
import { codeCounterId } from '../../data/limit-counter.repository.js';
import type { Services } from '../../services.js';
import { adminConflict, adminInvalid } from '../../admin-errors.js';
import { foundOr404, validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';
import { checkCampaignRules, createCampaignSchema, toAdminCampaign, toCampaignInput, updateCampaignSchema } from './campaign-format.js';
import { toggleArchived, type ArchiveDeps } from './archive.js';
import { announcing, type AnnounceDeps } from './announce.js';
import { idPage, parsePageQuery } from './paging.js';

type Deps = Pick<Services, 'repos'>;
type ChangeDeps = Pick<Services, 'repos' | 'now'> & AnnounceDeps;

async function resolveAssigned(deps: Deps, applicationId: string, sourceIds: string[] | undefined): Promise<string[] | undefined> {
  if (sourceIds === undefined) return undefined;
  const found = await deps.repos.customers.findBySourceIds(applicationId, sourceIds);
  const known = new Map(found.map((c) => [c.sourceId, c.id]));
  const missing = sourceIds.filter((s) => !known.has(s));
  if (missing.length) {
    const details = `"assigned_source_ids" contains unknown customers: ${missing.slice(0, 10).join(', ')}`;
    throw adminInvalid(details, { assigned_source_ids: details });
  }
  return sourceIds.map((s) => known.get(s)!);
}

/** A cashback wallet must exist and not be archived; so must the wallet of the tiers it is for, with those levels. */
async function checkWallet(deps: Deps, applicationId: string, c: Pick<Campaign, 'discount' | 'tierRequirement'>) {
  const walletId = c.discount.walletId;
  if (walletId && !(await deps.repos.wallets.findByWalletId(applicationId, walletId))) {
    const details = '"discount.wallet_id" is not a wallet of this application (or it is archived)';
    throw adminInvalid(details, { 'discount.wallet_id': details });
  }
  const tiers = c.tierRequirement;
  if (!tiers) return;
  const wallet = await deps.repos.wallets.findByWalletId(applicationId, tiers.walletId);
  if (!wallet?.tiers) {
    const details = '"tiers.wallet_id" is not a wallet of this application with tiers (or it is archived)';
    throw adminInvalid(details, { 'tiers.wallet_id': details });
  }
  const unknown = tiers.levels.filter((l) => !wallet.tiers!.levels.some((x) => x.name === l));
  if (unknown.length) {
    const details = `"tiers.levels" names levels the wallet does not have: ${unknown.join(', ')}`;
    throw adminInvalid(details, { 'tiers.levels': details });
  }
}

export async function requireCampaign(deps: Deps, applicationId: string, campaignId: string): Promise<Campaign> {
  await requireApplication(deps, applicationId);
  return foundOr404(deps.repos.campaigns.findById(applicationId, campaignId), 'campaign');
}

async function present(deps: Deps, applicationId: string, c: Campaign) {
  const customers = c.assignedCustomerIds.length ? await deps.repos.customers.findByIds(applicationId, c.assignedCustomerIds) : [];
  return toAdminCampaign(
    c,
    customers.map((x) => x.sourceId),
  );
}

/** The one code of a fixed campaign triggered by a code; an automatic promotion has none (nothing finds it by code). */
const fixedCodeOf = (c: Pick<Campaign, 'codeType' | 'trigger' | 'code'>): string | null =>
  c.codeType === 'fixed' && c.trigger === 'code' && c.code !== undefined ? c.code : null;

const codeTaken = () => adminConflict('"code" is already used in this application (codes of archived campaigns stay reserved)', 'code');

/**
 * A campaign as create (no `current`) or update (`current`: the stored one) would store it, after
 * every check they make: the input's format, the assigned customers, the rules against each other,
 * the cashback wallet. `change` is what update writes.
 */
export async function checkedDraft(deps: Pick<Services, 'repos' | 'now'>, applicationId: string, input: unknown, current?: Campaign) {
  const app = await requireApplication(deps, applicationId);
  const valid = validateInput(current ? updateCampaignSchema : createCampaignSchema, input) as Record<string, any>;
  const assigned = await resolveAssigned(deps, applicationId, valid.assigned_source_ids);
  const change = toCampaignInput(valid, app.timezone, assigned, current);
  const campaign = (current ? { ...current, ...change } : { ...CAMPAIGN_DEFAULTS, validFrom: deps.now(), ...change }) as CampaignInput;
  checkCampaignRules(campaign);
  await checkWallet(deps, applicationId, campaign);
  return { campaign, change, timezone: app.timezone };
}

/** Creates a campaign; `valid_from` defaults to now. A fixed code's id is the campaign's id; an automatic promotion has no code. */
export async function createCampaign(deps: ChangeDeps, applicationId: string, input: unknown) {
  const { campaign } = await checkedDraft(deps, applicationId, input);
  const code = fixedCodeOf(campaign);
  if (code !== null && (await deps.repos.couponCodes.findByCode(applicationId, code))) throw codeTaken();
  // Announced also when the code is refused below: the campaign was stored (then removed) meanwhile.
  const created = await announcing(deps, applicationId, async () => {
    const stored = await deps.repos.campaigns.create(applicationId, campaign);
    if (code !== null && !(await deps.repos.couponCodes.insertFixed(applicationId, stored.id, code))) {
      // Lost a race for the code: remove the campaign rather than leave it codeless.
      await deps.repos.campaigns.delete(applicationId, stored.id);
      throw codeTaken();
    }
    await deps.repos.applications.bumpConfigVersion(applicationId);
    return stored;
  });
  return present(deps, applicationId, created);
}

export async function updateCampaign(deps: ChangeDeps, applicationId: string, campaignId: string, input: unknown) {
  const current = await requireCampaign(deps, applicationId, campaignId);
  const { change } = await checkedDraft(deps, applicationId, input, current);
  const updated = await announcing(deps, applicationId, async () => {
    const stored = await deps.repos.campaigns.update(applicationId, campaignId, change);
    await deps.repos.applications.bumpConfigVersion(applicationId);
    return stored;
  });
  return present(deps, applicationId, updated!);
}

/** A page of campaigns in creation order; archived ones only with `include_archived`. */
export async function listCampaigns(deps: Deps, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const page = await idPage(parsePageQuery(query, ['include_archived']), (q) => deps.repos.campaigns.page(applicationId, q));
  return { campaigns: await Promise.all(page.rows.map((c) => present(deps, applicationId, c))), next_cursor: page.next_cursor };
}

export async function getCampaign(deps: Deps, applicationId: string, campaignId: string) {
  return present(deps, applicationId, await requireCampaign(deps, applicationId, campaignId));
}

/**
 * Archives (`archive` true) or unarchives a campaign, idempotently. Archived — from the next
 * cache check — it is not listed, not applicable and not redeemable (`coupon is not available at
 * this moment or expired`), while its redemptions can still be reverted; its codes stay reserved.
 * Unarchived, it is as it was (400 when its cashback wallet has been archived meanwhile).
 */
export async function setCampaignArchived(deps: ArchiveDeps & AnnounceDeps, applicationId: string, campaignId: string, archive: boolean) {
  const current = await requireCampaign(deps, applicationId, campaignId);
  if (!archive && current.archivedAt) await checkWallet(deps, applicationId, current);
  // Saved (bumped and announced) only when it changes.
  const { resource } = await toggleArchived(current, archive, deps.now, (archivedAt) =>
    announcing(deps, applicationId, async () => {
      const stored = await deps.repos.campaigns.setArchived(applicationId, campaignId, archivedAt);
      await deps.repos.applications.bumpConfigVersion(applicationId);
      return stored;
    }),
  );
  return present(deps, applicationId, resource);
}

/**
 * Deletes a campaign that was never redeemed, with its codes (which become free). One with
 * redemptions — whatever their state — keeps its history: 409, archive it instead.
 */
export async function deleteCampaign(deps: Deps & AnnounceDeps, applicationId: string, campaignId: string) {
  await requireCampaign(deps, applicationId, campaignId);
  if ((await deps.repos.redemptions.list(applicationId, { campaignId, limit: 1 })).length > 0)
    throw adminConflict('campaign has redemptions: archive it instead');
  await announcing(deps, applicationId, async () => {
    await deps.repos.campaigns.delete(applicationId, campaignId);
    await deps.repos.couponCodes.deleteByCampaign(applicationId, campaignId);
    await deps.repos.applications.bumpConfigVersion(applicationId);
  });
  return { id: campaignId, deleted: true as const };
}

// Bulk codes: no 0/O/1/I/L, so a code read aloud or typed is unambiguous.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
// One object with exactly one of the two: a refusal then names the field (`"codes[3]" …`), which
// the command line turns into the line of the file (an alternatives schema named only "value").
const codesSchema = Joi.object({
  generate: Joi.object({
    count: Joi.number().integer().min(1).max(100_000).required(),
    prefix: Joi.string()
      .pattern(/^[A-Za-z0-9_-]{0,20}$/)
      .allow(''),
    length: Joi.number().integer().min(6).max(32),
  }),
  codes: Joi.array()
    .items(Joi.string().pattern(/^[A-Za-z0-9_-]{1,64}$/))
    .min(1)
    .max(100_000),
}).xor('generate', 'codes');

const previewSchema = Joi.object({
  campaign: Joi.object().required(),
  id: Joi.string().max(64),
});

/**
 * What saving a campaign would do, without saving: `{campaign}` is checked as create checks it
 * (with `id`, as update would change that campaign), refused with the same 400s and their `fields`
 * (a fixed code already used: 409, `fields.code`); otherwise the messages a customer can be shown
 * for its rules, in the engine's order, and its validity as resolved in the application's timezone.
 * Nothing is written (docs/admin-api.md#campaign-preview).
 */
export async function previewCampaign(deps: Pick<Services, 'repos' | 'now'>, applicationId: string, input: unknown) {
  const { campaign: body, id } = validateInput(previewSchema, input) as { campaign: unknown; id?: string };
  const current = id === undefined ? undefined : await requireCampaign(deps, applicationId, id);
  const { campaign, timezone } = await checkedDraft(deps, applicationId, body, current);
  const code = fixedCodeOf(campaign);
  if (!current && code !== null && (await deps.repos.couponCodes.findByCode(applicationId, code))) throw codeTaken();
  return {
    timezone,
    valid_from: campaign.validFrom.toISOString(),
    valid_until: campaign.validUntil?.toISOString() ?? null,
    rule_texts: campaignRuleTexts(campaign),
  };
}

/**
 * Generates or imports bulk codes, in batches of 1000.
 * Returns how many were inserted and which imported codes were already taken.
 */
export async function addBulkCodes(deps: Deps & AnnounceDeps, applicationId: string, campaignId: string, input: unknown) {
  const campaign = await requireCampaign(deps, applicationId, campaignId);
  if (campaign.trigger === 'automatic') throw adminInvalid('"trigger" of this campaign is automatic: an automatic promotion has no codes');
  if (campaign.codeType !== 'bulk') throw adminInvalid('"code_type" of this campaign is fixed: bulk codes need a bulk campaign');
  const valid = validateInput(codesSchema, input) as CodesInput;
  // Announced also when generating is refused part-way: the batches before it are stored.
  const { inserted, taken } = await announcing(deps, applicationId, () => insertCodes(deps, applicationId, campaignId, valid));
  return { inserted, taken, total: await deps.repos.couponCodes.countByCampaign(applicationId, campaignId) };
}

type CodesInput = { generate?: { count: number; prefix?: string; length?: number }; codes?: string[] };

/** Inserts the codes asked for, then bumps the application's config version. */
async function insertCodes(deps: Deps, applicationId: string, campaignId: string, valid: CodesInput) {
  let inserted = 0;
  const taken: string[] = [];
  if (valid.codes) {
    for (let i = 0; i < valid.codes.length; i += 1000) {
      const r = await deps.repos.couponCodes.insertMany(applicationId, campaignId, 'bulk', valid.codes.slice(i, i + 1000));
      inserted += r.inserted;
      taken.push(...r.taken);
    }
  } else {
    const { count, prefix = '', length = 10 } = valid.generate!;
    const make = () => prefix + Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    // Collisions are retried with fresh codes until `count` exist; a code space too small to
    // hold them (short length, many codes) ends with a clear error instead of looping.
    for (let rounds = 0; inserted < count; rounds++) {
      if (rounds > Math.ceil(count / 1000) + 20) throw adminInvalid('"generate.length" is too short to generate that many unique codes');
      const batch = Array.from({ length: Math.min(1000, count - inserted) }, make);
      inserted += (await deps.repos.couponCodes.insertMany(applicationId, campaignId, 'bulk', batch)).inserted;
    }
  }
  await deps.repos.applications.bumpConfigVersion(applicationId);
  return { inserted, taken };
}

/**
 * A page of a campaign's codes, by id. The id shown is the one the client routes use: a bulk
 * code's own id, and for a fixed code its campaign's id (`coupon_code_id` of list and validate;
 * a fixed code stored under an id of its own is shown the same way). A bulk code says how often it
 * was used and may be (`used`, `uses_allowed`); a fixed code's use is its campaign's usage.
 */
export async function listCodes(deps: Deps, applicationId: string, campaignId: string, query: unknown = {}) {
  const campaign = await requireCampaign(deps, applicationId, campaignId);
  const page = await idPage(parsePageQuery(query, ['skip']), (q) => deps.repos.couponCodes.listByCampaign(applicationId, campaignId, q));
  // A bulk code's uses are its limit counter's (completed redemptions less reverts): one read per page.
  const bulk = page.rows.filter((c) => c.kind === 'bulk');
  const counters = bulk.length ? await deps.repos.limitCounters.findMany(bulk.map((c) => codeCounterId(campaignId, c.id))) : new Map();
  return {
    codes: page.rows.map((c) =>
      c.kind === 'fixed'
        ? { id: c.campaignId, code: c.code, kind: c.kind, used: null, uses_allowed: null }
        : {
            id: c.id,
            code: c.code,
            kind: c.kind,
            used: counters.get(codeCounterId(campaignId, c.id))?.total ?? 0,
            uses_allowed: campaign.bulkCodeUsageLimit ?? 1,
          },
    ),
    next_cursor: page.next_cursor,
  };
}
