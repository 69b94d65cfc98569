/**
 * Admin use cases of gift cards and store credit (docs/gift-cards.md): issue one, many, or from a
 * CSV file; top up; disable and enable; change the expiry; list and read one with its ledger.
 * Amounts are currency units here (like every admin money field), cents inside. Every change of a
 * balance, status or expiry is an entry of the card's ledger (shared/usecases/gift-card-ledger.ts),
 * so a change made while carts spend the card is decided on the state it applies to.
 */
import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import Joi from 'joi';
import { parse } from 'csv-parse/sync';
import type { GiftCardEntryRecord, GiftCardRecord } from '../../data/gift-card.repository.js';
import { cardSlotOf } from '../../data/gift-card.repository.js';
import { cardCodeOf, normalizeCardCode } from '../../domain/gift-cards.js';
import { fromCents, toCents } from '../../domain/money.js';
import type { Services } from '../../services.js';
import { adminConflict, adminInvalid } from '../../admin-errors.js';
import { foundOr404, validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';
import { requireCustomer } from './customers.usecase.js';
import { postCardEntry } from '../gift-card-ledger.js';

type Deps = Pick<Services, 'repos' | 'now'>;

/** Most a card holds, in currency units (a typo guard: 1,000,000.00). */
const MAX_AMOUNT = 1_000_000;
/** Most cards one bulk issue or one CSV import makes. */
export const MAX_BATCH = 1000;

const amountSchema = Joi.number().greater(0).max(MAX_AMOUNT).precision(2).strict();
const codeSchema = Joi.string()
  .trim()
  .min(4)
  .max(64)
  .pattern(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'letters, digits and dashes');
/** An ISO 8601 instant (null: never expires); a JSON body carries it as text. */
const expiresSchema = Joi.string().isoDate().allow(null);
const dateOf = (v: string | null | undefined) => (v ? new Date(v) : null);
const noteSchema = Joi.string().max(500).allow('');

const issueSchema = Joi.object({
  amount: amountSchema.required(),
  code: codeSchema,
  expires_at: expiresSchema,
  note: noteSchema,
});
const bulkSchema = Joi.object({
  count: Joi.number().integer().min(1).max(MAX_BATCH).required(),
  amount: amountSchema.required(),
  /** The codes' prefix (default `GC`). */
  prefix: Joi.string().pattern(/^[A-Z0-9]{1,8}$/, 'up to 8 capital letters or digits'),
  expires_at: expiresSchema,
  note: noteSchema,
});
const importSchema = Joi.object({ csv: Joi.string().min(1).max(1_000_000).required() });
const topUpSchema = Joi.object({ amount: amountSchema.required(), note: noteSchema });
const changeSchema = Joi.object({
  status: Joi.string().valid('active', 'disabled'),
  expires_at: expiresSchema,
}).min(1);
const listSchema = Joi.object({
  limit: Joi.number().integer().min(1).max(200).default(50),
  before: Joi.string().hex().length(24),
  kind: Joi.string().valid('gift_card', 'store_credit'),
});

/** A card as the admin API shows it: amounts in currency units. */
export function presentGiftCard(card: GiftCardRecord, currency: string | null) {
  return {
    id: card.id,
    kind: card.code ? ('gift_card' as const) : ('store_credit' as const),
    code: card.code,
    customer_id: card.customerId,
    balance: fromCents(card.balance),
    initial_amount: fromCents(card.initial),
    currency,
    status: card.status,
    expires_at: card.expiresAt,
    note: card.note,
    created_at: card.createdAt,
  };
}

const presentEntry = (e: GiftCardEntryRecord) => ({
  kind: e.kind,
  amount: fromCents(e.amount),
  balance_before: fromCents(e.before),
  balance_after: fromCents(e.after),
  status: e.status,
  expires_at: e.expiresAt,
  order_id: e.orderId,
  customer_id: e.customerId,
  description: e.description,
  created_at: e.createdAt,
});

/** One card to make: its code (null: store credit), holder, amount in cents, expiry, note. */
interface CardToMake {
  code: string | null;
  customerId?: string | null;
  cents: number;
  expiresAt: Date | null;
  note: string;
}

/**
 * Makes a card: its first entry (slot 0, the issue) then the card in the state that entry leaves,
 * so the ledger always explains the balance. False when its code (or holder) is taken; a crash in
 * between leaves an entry of a card that does not exist, never a card without its entry.
 */
async function makeCard(deps: Deps, applicationId: string, c: CardToMake): Promise<GiftCardRecord | null> {
  const id = new Types.ObjectId().toHexString();
  await deps.repos.giftCards.insertEntry({
    slot: cardSlotOf(id, 0),
    applicationId,
    cardId: id,
    txnId: 'issue',
    kind: 'issue',
    amount: c.cents,
    seq: 0,
    before: 0,
    after: c.cents,
    status: 'active',
    expiresAt: c.expiresAt,
    orderId: null,
    cycle: null,
    customerId: c.customerId ?? null,
    description: c.note,
  });
  const made = await deps.repos.giftCards.create({
    id,
    applicationId,
    code: c.code,
    customerId: c.customerId ?? null,
    note: c.note,
    balanceCents: c.cents,
    status: 'active',
    expiresAt: c.expiresAt,
  });
  return made ? deps.repos.giftCards.findById(applicationId, id) : null;
}

/** A code not taken by a coupon of the application (a coupon's code is found first at checkout). */
async function refuseCouponCode(deps: Deps, applicationId: string, code: string, field = 'code') {
  if (await deps.repos.couponCodes.findByCode(applicationId, code))
    throw adminConflict(`code ${code} is a coupon code of this application`, field);
}

/** POST /admin/applications/{app}/gift-cards: one card, its code given or made. */
export async function issueGiftCard(deps: Deps, applicationId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const v = validateInput(issueSchema, input) as { amount: number; code?: string; expires_at?: string | null; note?: string };
  const code = v.code ? normalizeCardCode(v.code) : cardCodeOf(randomBytes(16));
  await refuseCouponCode(deps, app.id, code);
  const card = await makeCard(deps, app.id, { code, cents: toCents(v.amount), expiresAt: dateOf(v.expires_at), note: v.note ?? '' });
  if (!card) throw adminConflict(`a gift card with code ${code} exists`, 'code');
  return presentGiftCard(card, app.currency);
}

/** POST /admin/applications/{app}/gift-cards/bulk: `count` cards of one amount, codes made here. */
export async function issueGiftCards(deps: Deps, applicationId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const v = validateInput(bulkSchema, input) as {
    count: number;
    amount: number;
    prefix?: string;
    expires_at?: string | null;
    note?: string;
  };
  const cards: GiftCardRecord[] = [];
  // Random codes of about 99 bits: a collision is not expected; one would be made again.
  while (cards.length < v.count) {
    const card = await makeCard(deps, app.id, {
      code: cardCodeOf(randomBytes(16), v.prefix ?? 'GC'),
      cents: toCents(v.amount),
      expiresAt: dateOf(v.expires_at),
      note: v.note ?? '',
    });
    if (card) cards.push(card);
  }
  return { cards: cards.map((c) => presentGiftCard(c, app.currency)) };
}

/** One row of an import, checked. */
interface ImportRow {
  line: number;
  code: string;
  cents: number;
  expiresAt: Date | null;
  note: string;
}

const rowSchema = Joi.object({
  code: codeSchema.required(),
  amount: Joi.number().greater(0).max(MAX_AMOUNT).precision(2).required(),
  expires_at: Joi.date().iso().allow(null),
  note: noteSchema,
});

/**
 * POST /admin/applications/{app}/gift-cards/import: cards from a CSV file (`csv`: its text), a
 * header row naming `code`, `amount` and optionally `expires_at`, `note`. Every row is checked
 * first — format, a code twice in the file, a code taken by a card or a coupon — and a file with
 * any bad row imports nothing: the 400 names each bad row by its line (`fields`: `line 3.amount`).
 * A good file is imported row by row; a code taken meanwhile (another import racing this one) is
 * answered in `not_imported` by its line, every other row imported.
 */
export async function importGiftCards(deps: Deps, applicationId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const { csv } = validateInput(importSchema, input) as { csv: string };
  let records: Record<string, string>[];
  try {
    records = parse(csv, {
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      trim: true,
      bom: true,
    });
  } catch (err) {
    throw adminInvalid(`the file is not valid CSV: ${(err as Error).message}`, { csv: (err as Error).message });
  }
  if (records.length === 0) throw adminInvalid('the file has no rows', { csv: 'the file has no rows' });
  if (records.length > MAX_BATCH) throw adminInvalid(`at most ${MAX_BATCH} rows per file`, { csv: `at most ${MAX_BATCH} rows per file` });
  const header = Object.keys(records[0]!);
  for (const column of ['code', 'amount'])
    if (!header.includes(column))
      throw adminInvalid(`the header row should name ${column}`, { csv: `the header row should name ${column}` });

  const errors: Record<string, string> = {};
  const rows: ImportRow[] = [];
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    const line = i + 2; // the header is line 1
    const raw = {
      code: r.code ?? '',
      amount: r.amount === undefined || r.amount === '' ? undefined : Number(r.amount),
      ...(r.expires_at ? { expires_at: r.expires_at } : {}),
      ...(r.note ? { note: r.note } : {}),
    };
    const { value, error } = rowSchema.validate(raw, { abortEarly: true, convert: true });
    if (error) {
      errors[`line ${line}.${error.details[0]!.path.join('.')}`] = error.details[0]!.message;
      return;
    }
    const code = normalizeCardCode(value.code as string);
    const first = seen.get(code);
    if (first !== undefined) {
      errors[`line ${line}.code`] = `"code" ${code} is on line ${first} too`;
      return;
    }
    seen.set(code, line);
    rows.push({
      line,
      code,
      cents: toCents(value.amount as number),
      expiresAt: (value.expires_at as Date | undefined) ?? null,
      note: (value.note as string | undefined) ?? '',
    });
  });
  const taken = await deps.repos.giftCards.takenCodes(
    app.id,
    rows.map((r) => r.code),
  );
  for (const r of rows) {
    if (taken.has(r.code)) errors[`line ${r.line}.code`] = `"code" ${r.code} is a gift card already`;
    else if (await deps.repos.couponCodes.findByCode(app.id, r.code)) errors[`line ${r.line}.code`] = `"code" ${r.code} is a coupon code`;
  }
  const bad = Object.keys(errors).length;
  if (bad > 0) throw adminInvalid(`${bad} of ${records.length} rows are not valid; nothing was imported`, errors);

  const imported: GiftCardRecord[] = [];
  const notImported: { line: number; code: string; reason: string }[] = [];
  for (const r of rows) {
    const card = await makeCard(deps, app.id, { code: r.code, cents: r.cents, expiresAt: r.expiresAt, note: r.note });
    if (card) imported.push(card);
    else notImported.push({ line: r.line, code: r.code, reason: 'a gift card with this code was issued meanwhile' });
  }
  return { imported: imported.length, cards: imported.map((c) => presentGiftCard(c, app.currency)), not_imported: notImported };
}

