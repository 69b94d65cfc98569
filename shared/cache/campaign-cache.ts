import type { ApplicationRecord } from '../data/application.repository.js';
import type { CampaignRepository } from '../data/campaign.repository.js';
import { normalizeCode } from '../data/coupon-code.schema.js';
import type { Campaign } from '../domain/types.js';

export interface CampaignSet {
  version: number;
  all: Campaign[];
  /** Active, unarchived fixed campaigns with a code, in creation order (what list walks). */
  fixed: Campaign[];
  /** Active, unarchived automatic promotions (no code: docs/stacking.md), in creation order. */
  automatic: Campaign[];
  byId: Map<string, Campaign>;
  /** Normalised fixed code → campaign. */
  byFixedCode: Map<string, Campaign>;
}

/**
 * An application's campaign definitions, held in-process. Reloaded (one query) when the
 * application's `configVersion` — fresh within the credential cache's check interval — differs
 * from the loaded one; admins bump it on every campaign or code change.
 */
export class CampaignCache {
  private readonly sets = new Map<string, { set: CampaignSet | null; loading: Promise<CampaignSet> | null; loadingVersion: number }>();

  constructor(private readonly campaigns: CampaignRepository) {}

  async get(app: Pick<ApplicationRecord, 'id' | 'configVersion'>): Promise<CampaignSet> {
    let slot = this.sets.get(app.id);
    if (!slot) {
      slot = { set: null, loading: null, loadingVersion: -1 };
      this.sets.set(app.id, slot);
    }
    if (slot.set && slot.set.version === app.configVersion) return slot.set;
    if (!slot.loading || slot.loadingVersion !== app.configVersion) {
      const s = slot;
      s.loadingVersion = app.configVersion;
      s.loading = this.load(app.id, app.configVersion).then((set) => {
        if (s.loadingVersion === set.version) s.set = set;
        return set;
      });
      s.loading
        .finally(() => {
          if (s.loadingVersion === app.configVersion) s.loading = null;
        })
        .catch(() => {});
    }
    return slot.loading!;
  }

  /** Drops an application's set (`*`: every set): the next read loads it anew. */
  forget(applicationId: string): void {
    if (applicationId === '*') this.sets.clear();
    else this.sets.delete(applicationId);
  }

  private async load(applicationId: string, version: number): Promise<CampaignSet> {
    const all = await this.campaigns.listByApplication(applicationId);
    const live = all.filter((c) => c.status === 'active' && !c.archivedAt);
    const fixed = live.filter((c) => c.codeType === 'fixed' && c.trigger === 'code');
    return {
      version,
      all,
      fixed,
      automatic: live.filter((c) => c.trigger === 'automatic'),
      byId: new Map(all.map((c) => [c.id, c])),
      byFixedCode: new Map(fixed.filter((c) => c.code).map((c) => [normalizeCode(c.code!), c])),
    };
  }
}
