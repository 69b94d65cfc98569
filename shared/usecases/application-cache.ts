import type { ApplicationRecord, ApplicationRepository } from '../data/application.repository.js';

/**
 * Applications by id for the workers (their jobs name an application, not credentials), re-read
 * at most every `checkMs` so a configuration change reaches the campaign cache as fast as in the
 * API. Saves one read per job.
 */
export class ApplicationCache {
  private readonly entries = new Map<string, { app: ApplicationRecord | null; at: number }>();

  constructor(
    private readonly applications: ApplicationRepository,
    private readonly checkMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(id: string): Promise<ApplicationRecord | null> {
    const hit = this.entries.get(id);
    if (hit && this.clock() - hit.at < this.checkMs) return hit.app;
    const app = await this.applications.findById(id);
    this.entries.set(id, { app, at: this.clock() });
    return app;
  }
}