async function requireCard(deps: Deps, applicationId: string, cardId: string) {
  return foundOr404(deps.repos.giftCards.findById(applicationId, cardId), 'gift card');
}

/** GET /admin/applications/{app}/gift-cards: newest first, `before` the last id of the previous page. */
export async function listGiftCards(deps: Deps, applicationId: string, query: unknown) {
  const app = await requireApplication(deps, applicationId);
  const q = validateInput(listSchema, query, { query: true }) as { limit: number; before?: string; kind?: 'gift_card' | 'store_credit' };
  const cards = await deps.repos.giftCards.page(app.id, q);
  return {
    gift_cards: cards.map((c) => presentGiftCard(c, app.currency)),
    next_before: cards.length === q.limit ? cards.at(-1)!.id : null,
  };
}

/** GET /admin/applications/{app}/gift-cards/{card}: the card and its ledger, oldest first. */
export async function readGiftCard(deps: Deps, applicationId: string, cardId: string) {
  const app = await requireApplication(deps, applicationId);
  const card = await requireCard(deps, app.id, cardId);
  const entries = await deps.repos.giftCards.entries(app.id, card.id);
  return { ...presentGiftCard(card, app.currency), entries: entries.map(presentEntry) };
}

/**
 * POST /admin/applications/{app}/gift-cards/{card}/top-up: adds `amount` (a disabled or expired card
 * too: it pays again once enabled or its expiry moved). `requestId` names the entry, so the
 * request posts once.
 */
