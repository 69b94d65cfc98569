/**
 * `PUT /customers/:source_id` — an application registers or updates its own customer with its
 * own Basic credentials (docs/customers.md), so a storefront's sign-up never needs the admin
 * token. Scoped by the authenticated application (docs/decisions.md#25): another application's
 * customer with the same `source_id` is a different customer, never read or changed here.
 */
import Joi from 'joi';
import type { ApplicationRecord } from '../data/application.repository.js';
import { retryTransient } from '../data/transient.js';
import type { Services } from '../services.js';
import { customerArchived, invalidField } from '../client-errors.js';

const bodySchema = Joi.object({
  name: Joi.string().max(200),
  email: Joi.string().email().max(320),
});

export interface UpsertedCustomer {
  source_id: string;
  customer_id: string;
  name?: string;
  email?: string;
  created: boolean;
  request_id: string;
}

export async function upsertOwnCustomer(
  deps: Pick<Services, 'repos' | 'config'>,
  app: Pick<ApplicationRecord, 'id'>,
  req: { sourceId: string; body: unknown; requestId: string },
): Promise<UpsertedCustomer> {
  const sourceId = req.sourceId.trim();
  if (sourceId.length === 0 || sourceId.length > 256) throw invalidField('source_id', 'source_id should be 1 to 256 characters');
  const { value, error } = bodySchema.validate(req.body ?? {}, { abortEarly: true });
  if (error) throw invalidField(String(error.details[0]!.path[0] ?? 'invalid_payload'), error.details[0]!.message.replace(/"/g, ''));
  // Racing first upserts of one source_id: the database may refuse the losers for concurrency (a
  // write conflict, a deadlock) before the winner's document is visible. The upsert is idempotent:
  // retried, it finds the winner's customer.
  const { customer, created } = await retryTransient(
    () => deps.repos.customers.upsertOne(app.id, { sourceId, ...(value as { name?: string; email?: string }) }),
    deps.config.jobWaitTimeoutMs,
    20,
  );
  if (customer.archivedAt) throw customerArchived();
  return {
    source_id: customer.sourceId,
    customer_id: customer.id,
    ...(customer.name !== undefined ? { name: customer.name } : {}),
    ...(customer.email !== undefined ? { email: customer.email } : {}),
    created,
    request_id: req.requestId,
  };
}
