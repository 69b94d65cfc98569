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

/** Per repository (one per process and database): the last upsert queued for each customer. */
const queuesByRepo = new WeakMap<object, Map<string, Promise<unknown>>>();

/** Runs `run` after every earlier call with the same key in this process has settled. */
async function oneAtATime<T>(repo: object, key: string, run: () => Promise<T>): Promise<T> {
  const queues = queuesByRepo.get(repo) ?? new Map<string, Promise<unknown>>();
  queuesByRepo.set(repo, queues);
  const mine = (queues.get(key) ?? Promise.resolve()).then(run);
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  try {
    return await mine;
  } finally {
    if (queues.get(key) === settled) queues.delete(key);
  }
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
  // One customer's upserts in this process run one after another (the first creates it, the next
  // find it), and between processes the database decides: it may refuse a racing first upsert for
  // concurrency (a write conflict, a deadlock) before the winner's document is visible, and the
  // upsert is idempotent, so it is retried and finds the winner's customer. Serialising here keeps
  // a burst of one customer's sign-ups on one replica from racing at all: on the test database,
  // where a unique index is an exclusion constraint, twenty racing inserts of one key deadlock
  // each other in turn (PostgreSQL aborts the longest waiter, so retries keep killing the oldest
  // attempt) for seconds, and for tens of seconds on a loaded machine.
  const { customer, created } = await oneAtATime(deps.repos.customers, `${app.id}\n${sourceId}`, () =>
    retryTransient(
      () => deps.repos.customers.upsertOne(app.id, { sourceId, ...(value as { name?: string; email?: string }) }),
      deps.config.jobWaitTimeoutMs,
      20,
    ),
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