export async function topUpGiftCard(deps: Deps, applicationId: string, cardId: string, input: unknown, requestId: string) {
  const app = await requireApplication(deps, applicationId);
  const v = validateInput(topUpSchema, input) as { amount: number; note?: string };
  const card = await requireCard(deps, app.id, cardId);
  await postCardEntry(deps, {
    applicationId: app.id,
    cardId: card.id,
    txnId: `top-up:${requestId}`,
    op: { kind: 'top_up', cents: toCents(v.amount) },
    description: v.note ?? '',
  });
  return presentGiftCard(await requireCard(deps, app.id, card.id), app.currency);
}

/** PATCH /admin/applications/{app}/gift-cards/{card}: `status` (disable, enable) and `expires_at`, each an entry of the ledger. */
export async function changeGiftCard(deps: Deps, applicationId: string, cardId: string, input: unknown, requestId: string) {
  const app = await requireApplication(deps, applicationId);
  const v = validateInput(changeSchema, input) as { status?: 'active' | 'disabled'; expires_at?: string | null };
  const card = await requireCard(deps, app.id, cardId);
  if (v.status)
    await postCardEntry(deps, {
      applicationId: app.id,
      cardId: card.id,
      txnId: `status:${requestId}`,
      op: { kind: v.status === 'disabled' ? 'disable' : 'enable' },
    });
  if (v.expires_at !== undefined)
    await postCardEntry(deps, {
      applicationId: app.id,
      cardId: card.id,
      txnId: `expiry:${requestId}`,
      op: { kind: 'expiry', expiresAt: dateOf(v.expires_at) },
    });
  return presentGiftCard(await requireCard(deps, app.id, card.id), app.currency);
}

