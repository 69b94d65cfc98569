import { generateApiKey, generateSecret, hashSecret } from '../../domain/credentials.js';
import type { Repositories } from '../../services.js';

export interface CreateApplicationInput {
  name: string;
  timezone: string;
  /** ISO 4217, or null/absent for none (the default currency of the application's wallets). */
  currency?: string | null;
}

/** Creates an application; the secret is returned here once and stored only as a hash. */
export async function createApplication(deps: { repos: Pick<Repositories, 'applications'> }, input: CreateApplicationInput) {
  const apiKey = generateApiKey();
  const secret = generateSecret();
  const app = await deps.repos.applications.create({
    ...input,
    currency: input.currency ?? null,
    apiKey,
    secretHash: hashSecret(apiKey, secret),
  });
  return { application: app, apiKey, secret };
}
