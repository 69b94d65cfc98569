/**
 * Admin use cases on webhook endpoints (docs/admin-api.md, docs/events.md): register, list,
 * update (including disable and re-enable), rotate the signing secret. A secret is shown only in
 * the answer that creates it. Every change is announced to every process (announce.ts): their
 * caches hold each application's list of endpoints, by which events are recorded and signed.
 */
import Joi from 'joi';
import type { WebhookEndpointRecord } from '../../data/webhook-endpoint.repository.js';
import { ALL_EVENTS, EVENT_TYPES } from '../../domain/events.js';
import { DestinationPolicy } from '../../domain/webhook-destination.js';
import { generateWebhookSecret } from '../../domain/webhook-signature.js';
import { destinationRefusal } from '../../net/webhook-client.js';
import type { Services } from '../../services.js';
import { adminInvalid, adminNotFound } from '../../admin-errors.js';
import { validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';
import { idPage, parsePageQuery } from './paging.js';
import { announcing, type AnnounceDeps } from './announce.js';

type Deps = Pick<Services, 'repos' | 'config' | 'now'> & AnnounceDeps;

const url = Joi.string().max(2048);
const eventTypes = Joi.array()
  .items(Joi.string().valid(...EVENT_TYPES, ALL_EVENTS))
  .min(1)
  .unique();
const description = Joi.string().max(500).allow('');

const createSchema = Joi.object({ url: url.required(), event_types: eventTypes.default([ALL_EVENTS]), description });
const updateSchema = Joi.object({ url, event_types: eventTypes, description, status: Joi.string().valid('active', 'disabled') }).min(1);
const rotateSchema = Joi.object({
  previous_secret_expires_in: Joi.number()
    .integer()
    .min(0)
    .max(7 * 86_400)
    .default(86_400),
});

/** What the admin API shows of an endpoint: never its secrets. */
export const presentWebhook = (e: WebhookEndpointRecord) => ({
  id: e.id,
  url: e.url,
  event_types: e.eventTypes,
  description: e.description,
  status: e.status,
  disabled_reason: e.disabledReason,
  disabled_at: e.disabledAt,
  previous_secret_expires_at: e.previousSecretExpiresAt,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

/** Refuses a URL that is not http(s), carries credentials, or reaches a refused address. */
async function checkUrl(deps: Deps, raw: string) {
  const refusal = await destinationRefusal(raw, new DestinationPolicy(deps.config.webhookAllowedCidrs));
  if (refusal) throw adminInvalid(`"url" refused: ${refusal}`);
}

export async function requireWebhook(deps: Pick<Services, 'repos'>, applicationId: string, id: string): Promise<WebhookEndpointRecord> {
  await requireApplication(deps, applicationId);
  const endpoint = await deps.repos.webhookEndpoints.findById(applicationId, id);
  if (!endpoint) throw adminNotFound('webhook');
  return endpoint;
}

export async function createWebhook(deps: Deps, applicationId: string, input: unknown) {
  await requireApplication(deps, applicationId);
  const v = validateInput(createSchema, input) as { url: string; event_types: string[]; description?: string };
  await checkUrl(deps, v.url);
  const secret = generateWebhookSecret();
  const e = await announcing(deps, applicationId, () =>
    deps.repos.webhookEndpoints.create(applicationId, {
      url: v.url,
      eventTypes: v.event_types,
      description: v.description ?? '',
      secret,
    }),
  );
  return { ...presentWebhook(e), secret };
}

/** A page of an application's endpoints (active and disabled) in creation order (paging.ts). */
export async function listWebhooks(deps: Pick<Services, 'repos'>, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const page = await idPage(parsePageQuery(query), (q) => deps.repos.webhookEndpoints.page(applicationId, q));
  return { webhooks: page.rows.map(presentWebhook), next_cursor: page.next_cursor };
}

/** Changes URL, event types, description or status. Disabling cancels its pending deliveries. */
export async function updateWebhook(deps: Deps, applicationId: string, id: string, input: unknown) {
  await requireWebhook(deps, applicationId, id);
  const v = validateInput(updateSchema, input) as {
    url?: string;
    event_types?: string[];
    description?: string;
    status?: 'active' | 'disabled';
  };
  if (v.url !== undefined) await checkUrl(deps, v.url);
  const updated = await announcing(deps, applicationId, async () => {
    const stored = await deps.repos.webhookEndpoints.update(
      applicationId,
      id,
      {
        ...(v.url !== undefined ? { url: v.url } : {}),
        ...(v.event_types !== undefined ? { eventTypes: v.event_types } : {}),
        ...(v.description !== undefined ? { description: v.description } : {}),
        ...(v.status !== undefined ? { status: v.status } : {}),
      },
      deps.now(),
    );
    if (!stored) throw adminNotFound('webhook');
    if (v.status === 'disabled') await deps.repos.webhookDeliveries.cancelPendingOfEndpoint(id, 'endpoint disabled (admin)');
    return stored;
  });
  return presentWebhook(updated);
}

/** A new secret, shown once; the previous one keeps signing (as a second `v1`) for the overlap asked. */
export async function rotateWebhookSecret(deps: Deps, applicationId: string, id: string, input: unknown) {
  const endpoint = await requireWebhook(deps, applicationId, id);
  const v = validateInput(rotateSchema, input ?? {}) as { previous_secret_expires_in: number };
  const secret = generateWebhookSecret();
  const expiresAt = new Date(deps.now().getTime() + v.previous_secret_expires_in * 1000);
  const rotated = await announcing(deps, applicationId, () => deps.repos.webhookEndpoints.rotateSecret(endpoint, secret, expiresAt));
  if (!rotated) throw adminInvalid('the secret was rotated concurrently: retry');
  return { id, secret, previous_secret_expires_at: expiresAt };
}
