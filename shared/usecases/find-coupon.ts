/**
 * Finding the one coupon a validate or apply request names (docs/decisions.md#15): `coupon_id` may be a
 * fixed campaign's id, a bulk code's id, the literal `bulk`, or the code itself; either a
 * correct id or a correct code finds it. Codes match case-insensitively (docs/decisions.md#5). Fixed
 * codes come from the in-process campaign cache; bulk codes cost one indexed read.
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import type { Campaign } from '../domain/types.js';
import type { Services } from '../services.js';
import { normalizeCode } from '../data/coupon-code.schema.js';

export interface FoundCoupon {
  campaign: Campaign;
  /** The bulk code's id (counts its own single-use counter); null for fixed coupons. */
  bulkCodeId: string | null;
  /** `coupon_code_id` of responses: the campaign id for fixed coupons, the code's id for bulk. */
  couponCodeId: string;
  /** The code as configured (responses echo this spelling). */
  code: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

export async function findCoupon(
  deps: Pick<Services, 'campaigns' | 'repos'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion'>,
  detail: { coupon_id?: unknown; coupon_code?: unknown },
): Promise<FoundCoupon | null> {
  const set = await deps.campaigns.get(app);
  const fixed = (c: Campaign | undefined): FoundCoupon | null =>
    c && c.codeType === 'fixed' && c.code ? { campaign: c, bulkCodeId: null, couponCodeId: c.id, code: c.code } : null;

  const byCode = async (code: string): Promise<FoundCoupon | null> => {
    if (!code || code.length > 128) return null;
    const hit = fixed(set.byFixedCode.get(normalizeCode(code)));
    if (hit) return hit;
    const row = await deps.repos.couponCodes.findByCode(app.id, code);
    const campaign = row ? set.byId.get(row.campaignId) : undefined;
    if (!row || !campaign) return null;
    return row.kind === 'bulk' ? { campaign, bulkCodeId: row.id, couponCodeId: row.id, code: row.code } : fixed(campaign);
  };

  const code = str(detail.coupon_code);
  const id = str(detail.coupon_id);
  const found = await byCode(code);
  if (found) return found;
  if (!id || id.toLowerCase() === 'bulk') return null;
  const byId = fixed(set.byId.get(id));
  if (byId) return byId;
  const row = await deps.repos.couponCodes.findById(app.id, id);
  const campaign = row ? set.byId.get(row.campaignId) : undefined;
  if (row && campaign)
    return row.kind === 'bulk' ? { campaign, bulkCodeId: row.id, couponCodeId: row.id, code: row.code } : fixed(campaign);
  return id !== code ? byCode(id) : null;
}
