/** Admin use cases on customers. No in-process cache holds customers: their changes announce nothing (announce.ts). */
import Joi from 'joi';
import type { CustomerRecord } from '../../data/customer.repository.js';
import type { Services } from '../../services.js';
import { adminConflict } from '../../admin-errors.js';
import { foundOr404, validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';
import { toggleArchived, type ArchiveDeps } from './archive.js';
import { idPage, pageOf, parsePageQuery, textCursor } from './paging.js';
import { fromHundredths } from '../../domain/points.js';

type Deps = Pick<Services, 'repos'>;

const upsertSchema = Joi.object({
  customers: Joi.array()
    .items(
      Joi.object({ source_id: Joi.string().min(1).max(256).required(), name: Joi.string().max(200), email: Joi.string().email().max(320) }),
    )
    .min(1)
    .max(10_000)
    .unique('source_id')
    .required(),
});

const present = (c: CustomerRecord) => ({
  id: c.id,
  source_id: c.sourceId,
  ...(c.name ? { name: c.name } : {}),
  ...(c.email ? { email: c.email } : {}),
  archived_at: c.archivedAt,
  ...(c.erasedAt ? { erased_at: c.erasedAt } : {}),
});

/** A customer's personal fields, as stored: what an erasure removes, and what the audit log stops showing. */
export const PERSONAL_FIELDS = ['name', 'email', 'sourceId'] as const;

/**
 * Erases a person (docs/admin-api.md#erasing-a-person): name and e-mail removed, the source id
 * replaced by `erased-<customer id>` in the customer, its stored events, its webhook deliveries
 * (to send, and sent) and the audit log; its recorded carts (docs/results.md "Recorded carts") are
 * removed. Its redemptions, limit counters and wallet ledger refer to it by the service's id and
 * stay exactly as they were. The customer is rewritten last, so an erasure cut short (a crash) is
 * finished by asking again with the same source id; asked again after it finished, it answers the
 * erased customer, and removes any cart recorded since (one a process was still writing: at most
 * CART_RECORD_MS old when the erasure came).
 */
export async function eraseCustomer(deps: Pick<Services, 'repos' | 'now' | 'webhookEndpoints'>, applicationId: string, customer: string) {
  const found = await requireCustomer(deps, applicationId, customer);
  await deps.repos.recordedCarts.eraseCustomer(applicationId, found.id);
  if (found.erasedAt) return present(found);
  const opaque = `erased-${found.id}`;
  const endpoints = await deps.webhookEndpoints.get(applicationId);
  await deps.repos.events.replaceSourceId(applicationId, found.id, opaque);
  await deps.repos.webhookDeliveries.replaceSourceId(
    endpoints.map((e) => e.id),
    found.id,
    opaque,
  );
  await deps.repos.audit.erasePerson(applicationId, found.id, found.sourceId, PERSONAL_FIELDS);
  const erased = await deps.repos.customers.erase(applicationId, found.id, opaque, deps.now());
  return present(erased ?? found);
}

/** Creates or updates customers by `source_id`; an archived customer stays archived (unarchive it). */
export async function upsertCustomers(deps: Deps, applicationId: string, input: unknown) {
  await requireApplication(deps, applicationId);
  const { customers } = validateInput(upsertSchema, input) as { customers: { source_id: string; name?: string; email?: string }[] };
  const saved = await deps.repos.customers.upsertMany(
    applicationId,
    customers.map((c) => ({ sourceId: c.source_id, name: c.name, email: c.email })),
  );
  return { customers: saved.map(present) };
}

/** A page of customers in creation order; archived ones only with `include_archived`. */
export async function listCustomers(deps: Deps, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const q = parsePageQuery(query, ['skip', 'include_archived', 'search']);
  if (q.search !== undefined) {
    // Found by the beginning of `source_id`: in `source_id` order, one index range.
    const rows = await deps.repos.customers.pageBySourceIdPrefix(applicationId, q.search, {
      after: textCursor.decode(q.cursor),
      limit: q.limit + 1,
      includeArchived: q.includeArchived,
    });
    const page = pageOf(rows, q.limit, (c) => textCursor.encode(c.sourceId));
    return { customers: page.rows.map(present), next_cursor: page.next_cursor };
  }
  const page = await idPage(q, (p) => deps.repos.customers.page(applicationId, p));
  return { customers: page.rows.map(present), next_cursor: page.next_cursor };
}

/** One customer (by `source_id` or id, archived too) with its points in every wallet of the application. */
export async function getCustomer(deps: Deps, applicationId: string, customer: string) {
  const found = await requireCustomer(deps, applicationId, customer);
  const [wallets, balances] = await Promise.all([
    deps.repos.wallets.listByApplication(applicationId),
    deps.repos.walletBalances.listByCustomer(applicationId, found.id),
  ]);
  const points = new Map(balances.map((b) => [b.walletDbId, b.points]));
  return {
    ...present(found),
    wallets: wallets.map((w) => ({ wallet_id: w.walletId, wallet_name: w.name, loyalty_points: fromHundredths(points.get(w.id) ?? 0) })),
  };
}

/** The customer named by its `source_id` or the service's id, archived or not. */
export async function requireCustomer(deps: Deps, applicationId: string, customer: string): Promise<CustomerRecord> {
  await requireApplication(deps, applicationId);
  return foundOr404(deps.repos.customers.resolve(applicationId, customer, { includeArchived: true }), 'customer');
}

/**
 * Archives (`archive` true) or unarchives a customer, idempotently. Archived, the client routes
 * treat it as unknown — list and validate answer `invalid source_id`, apply (redeem and revert)
 * `Invalid source_id`, the wallet routes 404 — and it leaves the default listing; its history
 * stays and its `source_id` stays taken.
 */
export async function setCustomerArchived(deps: ArchiveDeps, applicationId: string, customer: string, archive: boolean) {
  const found = await requireCustomer(deps, applicationId, customer);
  const { resource } = await toggleArchived(found, archive, deps.now, (archivedAt) =>
    deps.repos.customers.setArchived(applicationId, found.id, archivedAt),
  );
  return present(resource);
}

/**
 * Deletes a customer without history: no redemption, no wallet entry, assigned to no campaign.
 * Otherwise 409 (archive it instead, or take it out of the campaigns' `assigned_source_ids`).
 */
export async function deleteCustomer(deps: Deps, applicationId: string, customer: string) {
  const found = await requireCustomer(deps, applicationId, customer);
  if ((await deps.repos.redemptions.list(applicationId, { customerId: found.id, limit: 1 })).length > 0)
    throw adminConflict('customer has redemptions: archive it instead');
  if (await deps.repos.walletTransactions.hasEntries(applicationId, { customerId: found.id }))
    throw adminConflict('customer has wallet transactions: archive it instead');
  const assigned = await deps.repos.campaigns.findAssignedTo(applicationId, found.id);
  if (assigned.length > 0)
    throw adminConflict(
      `customer is assigned to campaign ${assigned[0]!.id}: remove it from assigned_source_ids first, or archive the customer`,
    );
  await deps.repos.customers.delete(applicationId, found.id);
  return { id: found.id, deleted: true as const };
}
