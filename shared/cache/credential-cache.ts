import type { ApplicationRecord, ApplicationRepository } from '../data/application.repository.js';
import { verifySecret } from '../domain/credentials.js';

interface Entry {
  app: ApplicationRecord | null;
  checkedAt: number;
  refreshing: Promise<void> | null;
  /** Bumped when the entry is forgotten: a read begun before must not be kept. */
  generation: number;
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
      entry = { app: null, checkedAt: 0, refreshing: null, generation: 0 };
      // Bounded: unknown keys are cached too (a flood of random keys must not hit the database
      // on every request), so evict the oldest when the map grows large.
      if (this.entries.size >= 10_000) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(apiKey, entry);
    }
    if (this.clock() - entry.checkedAt >= this.checkMs) {
      const e = entry;
      const generation = e.generation;
      e.refreshing ??= this.applications
        .findByApiKey(apiKey)
        .then((app) => {
          if (e.generation !== generation) return;
          e.app = app;
          e.checkedAt = this.clock();
        })
        .finally(() => {
          if (e.generation === generation) e.refreshing = null;
        });
      await e.refreshing;
      // Forgotten while this read was on its way: read again, after the change.
      if (e.generation !== generation) return this.lookup(apiKey);
    }
    return entry.app;
  }

  /** Re-reads at the next request every key of this application (`*`: of every application). */
  forgetApplication(applicationId: string): void {
    for (const entry of this.entries.values()) {
      if (applicationId !== '*' && entry.app?.id !== applicationId) continue;
      entry.generation++;
      entry.checkedAt = 0;
      entry.refreshing = null;
    }
  }
}
