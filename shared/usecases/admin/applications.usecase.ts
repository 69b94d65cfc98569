/**
 * Admin use cases on applications (create lives in create-application.usecase.ts). A change of an
 * application is announced to every process (announce.ts): their credential and application caches
 * hold it. A new one is not: its id and API key are made here, so no process can hold them yet.
 */
import Joi from 'joi';
import type { ApplicationRecord } from '../../data/application.repository.js';
import { generateSecret, hashSecret } from '../../domain/credentials.js';
import { isValidTimeZone } from '../../domain/periods.js';
import type { Services } from '../../services.js';
import { adminConflict, adminNotFound } from '../../admin-errors.js';
import { validateInput } from './admin-input.js';
import { createApplication } from './create-application.usecase.js';
import { toggleArchived, type ArchiveDeps } from './archive.js';
import { announcing, type AnnounceDeps } from './announce.js';
import { idPage, parsePageQuery } from './paging.js';

type Deps = Pick<Services, 'repos'>;
type ChangeDeps = Deps & AnnounceDeps;

export const timezoneSchema = Joi.string()
  .max(64)
  .custom((v: string) => {
    if (!isValidTimeZone(v)) throw new Error('unknown');
    return v;
  })
  .messages({ 'any.custom': '{{#label}} must be an IANA timezone' });
export const currencySchema = Joi.string().pattern(/^[A-Z]{3}$/, 'ISO 4217 code');

/** Only `name` is required: the timezone defaults to UTC, the currency to none. */
export const createApplicationSchema = Joi.object({
  name: Joi.string().min(1).max(200).required(),
  timezone: timezoneSchema.default('UTC'),
  currency: currencySchema.allow(null).default(null),
});
/** `{requests, window_seconds}` (0 requests: no limit), or null for the service's default. */
const rateLimitSchema = Joi.object({
  requests: Joi.number().integer().min(0).max(1_000_000).required(),
  window_seconds: Joi.number().integer().min(1).max(3600).default(1),
}).allow(null);
/** Several promotions on one cart (docs/stacking.md): the keys sent change, the others keep their value. */
const stackingSchema = Joi.object({
  max_coupons: Joi.number().integer().min(1).max(10),
  automatic_promotions: Joi.boolean(),
}).min(1);
/** Loyalty settings (docs/wallets.md "A redeem as the order's report"). */
const loyaltySchema = Joi.object({
  earn_on_redeem: Joi.boolean(),
}).min(1);
/** Recording carts for backtests (docs/results.md "Recorded carts"): the keys sent change, the others keep their value. */
const cartRecordingSchema = Joi.object({
  enabled: Joi.boolean(),
  retention_days: Joi.number().integer().min(1).max(400),
}).min(1);
const updateSchema = Joi.object({
  name: Joi.string().min(1).max(200),
  timezone: timezoneSchema,
  currency: currencySchema.allow(null),
  status: Joi.string().valid('active', 'disabled'),
  rate_limit: rateLimitSchema,
  stacking: stackingSchema,
  /** Gift cards and store credit at checkout (docs/gift-cards.md). */
  gift_cards_at_checkout: Joi.boolean(),
  loyalty: loyaltySchema,
  cart_recording: cartRecordingSchema,
}).min(1);

/** What the admin API shows of an application: never the secret nor its hash. */
export const presentApplication = (a: ApplicationRecord) => ({
  id: a.id,
  name: a.name,
  timezone: a.timezone,
  currency: a.currency,
  status: a.status,
  rate_limit: a.rateLimit ? { requests: a.rateLimit.requests, window_seconds: a.rateLimit.windowSeconds } : null,
  stacking: { max_coupons: a.stacking.maxCoupons, automatic_promotions: a.stacking.automaticPromotions },
  gift_cards_at_checkout: a.giftCardsAtCheckout,
  loyalty: { earn_on_redeem: a.loyalty.earnOnRedeem },
  cart_recording: { enabled: a.cartRecording.enabled, retention_days: a.cartRecording.retentionDays },
  api_key: a.apiKey,
  created_at: a.createdAt,
  archived_at: a.archivedAt,
});

export async function createApplicationFromAdmin(deps: Deps, input: unknown) {
  const valid = validateInput(createApplicationSchema, input) as { name: string; timezone: string; currency: string | null };
  const { application, apiKey, secret } = await createApplication(deps, valid);
  return { ...presentApplication(application), api_key: apiKey, secret };
}

