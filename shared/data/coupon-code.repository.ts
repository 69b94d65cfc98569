import { Types } from 'mongoose';
import { normalizeCode, type CouponCodeDoc } from './coupon-code.schema.js';
import { isDuplicateKeyError, type Models } from './db.js';

export interface CouponCodeRecord {
  id: string;
  campaignId: string;
  kind: 'fixed' | 'bulk';
  code: string;
}

const toRecord = (d: CouponCodeDoc): CouponCodeRecord => ({
  id: String(d._id),
  campaignId: String(d.campaign),
  kind: d.kind,
  code: d.code,
});

export function couponCodeRepository({ CouponCode }: Models) {
  return {
    async findByCode(applicationId: string, code: string) {
      const d = await CouponCode.findOne({ application: applicationId, codeNormalized: normalizeCode(code) }).lean<CouponCodeDoc>();
      return d ? toRecord(d) : null;
    },
    async findById(applicationId: string, id: string) {
      if (!Types.ObjectId.isValid(id) || String(new Types.ObjectId(id)) !== id) return null;
      const d = await CouponCode.findOne({ application: applicationId, _id: id }).lean<CouponCodeDoc>();
      return d ? toRecord(d) : null;
    },
    /**
     * Inserts codes for a campaign; returns the codes refused because they already exist
     * (in this application, fixed or bulk).
     */
    async insertMany(applicationId: string, campaignId: string, kind: 'fixed' | 'bulk', codes: string[]) {
      const docs = codes.map((code) => ({
        application: new Types.ObjectId(applicationId),
        campaign: new Types.ObjectId(campaignId),
        kind,
        code,
        codeNormalized: normalizeCode(code),
      }));
      const taken: string[] = [];
      try {
        await CouponCode.insertMany(docs, { ordered: false });
      } catch (err) {
        const writeErrors = (err as { writeErrors?: { index?: number; err?: { index?: number }; code?: number }[] }).writeErrors;
        if (!writeErrors && !isDuplicateKeyError(err)) throw err;
        for (const e of writeErrors ?? []) {
          const index = e.index ?? e.err?.index;
          if (index !== undefined) taken.push(codes[index]!);
        }
      }
      return { inserted: codes.length - taken.length, taken };
    },
    async listByCampaign(applicationId: string, campaignId: string, limit: number, skip: number) {
      const ds = await CouponCode.find({ application: applicationId, campaign: campaignId })
        .sort({ _id: 1 })
        .skip(skip)
        .limit(limit)
        .lean<CouponCodeDoc[]>();
      return ds.map(toRecord);
    },
    async countByCampaign(applicationId: string, campaignId: string) {
      return CouponCode.countDocuments({ application: applicationId, campaign: campaignId });
    },
  };
}
export type CouponCodeRepository = ReturnType<typeof couponCodeRepository>;
