import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import type { DocOf } from './stored.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  /** A gift card's code as issued (upper case: shared/domain/gift-cards.ts); null for store credit. */
  code: { type: String, default: null },
  /** Store credit: the customer holding the balance; null for a gift card. */
  customer: { type: Schema.Types.ObjectId, default: null },
  /** What the card is found by, unique per application: `code:<code>` or `customer:<customer id>`. */
  holder: { type: String, required: true },
  /** Cents. Moved only by the entry at slot `version` (shared/usecases/gift-card-ledger.ts). */
  balance: { type: Number, required: true, default: 0 },
  /** Entries applied so far; the next entry takes slot `<_id>:<version>`. */
  version: { type: Number, required: true, default: 0 },
  status: { type: String, enum: ['active', 'disabled'], required: true, default: 'active' },
  /** When it stops paying (null: never). */
  expiresAt: { type: Date, default: null },
  /** The balance it was issued with (cents). */
  initial: { type: Number, required: true, default: 0 },
  /** The operator's note (who it was sold to, the batch). */
  note: { type: String, default: '' },
} as const;
const options = { collection: 'gift_cards', timestamps: true, versionKey: false } as const;

/**
 * A gift card or a customer's store credit: a money balance.
 * Invariant: `balance` (with `status` and `expiresAt`) is what the entry at slot `version - 1`
 * recorded after it; `balance` equals the sum of the applied entries' moves and is never below 0.
 */
export type GiftCardDoc = DocOf<typeof fields, typeof options>;

export const giftCardSchema = new Schema<GiftCardDoc>(fields, options);
// The checkout and the balance read (a card by its code), store credit (a customer's balance): one
// card per code, one store credit per customer, within an application.
giftCardSchema.index({ application: 1, holder: 1 }, { unique: true });
// The admin list, newest first.
giftCardSchema.index({ application: 1, _id: -1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
giftCardSchema.plugin(auditStamped);
