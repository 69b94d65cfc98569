/**
 * The audit log (docs/admin-api.md#audit-log): every change made through the admin API — so also
 * through the command line and the console — records who, when, the action, the target, and the
 * fields that changed, before and after (secrets never).
 *
 * No change without its entry, without transactions: the entry is written `pending` first, the
 * change runs with its writes stamped with the entry's id (shared/data/audit-stamp.ts), then the
 * entry is committed. A process that dies in between leaves a pending entry; the next reader
 * resolves it from the stamp — stamped (or, for a delete, the target gone): committed; not stamped
 * once the change cannot still be running: abandoned. Only committed entries are listed.
 */
import type { AuditActor, AuditChanges, AuditTarget } from '../../data/audit-entry.schema.js';
import type { AuditEntryRecord, AuditFilter, StampedModel } from '../../data/audit-entry.repository.js';
import { withAuditStamp } from '../../data/audit-stamp.js';
import type { Actor } from '../../domain/roles.js';
import { isDomainError } from '../../errors.js';
import type { Services } from '../../services.js';
import Joi from 'joi';
import { adminForbidden, adminInvalid } from '../../admin-errors.js';
import { PERSONAL_FIELDS } from './customers.usecase.js';
import { DEFAULT_LIMIT, idCursor, MAX_LIMIT, pageOf } from './paging.js';

export type AuditDeps = Pick<Services, 'repos' | 'config' | 'now'>;

/** The kinds of resource a change can be about, and where each is read and stamped. */
export const TARGET_TYPES = [
  'application',
  'customer',
  'wallet',
  'gift_card',
  'campaign',
  'webhook',
  'operator',
  'token',
  'session',
] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

const isObjectId = (id: string) => /^[0-9a-f]{24}$/i.test(id);

const TARGETS: Record<
  TargetType,
  { model: StampedModel; find: (application: string | null, id: string) => Record<string, unknown> | null }
> = {
  application: { model: 'Application', find: (_app, id) => (isObjectId(id) ? { _id: id } : null) },
  customer: {
    model: 'Customer',
    find: (app, id) => ({ application: app, ...(isObjectId(id) ? { $or: [{ _id: id }, { sourceId: id }] } : { sourceId: id }) }),
  },
  // Routes name a wallet by its wallet_id; the log by the service's id.
  wallet: {
    model: 'Wallet',
    find: (app, id) => ({ application: app, ...(isObjectId(id) ? { $or: [{ _id: id }, { walletId: id }] } : { walletId: id }) }),
  },
  gift_card: { model: 'GiftCard', find: (app, id) => (isObjectId(id) ? { _id: id, application: app } : null) },
  campaign: { model: 'Campaign', find: (app, id) => (isObjectId(id) ? { _id: id, application: app } : null) },
  webhook: { model: 'WebhookEndpoint', find: (app, id) => (isObjectId(id) ? { _id: id, application: app } : null) },
  operator: { model: 'Operator', find: (_app, id) => (isObjectId(id) ? { _id: id } : null) },
  token: { model: 'OperatorToken', find: (_app, id) => (isObjectId(id) ? { _id: id } : null) },
  session: { model: 'OperatorSession', find: (_app, id) => (isObjectId(id) ? { _id: id } : null) },
};

/** What one admin route changes: `<type>.<verb>`, the target's id (null until created), and where its writes land. */
export interface AuditedChange {
  type: TargetType;
  verb: string;
  /** The target's id from the route; null for a create (taken from the answer's `id`) or a change of many. */
  id: string | null;
  application: string | null;
  /** A change of many documents (bulk codes, bulk customers): the entry records the request, not a diff; stamps are looked for here. */
  many?: StampedModel;
  /** The request body, recorded (redacted) for a change of many. */
  body?: unknown;
  requestId?: string;
}

/** Fields never recorded: secrets (shown as changed, never their values), and bookkeeping. */
const SECRET = /secret|password|digest|hash|token$/i;
const SKIPPED = new Set(['_id', 'auditIds', 'createdAt', 'updatedAt', '__v', 'configVersion']);

/** A document as the log keeps it: JSON values (ids as text, dates ISO), secrets redacted, bookkeeping left out. */
export function auditView(doc: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!doc) return null;
  const plain = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(plain)) {
    if (SKIPPED.has(k)) continue;
    out[k] = SECRET.test(k) && v !== null && v !== undefined ? '[redacted]' : v;
  }
  return out;
}

/** The fields whose value differs between two views (a secret that changed shows as redacted on both sides). */
export function diffOf(before: Record<string, unknown> | null, after: Record<string, unknown> | null): AuditChanges {
  const changes: AuditChanges = {};
  for (const k of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])) {
    const [b, a] = [before?.[k] ?? null, after?.[k] ?? null];
    if (JSON.stringify(b) !== JSON.stringify(a)) changes[k] = { before: b, after: a };
  }
  return changes;
}

