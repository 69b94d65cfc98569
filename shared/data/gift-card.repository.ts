import { Types } from 'mongoose';
import { isDuplicateKeyError, type Models } from './db.js';
import type { GiftCardDoc } from './gift-card.schema.js';
import type { GiftCardEntryDoc } from './gift-card-entry.schema.js';
import type { RecordOf } from './stored.js';
import { normalizeCardCode, type CardState, type CardStatus } from '../domain/gift-cards.js';

/** A gift card or store credit, as the ledger and the admin read it. */
export type GiftCardRecord = RecordOf<GiftCardDoc, 'application' | 'customer', 'holder' | 'status'> & { status: CardStatus };

/** One entry of a card's ledger. */
export type GiftCardEntryRecord = RecordOf<GiftCardEntryDoc, 'application' | 'card' | 'customer', 'status'> & { status: CardStatus };

/** A new card: its id is chosen before its first entry is written (that entry holds slot `<id>:0`). */
export type NewCard = Pick<GiftCardRecord, 'id' | 'applicationId' | 'code' | 'customerId' | 'note'> & CardState;

export const holderOfCode = (code: string) => `code:${normalizeCardCode(code)}`;
export const holderOfCustomer = (customerId: string) => `customer:${customerId}`;
export const cardSlotOf = (cardId: string, version: number) => `${cardId}:${version}`;

