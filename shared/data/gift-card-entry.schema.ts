import { Schema } from 'mongoose';
import type { DocOf } from './stored.js';

const fields = {
  /** The slot it holds: `<card>:<version>` (the card's version it applies at). */
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  card: { type: Schema.Types.ObjectId, required: true },
  /** Deterministic per operation (a redemption cycle, an admin request), so a re-run collides with it. */
  txnId: { type: String, required: true },
  /** What it does: issued, topped up, spent at checkout, given back by a revert, or a change of status or expiry. */
  kind: { type: String, enum: ['issue', 'top_up', 'spend', 'refund', 'disable', 'enable', 'expiry'], required: true },
  /** Cents moved: > 0 in, < 0 out, 0 for a change of status or expiry. */
  amount: { type: Number, required: true },
  seq: { type: Number, required: true },
  before: { type: Number, required: true },
  after: { type: Number, required: true },
  /** The card's status and expiry after it: rolling it forward restores them. */
  status: { type: String, enum: ['active', 'disabled'], required: true },
  expiresAt: { type: Date, default: null },
  /** A spend or a refund: the order, its redemption cycle and who redeemed it. */
  orderId: { type: String, default: null },
  cycle: { type: Number, default: null },
  customer: { type: Schema.Types.ObjectId, default: null },
  /** What it is for: the operator's note of a top-up, the order of a spend. */
  description: { type: String, default: '' },
} as const;
const options = { collection: 'gift_card_entries', timestamps: { createdAt: true, updatedAt: false }, versionKey: false } as const;

/** One ledger entry of a gift card or store credit: see shared/usecases/gift-card-ledger.ts. */
export type GiftCardEntryDoc = DocOf<typeof fields, typeof options>;

export const giftCardEntrySchema = new Schema<GiftCardEntryDoc>(fields, options);
// A re-run of an operation finds its entry (one per card and txnId).
giftCardEntrySchema.index({ card: 1, txnId: 1 }, { unique: true });
// A card's ledger in order (admin read), and an order's spends and refunds on a card (redeem, revert).
giftCardEntrySchema.index({ card: 1, seq: 1 });
giftCardEntrySchema.index({ application: 1, card: 1, orderId: 1 });
