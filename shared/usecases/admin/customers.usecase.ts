/** Admin use cases on customers. */
import Joi from 'joi';
import type { CustomerRecord } from '../../data/customer.repository.js';
import type { Services } from '../../services.js';
import { validateInput } from './admin-errors.js';
import { requireApplication } from './applications.usecase.js';

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
});

export async function upsertCustomers(deps: Deps, applicationId: string, input: unknown) {
  await requireApplication(deps, applicationId);
  const { customers } = validateInput(upsertSchema, input) as { customers: { source_id: string; name?: string; email?: string }[] };
  const saved = await deps.repos.customers.upsertMany(
    applicationId,
    customers.map((c) => ({ sourceId: c.source_id, name: c.name, email: c.email })),
  );
  return { customers: saved.map(present) };
}

export async function listCustomers(deps: Deps, applicationId: string, page: { limit: number; skip: number }) {
  await requireApplication(deps, applicationId);
  return { customers: (await deps.repos.customers.list(applicationId, page.limit, page.skip)).map(present) };
}