/**
 * POST /admin/applications/{app}/customers/{customer}/store-credit: credits `amount` to the
 * customer's store credit — made (issued with it) on the first credit, topped up after. The
 * customer spends it at checkout with the code `STORE_CREDIT` (docs/gift-cards.md).
 */
export async function creditStoreCredit(deps: Deps, applicationId: string, customer: string, input: unknown, requestId: string) {
  const app = await requireApplication(deps, applicationId);
  const v = validateInput(topUpSchema, input) as { amount: number; note?: string };
  const { id: customerId } = await requireCustomer(deps, app.id, customer);
  const cents = toCents(v.amount);
  const existing = await deps.repos.giftCards.findByCustomer(app.id, customerId);
  const made = existing ? null : await makeCard(deps, app.id, { code: null, customerId, cents, expiresAt: null, note: v.note ?? '' });
  if (made) return presentGiftCard(made, app.currency);
  // It exists (or was made meanwhile by a concurrent first credit): a top-up.
  const card = existing ?? (await deps.repos.giftCards.findByCustomer(app.id, customerId));
  await postCardEntry(deps, {
    applicationId: app.id,
    cardId: card!.id,
    txnId: `top-up:${requestId}`,
    op: { kind: 'top_up', cents },
    description: v.note ?? '',
  });
  return presentGiftCard(await requireCard(deps, app.id, card!.id), app.currency);
}
