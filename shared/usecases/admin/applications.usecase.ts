/** Admin use cases on applications (create lives in create-application.usecase.ts). */
import Joi from 'joi';
import type { ApplicationRecord } from '../../data/application.repository.js';
import { generateSecret, hashSecret } from '../../domain/credentials.js';
import { isValidTimeZone } from '../../domain/periods.js';
import type { Services } from '../../services.js';
import { adminInvalid, adminNotFound, validateInput } from './admin-errors.js';
import { createApplication } from './create-application.usecase.js';

type Deps = Pick<Services, 'repos'>;

const timezone = Joi.string()
  .max(64)
  .custom((v: string) => {
    if (!isValidTimeZone(v)) throw new Error('unknown');
    return v;
  })
  .messages({ 'any.custom': '{{#label}} must be an IANA timezone' });
const currency = Joi.string().pattern(/^[A-Z]{3}$/, 'ISO 4217 code');

export const createApplicationSchema = Joi.object({
  name: Joi.string().min(1).max(200).required(),
  timezone: timezone.required(),
  currency: currency.required(),
});
const updateSchema = Joi.object({
  name: Joi.string().min(1).max(200),
  timezone,
  currency,
  status: Joi.string().valid('active', 'disabled'),
}).min(1);

/** What the admin API shows of an application: never the secret nor its hash. */
export const presentApplication = (a: ApplicationRecord) => ({
  id: a.id,
  name: a.name,
  timezone: a.timezone,
  currency: a.currency,
  status: a.status,
  api_key: a.apiKey,
  created_at: a.createdAt,
});

export async function createApplicationFromAdmin(deps: Deps, input: unknown) {
  const valid = validateInput(createApplicationSchema, input);
  const { application, apiKey, secret } = await createApplication(deps, valid);
  return { ...presentApplication(application), api_key: apiKey, secret };
}

export async function listApplications(deps: Deps) {
  return (await deps.repos.applications.list()).map(presentApplication);
}

export async function requireApplication(deps: Deps, id: string): Promise<ApplicationRecord> {
  const app = /^[0-9a-f]{24}$/.test(id) ? await deps.repos.applications.findById(id) : null;
  if (!app) throw adminNotFound('application');
  return app;
}

export async function updateApplication(deps: Deps, id: string, input: unknown) {
  await requireApplication(deps, id);
  const valid = validateInput(updateSchema, input);
  const updated = await deps.repos.applications.update(id, valid);
  if (!updated) throw adminNotFound('application');
  return presentApplication(updated);
}

/** A new secret, shown once; the old one stops working within the cache interval. */
export async function rotateSecret(deps: Deps, id: string) {
  const app = await requireApplication(deps, id);
  const secret = generateSecret();
  await deps.repos.applications.update(id, { secretHash: hashSecret(app.apiKey, secret) });
  return { id, api_key: app.apiKey, secret };
}

export { adminInvalid };