/** A page of applications in creation order; archived ones only with `include_archived`. */
/** A page of applications; `within`: only those (an operator limited to some applications). */
export async function listApplications(deps: Deps, query: unknown = {}, within: readonly string[] | null = null) {
  const page = await idPage(parsePageQuery(query, ['include_archived']), (q) => deps.repos.applications.page(q, within));
  return { applications: page.rows.map(presentApplication), next_cursor: page.next_cursor };
}

export async function requireApplication(deps: Deps, id: string): Promise<ApplicationRecord> {
  const app = /^[0-9a-f]{24}$/.test(id) ? await deps.repos.applications.findById(id) : null;
  if (!app) throw adminNotFound('application');
  return app;
}

export async function updateApplication(deps: ChangeDeps, id: string, input: unknown) {
  const current = await requireApplication(deps, id);
  const { rate_limit, stacking, loyalty, gift_cards_at_checkout, cart_recording, ...valid } = validateInput(updateSchema, input) as Record<
    string,
    unknown
  > & {
    cart_recording?: { enabled?: boolean; retention_days?: number };
    gift_cards_at_checkout?: boolean;
    rate_limit?: { requests: number; window_seconds: number } | null;
    stacking?: { max_coupons?: number; automatic_promotions?: boolean };
    loyalty?: { earn_on_redeem?: boolean };
  };
  const updated = await announcing(deps, id, () =>
    deps.repos.applications.update(id, {
      ...valid,
      ...(rate_limit !== undefined
        ? { rateLimit: rate_limit && { requests: rate_limit.requests, windowSeconds: rate_limit.window_seconds } }
        : {}),
      ...(gift_cards_at_checkout !== undefined ? { giftCardsAtCheckout: gift_cards_at_checkout } : {}),
      ...(stacking !== undefined
        ? {
            stacking: {
              maxCoupons: stacking.max_coupons ?? current.stacking.maxCoupons,
              automaticPromotions: stacking.automatic_promotions ?? current.stacking.automaticPromotions,
            },
          }
        : {}),
      ...(loyalty !== undefined ? { loyalty: { earnOnRedeem: loyalty.earn_on_redeem ?? current.loyalty.earnOnRedeem } } : {}),
      ...(cart_recording !== undefined
        ? {
            cartRecording: {
              enabled: cart_recording.enabled ?? current.cartRecording.enabled,
              retentionDays: cart_recording.retention_days ?? current.cartRecording.retentionDays,
            },
          }
        : {}),
    }),
  );
  if (!updated) throw adminNotFound('application');
  return presentApplication(updated);
}

/** A new secret, shown once; the old one stops working at once, on every process. */
export async function rotateSecret(deps: ChangeDeps, id: string) {
  const app = await requireApplication(deps, id);
  const secret = generateSecret();
  await announcing(deps, id, () => deps.repos.applications.update(id, { secretHash: hashSecret(app.apiKey, secret) }));
  return { id, api_key: app.apiKey, secret };
}

/**
 * Archives (`archive` true) or unarchives an application, idempotently. Archived, its credentials
 * are refused at once, on every process, and it leaves the default listing; its data and admin
 * routes stay. Unarchived, its credentials work again (status permitting).
 */
export async function setApplicationArchived(deps: ArchiveDeps & AnnounceDeps, id: string, archive: boolean) {
  const app = await requireApplication(deps, id);
  const { resource } = await toggleArchived(app, archive, deps.now, (archivedAt) =>
    announcing(deps, id, () => deps.repos.applications.update(id, { archivedAt })),
  );
  return presentApplication(resource);
}

/** Deletes an empty application; one with customers, wallets or campaigns (archived ones included) is refused (409): archive it instead. */
export async function deleteApplication(deps: ChangeDeps, id: string) {
  await requireApplication(deps, id);
  for (const [what, repo] of [
    ['customers', deps.repos.customers],
    ['wallets', deps.repos.wallets],
    ['campaigns', deps.repos.campaigns],
  ] as const) {
    if (await repo.existsInApplication(id)) throw adminConflict(`application has ${what}: delete them first, or archive the application`);
  }
  await announcing(deps, id, () => deps.repos.applications.delete(id));
  return { id, deleted: true as const };
}
