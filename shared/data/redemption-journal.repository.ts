/**
 * Journal operations of redeem and revert (shared/usecases/apply-coupon.usecase.ts explains the
 * protocol). Every state change is a single-document conditional update.
 */
import { Types } from 'mongoose';
import { isDuplicateKeyError, type Models } from './db.js';
import type { RedemptionDoc } from './redemption.schema.js';

export interface RedemptionRecord {
  id: string;
  campaignId: string;
  customerId: string;
  couponCodeId: string | null;
  orderId: string;
  cycle: number;
  key: string;
  state: RedemptionDoc['state'];
  couponId: string;
  code: string;
  discountCents: number;
  cashbackCents: number;
  cashbackWallet: string | null;
  periods: { day: string; week: string; month: string };
  /** Counter scopes with their limits, decided when the journal was written. */
  scopes: { scope: string; limit: number }[];
  refusal: { reason: string; message: string } | null;
  redeemJobId: string;
  revertJobId: string | null;
  createdAt: Date;
}

type Stored = RedemptionDoc & { redeemJobId?: string; revertJobId?: string | null; scopeLimits?: number[] };

const toRecord = (d: Stored): RedemptionRecord => ({
  id: String(d._id),
  campaignId: String(d.campaign),
  customerId: String(d.customer),
  couponCodeId: d.couponCode ? String(d.couponCode) : null,
  orderId: d.orderId,
  cycle: d.cycle,
  key: d.key,
  state: d.state,
  couponId: d.couponId,
  code: d.code,
  discountCents: d.discountCents,
  cashbackCents: d.cashbackCents,
  cashbackWallet: d.cashbackWallet ?? null,
  periods: d.periods,
  scopes: (d.scopes ?? []).map((scope, i) => ({ scope, limit: d.scopeLimits?.[i] ?? 0 })),
  refusal: d.refusal ?? null,
  redeemJobId: d.redeemJobId ?? '',
  revertJobId: d.revertJobId ?? null,
  createdAt: d.createdAt,
});

/** A redemption's `_id` and the holder key it writes into counters. */
export const redemptionKey = (campaignId: string, orderId: string, cycle: number) => `${campaignId}:${orderId}:${cycle}`;

export function redemptionJournalRepository({ Redemption }: Models) {
  return {
    /**
     * Every cycle of one order with one campaign, oldest first: read by `_id` (cycle 1, 2, … until
     * one is missing), so it costs one indexed read per cycle whatever the collection's size.
     */
    async cycles(applicationId: string, campaignId: string, orderId: string): Promise<RedemptionRecord[]> {
      const out: RedemptionRecord[] = [];
      for (let cycle = 1; ; cycle++) {
        const d = await Redemption.findById(redemptionKey(campaignId, orderId, cycle)).lean<Stored>();
        if (!d || String(d.application) !== applicationId) return out;
        out.push(toRecord(d));
      }
    },
    /** Writes a new cycle in state `pending`; null when that cycle exists already. */
    async insertPending(
      r: Omit<RedemptionRecord, 'id' | 'key' | 'state' | 'refusal' | 'revertJobId' | 'createdAt'> & { applicationId: string },
    ): Promise<RedemptionRecord | null> {
      const key = redemptionKey(r.campaignId, r.orderId, r.cycle);
      try {
        const doc = await Redemption.create({
          _id: key,
          application: new Types.ObjectId(r.applicationId),
          campaign: new Types.ObjectId(r.campaignId),
          customer: new Types.ObjectId(r.customerId),
          couponCode: r.couponCodeId ? new Types.ObjectId(r.couponCodeId) : null,
          orderId: r.orderId,
          cycle: r.cycle,
          key,
          state: 'pending',
          couponId: r.couponId,
          code: r.code,
          discountCents: r.discountCents,
          cashbackCents: r.cashbackCents,
          cashbackWallet: r.cashbackWallet,
          periods: r.periods,
          scopes: r.scopes.map((s) => s.scope),
          scopeLimits: r.scopes.map((s) => s.limit),
          redeemJobId: r.redeemJobId,
          revertJobId: null,
        });
        return toRecord(doc.toObject() as Stored);
      } catch (err) {
        if (isDuplicateKeyError(err)) return null;
        throw err;
      }
    },
    /** Admin listing, newest first (then by `_id`); a page before the cycle `before` when given. */
    async list(
      applicationId: string,
      q: { customerId?: string; campaignId?: string; before?: { at: Date; id: string }; limit: number },
    ): Promise<RedemptionRecord[]> {
      const filter = {
        application: applicationId,
        ...(q.customerId ? { customer: q.customerId } : {}),
        ...(q.campaignId ? { campaign: q.campaignId } : {}),
        ...(q.before ? { $or: [{ createdAt: { $lt: q.before.at } }, { createdAt: q.before.at, _id: { $lt: q.before.id } }] } : {}),
      };
      const ds = await Redemption.find(filter).sort({ createdAt: -1, _id: -1 }).limit(q.limit).lean<Stored[]>();
      return ds.map(toRecord);
    },
    /** Moves a cycle from one of `from` to `to`; returns whether this call moved it. */
    async transition(
      id: string,
      from: RedemptionDoc['state'][],
      to: RedemptionDoc['state'],
      set: Record<string, unknown> = {},
    ): Promise<boolean> {
      const res = await Redemption.updateOne({ _id: id, state: { $in: from } }, { $set: { state: to, ...set } });
      return res.modifiedCount === 1;
    },
  };
}
export type RedemptionJournalRepository = ReturnType<typeof redemptionJournalRepository>;