/** A secret rotated keeps its redacted text on both sides: compare the raw values to tell it changed. */
function secretsChanged(before: Record<string, unknown> | null, after: Record<string, unknown> | null, changes: AuditChanges) {
  for (const k of new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]))
    if (SECRET.test(k) && !SKIPPED.has(k) && JSON.stringify(before?.[k] ?? null) !== JSON.stringify(after?.[k] ?? null))
      changes[k] = { before: before?.[k] == null ? null : '[redacted]', after: after?.[k] == null ? null : '[redacted]' };
  return changes;
}

const actorOf = (actor: Actor): AuditActor => ({
  kind: actor.kind,
  operatorId: actor.operatorId ?? null,
  email: actor.email ?? null,
  tokenId: actor.tokenId ?? null,
});

/** The application a change is filed under: its own for an application. */
const applicationOf = (target: AuditTarget, targetId: string | null) =>
  target.application ?? (target.type === 'application' ? targetId : null);

/** A pending entry younger than this may still have its change running: it is left for later. */
const PENDING_GRACE_MS = 10 * 60_000;

async function snapshotOf(deps: AuditDeps, type: TargetType, application: string | null, id: string | null) {
  const filter = id ? TARGETS[type].find(application, id) : null;
  return filter ? deps.repos.audit.snapshot(TARGETS[type].model, filter) : null;
}

/** The target after the change: by its id, or — created by it — by the change's stamp. */
function afterOf(deps: AuditDeps, e: Pick<AuditEntryRecord, 'id' | 'target'>) {
  const type = e.target.type as TargetType;
  if (e.target.id) return snapshotOf(deps, type, e.target.application, e.target.id);
  return deps.repos.audit.snapshot(TARGETS[type].model, { auditIds: e.id });
}

/** Redacts a request body for the record of a change of many. */
function redactBody(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body ?? null, (k, v: unknown) => (k && SECRET.test(k) && v != null ? '[redacted]' : v))) as unknown;
}

/** How a change that answered came out: made, refused (nothing of it applies), or not known yet (it may still apply). */
export type ChangeState = 'made' | 'refused' | 'may_apply';

/**
 * Runs `change` as an audited change of `actor`: its entry written pending, its writes stamped,
 * the entry committed with what changed. A refused change (it throws, or `stateOf` says so of its
 * result) leaves no entry unless it wrote part of itself (then the entry is committed from its
 * stamp); one that may still apply leaves its entry pending, for a later read to settle.
 */
export async function auditedChange<T>(
  deps: AuditDeps,
  actor: Actor,
  what: AuditedChange,
  change: () => Promise<T>,
  stateOf: (result: T) => ChangeState = () => 'made',
): Promise<T> {
  const { repos } = deps;
  // Earlier changes of this target left pending by a dead process are settled first: their stamp
  // may be pushed out of the target's last ids by later changes.
  if (what.id) for (const e of await repos.audit.pendingFor(what.id)) await resolvePending(deps, e);
  const beforeRaw = what.many ? null : await snapshotOf(deps, what.type, what.application, what.id);
  // An erasure must not record what it erases: neither the target's state before nor its values.
  const erasing = what.verb === 'erase';
  const entry = await repos.audit.insertPending({
    at: deps.now(),
    actor: actorOf(actor),
    action: `${what.type}.${what.verb}`,
    target: { type: what.type, id: beforeRaw ? String(beforeRaw._id) : what.id, application: what.application } satisfies AuditTarget,
    before: erasing ? null : auditView(beforeRaw),
    // A change of many records its request (known now; a recovered entry keeps it).
    changes: what.many ? { request: { before: null, after: redactBody(what.body) } } : null,
    requestId: what.requestId ?? null,
  });
  failpoint(deps, 'before-change');
  let result: T;
  try {
    result = await withAuditStamp(entry.id, change);
  } catch (err) {
    // A refusal settles the entry now (committed if part of the change was written, else
    // abandoned). A 503 that does not say "not applied" may still apply, so its entry stays
    // pending and a later read settles it.
    const mayStillApply = isDomainError(err) && err.kind === 'unavailable' && err.extra.applied !== false;
    await resolvePending(deps, entry, !mayStillApply).catch(() => undefined);
    throw err;
  }
  const state = stateOf(result);
  if (state !== 'made') {
    await resolvePending(deps, entry, state === 'refused').catch(() => undefined);
    return result;
  }
  failpoint(deps, 'after-change');
  let targetId = entry.target.id;
  let changes: AuditChanges;
  if (entry.changes) changes = entry.changes;
  else {
    const afterRaw = what.verb === 'delete' ? null : await afterOf(deps, entry);
    if (afterRaw) targetId ??= String(afterRaw._id);
    changes = secretsChanged(beforeRaw, afterRaw, diffOf(auditView(beforeRaw), auditView(afterRaw)));
    if (erasing)
      for (const k of Object.keys(changes))
        if ((PERSONAL_FIELDS as readonly string[]).includes(k)) changes[k] = { before: '[erased]', after: changes[k]!.after };
  }
  await repos.audit.commit(entry.id, { changes, targetId, application: applicationOf(entry.target, targetId), recovered: false });
  return result;
}