const toRecord = (d: GiftCardDoc): GiftCardRecord => ({
  id: String(d._id),
  applicationId: String(d.application),
  code: d.code ?? null,
  customerId: d.customer ? String(d.customer) : null,
  balance: d.balance,
  version: d.version,
  status: d.status as CardStatus,
  expiresAt: d.expiresAt ?? null,
  initial: d.initial,
  note: d.note ?? '',
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export const entryRecordOf = (d: GiftCardEntryDoc): GiftCardEntryRecord => ({
  id: String(d._id),
  applicationId: String(d.application),
  cardId: String(d.card),
  txnId: d.txnId,
  kind: d.kind,
  amount: d.amount,
  seq: d.seq,
  before: d.before,
  after: d.after,
  status: d.status as CardStatus,
  expiresAt: d.expiresAt ?? null,
  orderId: d.orderId ?? null,
  cycle: d.cycle ?? null,
  customerId: d.customer ? String(d.customer) : null,
  description: d.description ?? '',
  createdAt: d.createdAt,
});

/** An entry as written: at its slot, with the card's state after it. */
export type NewCardEntry = Omit<GiftCardEntryRecord, 'id' | 'createdAt'> & { slot: string };

const docOfEntry = (e: NewCardEntry) => ({
  _id: e.slot,
  application: new Types.ObjectId(e.applicationId),
  card: new Types.ObjectId(e.cardId),
  txnId: e.txnId,
  kind: e.kind,
  amount: e.amount,
  seq: e.seq,
  before: e.before,
  after: e.after,
  status: e.status,
  expiresAt: e.expiresAt,
  orderId: e.orderId,
  cycle: e.cycle,
  customer: e.customerId ? new Types.ObjectId(e.customerId) : null,
  description: e.description,
  createdAt: new Date(),
});

const scoped = (applicationId: string, id: string) => ({ _id: new Types.ObjectId(id), application: new Types.ObjectId(applicationId) });
const isObjectId = (id: string) => /^[0-9a-f]{24}$/i.test(id);

export function giftCardRepository({ GiftCard, GiftCardEntry }: Models) {
  return {
    /** Creates a card in the state its first entry (slot 0, written before) leaves it; false when its code (or holder) is taken. */
    async create(card: NewCard): Promise<boolean> {
      try {
        await GiftCard.create({
          _id: new Types.ObjectId(card.id),
          application: new Types.ObjectId(card.applicationId),
          code: card.code,
          customer: card.customerId ? new Types.ObjectId(card.customerId) : null,
          holder: card.code ? holderOfCode(card.code) : holderOfCustomer(card.customerId!),
          balance: card.balanceCents,
          version: 1,
          status: card.status,
          expiresAt: card.expiresAt,
          initial: card.balanceCents,
          note: card.note,
        });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    async findById(applicationId: string, id: string): Promise<GiftCardRecord | null> {
      if (!isObjectId(id)) return null;
      const d = await GiftCard.findOne(scoped(applicationId, id)).lean<GiftCardDoc>();
      return d ? toRecord(d) : null;
    },
    async findByCode(applicationId: string, code: string): Promise<GiftCardRecord | null> {
      if (!code || code.length > 128) return null;
      const d = await GiftCard.findOne({ application: new Types.ObjectId(applicationId), holder: holderOfCode(code) }).lean<GiftCardDoc>();
      return d ? toRecord(d) : null;
    },
    async findByCustomer(applicationId: string, customerId: string): Promise<GiftCardRecord | null> {
      const d = await GiftCard.findOne({
        application: new Types.ObjectId(applicationId),
        holder: holderOfCustomer(customerId),
      }).lean<GiftCardDoc>();
      return d ? toRecord(d) : null;
    },
    /** Codes of `codes` already taken in the application (a bulk issue or an import checks them first). */
    async takenCodes(applicationId: string, codes: string[]): Promise<Set<string>> {
      const ds = await GiftCard.find(
        { application: new Types.ObjectId(applicationId), holder: { $in: codes.map(holderOfCode) } },
        { code: 1 },
      ).lean<GiftCardDoc[]>();
      return new Set(ds.map((d) => normalizeCardCode(d.code ?? '')));
    },
    /** A page of the application's cards, newest first (`before`: the last id of the previous page). */
    async page(
      applicationId: string,
      q: { limit: number; before?: string; kind?: 'gift_card' | 'store_credit' },
    ): Promise<GiftCardRecord[]> {
      const ds = await GiftCard.find({
        application: new Types.ObjectId(applicationId),
        ...(q.before ? { _id: { $lt: new Types.ObjectId(q.before) } } : {}),
        ...(q.kind === 'gift_card' ? { code: { $ne: null } } : q.kind === 'store_credit' ? { customer: { $ne: null } } : {}),
      })
        .sort({ _id: -1 })
        .limit(q.limit)
        .lean<GiftCardDoc[]>();
      return ds.map(toRecord);
    },
    /**
     * Moves the card from `version` to `version + 1` with the entry at that slot (its state after).
     * Matches nothing when someone already did: the version guard applies an entry once.
     */
    async applyAtVersion(applicationId: string, id: string, version: number, after: CardState): Promise<void> {
      await GiftCard.updateOne(
        { ...scoped(applicationId, id), version },
        { $set: { balance: after.balanceCents, status: after.status, expiresAt: after.expiresAt, version: version + 1 } },
      );
    },

    // --- Entries ---------------------------------------------------------------------------------

    /** Writes an entry at its slot; false when the slot, or the card's txnId, is taken. */
    async insertEntry(entry: NewCardEntry): Promise<boolean> {
      try {
        await GiftCardEntry.collection.insertOne(docOfEntry(entry) as never);
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /** The entry at `slot`, and this txnId's entry of the card (either may be missing). */
    async findSlotOrTxn(cardId: string, slot: string, txnId: string) {
      const ds = await GiftCardEntry.find({ card: new Types.ObjectId(cardId), $or: [{ _id: slot }, { txnId }] }).lean<GiftCardEntryDoc[]>();
      const rs = ds.map(entryRecordOf);
      return { atSlot: rs.find((r) => r.id === slot) ?? null, mine: rs.find((r) => r.txnId === txnId) ?? null };
    },
    /** An order's spends and refunds on a card, oldest cycle first. */
    async orderEntries(applicationId: string, cardId: string, orderId: string): Promise<GiftCardEntryRecord[]> {
      const ds = await GiftCardEntry.find({
        application: new Types.ObjectId(applicationId),
        card: new Types.ObjectId(cardId),
        orderId,
      }).lean<GiftCardEntryDoc[]>();
      return ds.map(entryRecordOf).sort((a, b) => (a.cycle ?? 0) - (b.cycle ?? 0) || a.seq - b.seq);
    },
    // --- The exactness verifier (shared/usecases/verify-exactness.usecase.ts) ---------------------

    /** A page of the application's cards in `_id` order, after `after` (a card id): what the verifier recounts. */
    async verifierPage(
      applicationId: string,
      after: string | null,
      limit: number,
    ): Promise<Pick<GiftCardRecord, 'id' | 'balance' | 'version'>[]> {
      const ds = await GiftCard.find(
        { application: new Types.ObjectId(applicationId), ...(after ? { _id: { $gt: new Types.ObjectId(after) } } : {}) },
        { _id: 1, balance: 1, version: 1 },
      )
        .sort({ _id: 1 })
        .limit(limit)
        .lean<GiftCardDoc[]>();
      return ds.map((d) => ({ id: String(d._id), balance: d.balance, version: d.version }));
    },
    /**
     * The application's entries whose slot (`_id`, `<card>:<version>`) is in `range`, after `after`,
     * in `_id` order: the slots of a page of cards (a range of the `_id` index).
     */
    async slotPage(
      applicationId: string,
      range: { from: string; to: string },
      after: string | null,
      limit: number,
    ): Promise<{ _id: string; amount: number; after: number }[]> {
      return GiftCardEntry.find(
        { application: new Types.ObjectId(applicationId), _id: { $gt: after ?? range.from, $lt: range.to } },
        { _id: 1, amount: 1, after: 1 },
      )
        .sort({ _id: 1 })
        .limit(limit)
        .lean<{ _id: string; amount: number; after: number }[]>();
    },
    /** A card's ledger, oldest first. */
    async entries(applicationId: string, cardId: string, limit = 500): Promise<GiftCardEntryRecord[]> {
      const ds = await GiftCardEntry.find({ application: new Types.ObjectId(applicationId), card: new Types.ObjectId(cardId) })
        .sort({ seq: 1 })
        .limit(limit)
        .lean<GiftCardEntryDoc[]>();
      return ds.map(entryRecordOf);
    },
  };
}
export type GiftCardRepository = ReturnType<typeof giftCardRepository>;
