/** Admin use cases on campaigns and their codes. Every change bumps the application's config version. */
import { randomInt } from 'node:crypto';
import Joi from 'joi';
import type { CampaignInput } from '../../data/campaign.repository.js';
import { CAMPAIGN_DEFAULTS } from '../../domain/campaign-defaults.js';
import type { Campaign } from '../../domain/types.js';
import type { Services } from '../../services.js';
import { adminInvalid, adminNotFound, validateInput } from './admin-errors.js';
import { requireApplication } from './applications.usecase.js';
import { checkCampaignRules, createCampaignSchema, toAdminCampaign, toCampaignInput, updateCampaignSchema } from './campaign-format.js';

type Deps = Pick<Services, 'repos'>;

async function resolveAssigned(deps: Deps, applicationId: string, sourceIds: string[] | undefined): Promise<string[] | undefined> {
  if (sourceIds === undefined) return undefined;
  const found = await deps.repos.customers.findBySourceIds(applicationId, sourceIds);
  const known = new Map(found.map((c) => [c.sourceId, c.id]));
  const missing = sourceIds.filter((s) => !known.has(s));
  if (missing.length) throw adminInvalid(`"assigned_source_ids" contains unknown customers: ${missing.slice(0, 10).join(', ')}`);
  return sourceIds.map((s) => known.get(s)!);
}

async function checkWallet(deps: Deps, applicationId: string, c: Pick<Campaign, 'discount'>) {
  const walletId = c.discount.walletId;
  if (walletId && !(await deps.repos.wallets.findByWalletId(applicationId, walletId)))
    throw adminInvalid('"discount.wallet_id" is not a wallet of this application');
}

async function present(deps: Deps, applicationId: string, c: Campaign) {
  const customers = c.assignedCustomerIds.length ? await deps.repos.customers.findByIds(applicationId, c.assignedCustomerIds) : [];
  return toAdminCampaign(
    c,
    customers.map((x) => x.sourceId),
  );
}

export async function createCampaign(deps: Deps, applicationId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const valid = validateInput(createCampaignSchema, input) as Record<string, any>;
  const assigned = await resolveAssigned(deps, applicationId, valid.assigned_source_ids);
  const campaign = { ...CAMPAIGN_DEFAULTS, ...toCampaignInput(valid, app.timezone, assigned) } as CampaignInput;
  checkCampaignRules(campaign);
  await checkWallet(deps, applicationId, campaign);
  if (campaign.codeType === 'fixed' && (await deps.repos.couponCodes.findByCode(applicationId, campaign.code!))) {
    throw adminInvalid('"code" is already used in this application');
  }
  const created = await deps.repos.campaigns.create(applicationId, campaign);
  if (created.codeType === 'fixed') {
    const { taken } = await deps.repos.couponCodes.insertMany(applicationId, created.id, 'fixed', [created.code!]);
    if (taken.length) {
      // Lost a race for the code: take the campaign out of service rather than leave it codeless.
      await deps.repos.campaigns.update(applicationId, created.id, { status: 'disabled' });
      throw adminInvalid('"code" is already used in this application');
    }
  }
  await deps.repos.applications.bumpConfigVersion(applicationId);
  return present(deps, applicationId, created);
}

export async function updateCampaign(deps: Deps, applicationId: string, campaignId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const current = await deps.repos.campaigns.findById(applicationId, campaignId);
  if (!current) throw adminNotFound('campaign');
  const valid = validateInput(updateCampaignSchema, input) as Record<string, any>;
  const assigned = await resolveAssigned(deps, applicationId, valid.assigned_source_ids);
  const change = toCampaignInput(valid, app.timezone, assigned);
  const merged = { ...current, ...change };
  checkCampaignRules(merged);
  await checkWallet(deps, applicationId, merged);
  const updated = await deps.repos.campaigns.update(applicationId, campaignId, change);
  await deps.repos.applications.bumpConfigVersion(applicationId);
  return present(deps, applicationId, updated!);
}

export async function listCampaigns(deps: Deps, applicationId: string) {
  await requireApplication(deps, applicationId);
  const all = await deps.repos.campaigns.listByApplication(applicationId);
  return { campaigns: await Promise.all(all.map((c) => present(deps, applicationId, c))) };
}

export async function getCampaign(deps: Deps, applicationId: string, campaignId: string) {
  await requireApplication(deps, applicationId);
  const c = await deps.repos.campaigns.findById(applicationId, campaignId);
  if (!c) throw adminNotFound('campaign');
  return present(deps, applicationId, c);
}

// Bulk codes: no 0/O/1/I/L, so a code read aloud or typed is unambiguous.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const codesSchema = Joi.alternatives(
  Joi.object({
    generate: Joi.object({
      count: Joi.number().integer().min(1).max(100_000).required(),
      prefix: Joi.string()
        .pattern(/^[A-Za-z0-9_-]{0,20}$/)
        .allow(''),
      length: Joi.number().integer().min(6).max(32),
    }).required(),
  }),
  Joi.object({
    codes: Joi.array()
      .items(Joi.string().pattern(/^[A-Za-z0-9_-]{1,64}$/))
      .min(1)
      .max(100_000)
      .required(),
  }),
);

/**
 * Generates or imports bulk codes, in batches of 1000; `progress` hears (done, total).
 * Returns how many were inserted and which imported codes were already taken.
 */
export async function addBulkCodes(
  deps: Deps,
  applicationId: string,
  campaignId: string,
  input: unknown,
  progress?: (done: number, total: number) => void,
) {
  await requireApplication(deps, applicationId);
  const campaign = await deps.repos.campaigns.findById(applicationId, campaignId);
  if (!campaign) throw adminNotFound('campaign');
  if (campaign.codeType !== 'bulk') throw adminInvalid('"code_type" of this campaign is fixed: bulk codes need a bulk campaign');
  const valid = validateInput(codesSchema, input) as { generate?: { count: number; prefix?: string; length?: number }; codes?: string[] };
  let inserted = 0;
  const taken: string[] = [];
  if (valid.codes) {
    for (let i = 0; i < valid.codes.length; i += 1000) {
      const r = await deps.repos.couponCodes.insertMany(applicationId, campaignId, 'bulk', valid.codes.slice(i, i + 1000));
      inserted += r.inserted;
      taken.push(...r.taken);
      progress?.(Math.min(i + 1000, valid.codes.length), valid.codes.length);
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
      progress?.(inserted, count);
    }
  }
  await deps.repos.applications.bumpConfigVersion(applicationId);
  return { inserted, taken, total: await deps.repos.couponCodes.countByCampaign(applicationId, campaignId) };
}

export async function listCodes(deps: Deps, applicationId: string, campaignId: string, page: { limit: number; skip: number }) {
  await requireApplication(deps, applicationId);
  if (!(await deps.repos.campaigns.findById(applicationId, campaignId))) throw adminNotFound('campaign');
  const codes = await deps.repos.couponCodes.listByCampaign(applicationId, campaignId, page.limit, page.skip);
  return { codes: codes.map((c) => ({ id: c.id, code: c.code, kind: c.kind })) };
}