/** The change's process kills itself here when the test asks (AUDIT_FAILPOINT; never in production). */
function failpoint(deps: AuditDeps, at: 'before-change' | 'after-change') {
  if (deps.config.auditFailpoint === at) process.kill(process.pid, 'SIGKILL');
}

/**
 * Settles a pending entry from the stamp: committed when its change was made, abandoned when it was
 * not and can no longer be (older than the grace, or `settled`: its change has returned).
 */
async function resolvePending(deps: AuditDeps, e: AuditEntryRecord, settled = false): Promise<void> {
  const type = e.target.type as TargetType;
  if (!TARGETS[type]) return;
  const verb = e.action.slice(e.action.indexOf('.') + 1);
  const now = await afterOf(deps, e);
  let made: boolean;
  if (verb === 'delete') made = e.before !== null && now === null;
  else if (verb === 'adjust_points') made = await adjustmentApplied(deps, e);
  else {
    made = await deps.repos.audit.stamped(TARGETS[type].model, e.id);
    // Codes added to a campaign stamp the codes, not the campaign.
    if (!made && type === 'campaign') made = await deps.repos.audit.stamped('CouponCode', e.id);
  }
  if (made) {
    // The entry kept its target's view before the change (secrets redacted: a rotated secret shows in the action only).
    const changes = e.changes ?? diffOf(e.before, verb === 'delete' ? null : auditView(now));
    const targetId = e.target.id ?? (now ? String(now._id) : null);
    await deps.repos.audit.commit(e.id, { changes, targetId, application: applicationOf(e.target, targetId), recovered: !settled });
  } else if (settled || deps.now().getTime() - e.at.getTime() > PENDING_GRACE_MS) await deps.repos.audit.abandon(e.id);
}

/** An adjustment's ledger entry was posted (its id was recorded with the request before it was queued; a refused debit leaves a refused entry). */
async function adjustmentApplied(deps: AuditDeps, e: AuditEntryRecord): Promise<boolean> {
  const request = e.changes?.request?.after as { txn_id?: string } | undefined;
  if (!request?.txn_id || !e.target.id || !e.target.application) return false;
  const customer = await deps.repos.customers.resolve(e.target.application, e.target.id, { includeArchived: true });
  if (customer === null) return false;
  return (await deps.repos.walletTransactions.findByTxnId(e.target.application, customer.id, request.txn_id))?.stored === 'posted';
}

/** The log's filters as the admin API takes them, besides `limit` and `cursor` (docs/admin-api.md#audit-log). */
const AUDIT_QUERY = Joi.object({
  limit: Joi.number().integer().min(1),
  cursor: Joi.string().min(1).max(512),
  target_type: Joi.string().valid(...TARGET_TYPES),
  target_id: Joi.string().min(1).max(256),
  application: Joi.string().hex().length(24),
  operator: Joi.string().hex().length(24),
  actor_kind: Joi.string().valid('admin_token', 'operator'),
  action: Joi.string().min(1).max(64),
  from: Joi.date().iso(),
  to: Joi.date().iso(),
});

export function parseAuditQuery(query: unknown): { limit: number; cursor?: string; filter: AuditFilter } {
  const { value, error } = AUDIT_QUERY.validate(query ?? {}, { abortEarly: false, convert: true });
  if (error) throw adminInvalid(error.details.map((d) => d.message).join('; '));
  const v = value as Record<string, any>;
  return {
    limit: Math.min(v.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    cursor: v.cursor as string | undefined,
    filter: {
      targetType: v.target_type,
      targetId: v.target_id,
      application: v.application,
      operatorId: v.operator,
      actorKind: v.actor_kind,
      action: v.action,
      from: v.from,
      to: v.to,
    },
  };
}

/** How many pending entries a listing settles before it reads (the rest wait for the next one). */
const RESOLVE_PER_READ = 100;

/** One page of the log, newest first (`next_cursor` for the next, null on the last). */
export async function listAudit(deps: AuditDeps, actor: Actor, query: unknown) {
  const q = parseAuditQuery(query);
  for (const e of await deps.repos.audit.pending(RESOLVE_PER_READ)) await resolvePending(deps, e);
  // An operator limited to some applications reads the entries of one of them at a time.
  if (actor.applications !== null) {
    if (!q.filter.application)
      throw adminInvalid('an operator limited to some applications reads the log of one of them: add application=<id>');
    if (!actor.applications.includes(q.filter.application)) throw adminForbidden('this operator is not given this application');
  }
  const rows = await deps.repos.audit.page(q.filter, { limit: q.limit + 1, before: idCursor.decode(q.cursor) });
  const page = pageOf(rows, q.limit, (last) => idCursor.encode(last.id));
  return { entries: page.rows.map(presentEntry), next_cursor: page.next_cursor };
}

export const presentEntry = (e: AuditEntryRecord) => ({
  id: e.id,
  at: e.at.toISOString(),
  actor: { kind: e.actor.kind, operator_id: e.actor.operatorId, email: e.actor.email, token_id: e.actor.tokenId },
  action: e.action,
  target: { type: e.target.type, id: e.target.id, application: e.target.application },
  changes: e.changes ?? {},
  request_id: e.requestId,
  recovered: e.recovered,
});
