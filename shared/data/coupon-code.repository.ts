import { Types } from 'mongoose';
import { normalizeCode, type CouponCodeDoc } from './coupon-code.schema.js';
import { isDuplicateKeyError, type Models } from './db.js';
import { findIdPage, type IdPageQuery } from './admin-queries.js';
import type { RecordOf } from './stored.js';

export type CouponCodeRecord = RecordOf<CouponCodeDoc, 'campaign', 'application' | 'codeNormalized' | 'createdAt'>;

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
     * Inserts the code of a fixed campaign under the campaign's own id, so that the code has one
     * id everywhere (the campaign id: `coupon_code_id` of list and validate, the admin's code
     * listing). Returns false when the code is already used in this application.
     */
    async insertFixed(applicationId: string, campaignId: string, code: string): Promise<boolean> {
      try {
        await CouponCode.create({
          _id: new Types.ObjectId(campaignId),
          application: new Types.ObjectId(applicationId),
          campaign: new Types.ObjectId(campaignId),
          kind: 'fixed',
          code,
          codeNormalized: normalizeCode(code),
        });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
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
    /** Admin page of a campaign's codes, by `_id`. */
    async listByCampaign(applicationId: string, campaignId: string, q: IdPageQuery) {
      return (await findIdPage(CouponCode, { application: applicationId, campaign: campaignId }, q)).map(toRecord);
    },
    /** Frees every code of a deleted campaign. */
    async deleteByCampaign(applicationId: string, campaignId: string) {
      await CouponCode.deleteMany({ application: applicationId, campaign: campaignId });
    },
    async countByCampaign(applicationId: string, campaignId: string) {
      return CouponCode.countDocuments({ application: applicationId, campaign: campaignId });
    },
  };
}
