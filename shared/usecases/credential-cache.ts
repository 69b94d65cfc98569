import type { ApplicationRecord, ApplicationRepository } from '../data/application.repository.js';
import { verifySecret } from '../domain/credentials.js';

interface Entry {
  app: ApplicationRecord | null;
  checkedAt: number;
  refreshing: Promise<void> | null;
}

/**
 * Resolves Basic-auth credentials to an application without a database round trip on the hot
 * path. Each API key's record is re-read at most every `checkMs`, so a revoked or rotated secret
 * stops working within about that time in every process. The record also carries the
 * application's `configVersion`, which the campaign cache compares.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly applications: ApplicationRepository,
    private readonly checkMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The active, unarchived application these credentials belong to, or null. */
  async authenticate(apiKey: string, secret: string): Promise<ApplicationRecord | null> {
    const app = await this.lookup(apiKey);
    if (!app || app.status !== 'active' || app.archivedAt) return null;
    return verifySecret(apiKey, secret, app.secretHash) ? app : null;
  }

  private async lookup(apiKey: string): Promise<ApplicationRecord | null> {
    let entry = this.entries.get(apiKey);
    if (!entry) {
      entry = { app: null, checkedAt: 0, refreshing: null };
      // Bounded: unknown keys are cached too (a flood of random keys must not hit the database
      // on every request), so evict the oldest when the map grows large.
      if (this.entries.size >= 10_000) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(apiKey, entry);
    }
    if (this.clock() - entry.checkedAt >= this.checkMs) {
      entry.refreshing ??= this.applications
        .findByApiKey(apiKey)
        .then((app) => {
          entry.app = app;
          entry.checkedAt = this.clock();
        })
        .finally(() => {
          entry.refreshing = null;
        });
      await entry.refreshing;
    }
    return entry.app;
  }
}
