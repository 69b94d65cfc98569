/**
 * Paging of every admin listing: `limit` (default 100; above 1000 reads as 1000) and an opaque
 * `cursor` — the `next_cursor` of the previous page, `null` on the last one. Pages follow a stable
 * order (by `_id`, or by time then `_id` for journals), so rows added meanwhile never shift a page.
 * A cursor encodes the last row's sort key; its format is not part of the API.
 */
import Joi from 'joi';
import type { IdPageQuery } from '../../data/admin-queries.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../data/webhook-delivery.schema.js';
import { REDEMPTION_STATES, type RedemptionState } from '../../data/redemption.schema.js';
import { EVENT_TYPES, type EventType } from '../../domain/events.js';
import { adminInvalid } from '../../admin-errors.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** What a listing accepts besides `limit` and `cursor` (each listing documents its own). */
export type PageOption =
  | 'skip'
  | 'include_archived'
  | 'customer'
  | 'campaign'
  | 'status'
  | 'event'
  | 'type'
  | 'order_id'
  | 'order_id_prefix'
  | 'state'
  | 'from'
  | 'to'
  | 'search';

export interface PageQuery {
  limit: number;
  /** The cursor as sent; decode it with the listing's own decoder. */
  cursor?: string;
  /** Rows to pass over after the cursor: taken only where docs/admin-api.md documents it (customers, codes). */
  skip: number;
  includeArchived: boolean;
  customer?: string;
  campaign?: string;
  /** A delivery status (webhook deliveries). */
  status?: DeliveryStatus;
  /** An event id (webhook deliveries). */
  event?: string;
  /** An event type (events). */
  type?: EventType;
  /** Redemptions: one order's cycles, a state, a time range [from, to). */
  orderId?: string;
  /** Redemptions: the orders whose id begins with it. */
  orderIdPrefix?: string;
  state?: RedemptionState;
  from?: Date;
  to?: Date;
  /** Customers: the beginning of a `source_id`. */
  search?: string;
}

const OPTIONS: Record<PageOption, Joi.Schema> = {
  skip: Joi.number().integer().min(0),
  include_archived: Joi.boolean(),
  customer: Joi.string().min(1).max(256),
  campaign: Joi.string().min(1).max(64),
  status: Joi.string().valid(...DELIVERY_STATUSES),
  event: Joi.string().min(1).max(64),
  type: Joi.string().valid(...EVENT_TYPES),
  order_id: Joi.string().min(1).max(256),
  order_id_prefix: Joi.string().min(1).max(256),
  state: Joi.string().valid(...REDEMPTION_STATES),
  from: Joi.date().iso(),
  to: Joi.date().iso(),
  search: Joi.string().min(1).max(256),
};

/**
 * Reads a listing's query string. Unknown parameters and bad values are 400s naming them;
 * strings are converted (`limit=20`, `include_archived=true`).
 */
export function parsePageQuery(query: unknown, options: readonly PageOption[] = []): PageQuery {
  const schema = Joi.object({
    limit: Joi.number().integer().min(1),
    cursor: Joi.string().min(1).max(512),
    ...Object.fromEntries(options.map((o) => [o, OPTIONS[o]])),
  });
  const { value, error } = schema.validate(query ?? {}, { abortEarly: false, convert: true });
  if (error) throw adminInvalid(error.details.map((d) => d.message).join('; '));
  const v = value as Record<string, any>;
  return {
    limit: Math.min(v.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    ...(v.cursor !== undefined ? { cursor: v.cursor as string } : {}),
    skip: v.skip ?? 0,
    includeArchived: v.include_archived ?? false,
    ...(v.customer !== undefined ? { customer: v.customer as string } : {}),
    ...(v.campaign !== undefined ? { campaign: v.campaign as string } : {}),
    ...(v.status !== undefined ? { status: v.status as DeliveryStatus } : {}),
    ...(v.event !== undefined ? { event: v.event as string } : {}),
    ...(v.type !== undefined ? { type: v.type as EventType } : {}),
    ...(v.order_id !== undefined ? { orderId: v.order_id as string } : {}),
    ...(v.order_id_prefix !== undefined ? { orderIdPrefix: v.order_id_prefix as string } : {}),
    ...(v.state !== undefined ? { state: v.state as RedemptionState } : {}),
    ...(v.from !== undefined ? { from: v.from as Date } : {}),
    ...(v.to !== undefined ? { to: v.to as Date } : {}),
    ...(v.search !== undefined ? { search: v.search as string } : {}),
  };
}

const encode = (key: (string | number)[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
function decode(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
const invalidCursor = () => adminInvalid('"cursor" is not a cursor of this listing (send the next_cursor of the previous page)');
const isObjectId = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{24}$/.test(v);

/** Cursors of listings ordered by `_id` (an ObjectId). */
export const idCursor = {
  encode: (id: string) => encode([id]),
  decode(cursor: string | undefined): string | undefined {
    if (cursor === undefined) return undefined;
    const key = decode(cursor);
    if (!Array.isArray(key) || key.length !== 1 || !isObjectId(key[0])) throw invalidCursor();
    return key[0];
  },
};

/** Cursors of listings ordered by a text key (customers found by `source_id`). */
export const textCursor = {
  encode: (key: string) => encode(['t', key]),
  decode(cursor: string | undefined): string | undefined {
    if (cursor === undefined) return undefined;
    const key = decode(cursor);
    if (!Array.isArray(key) || key.length !== 2 || key[0] !== 't' || typeof key[1] !== 'string') throw invalidCursor();
    return key[1];
  },
};

/** Cursors of journals ordered by time, then `_id` (a string). */
export const timeCursor = {
  encode: (at: Date, id: string) => encode([at.getTime(), id]),
  decode(cursor: string | undefined): { at: Date; id: string } | undefined {
    if (cursor === undefined) return undefined;
    const key = decode(cursor);
    if (!Array.isArray(key) || key.length !== 2 || !Number.isSafeInteger(key[0]) || typeof key[1] !== 'string') throw invalidCursor();
    return { at: new Date(key[0] as number), id: key[1] };
  },
};

/**
 * One page from the rows a repository returned for `limit + 1`: the extra row only says that
 * another page exists, and the cursor points after the last row shown.
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (last: T) => string): { rows: T[]; next_cursor: string | null } {
  const shown = rows.slice(0, limit);
  return { rows: shown, next_cursor: rows.length > limit ? cursorOf(shown.at(-1)!) : null };
}

/** One page of a listing ordered by `_id`: `read` is asked for `limit + 1` rows after the cursor. */
export async function idPage<T extends { id: string }>(q: PageQuery, read: (page: IdPageQuery) => Promise<T[]>) {
  const rows = await read({ limit: q.limit + 1, after: idCursor.decode(q.cursor), skip: q.skip, includeArchived: q.includeArchived });
  return pageOf(rows, q.limit, (r) => idCursor.encode(r.id));
}
