/**
 * Operators and their personal tokens (docs/admin-api.md#operators). Owners (and the service's
 * ADMIN_TOKEN) create operators and set their roles; an operator manages its own tokens, an owner
 * anyone's. A token is shown once, in the answer that creates it. The last enabled owner cannot be
 * demoted or disabled: someone must be able to manage operators without the ADMIN_TOKEN.
 */
import Joi from 'joi';
import { isDuplicateKeyError } from '../../data/db.js';
import type { OperatorRecord, OperatorTokenRecord } from '../../data/operator.repository.js';
import { hashPassword, newToken, TOKEN_PREFIX, tokenDigest } from '../../domain/passwords.js';
import { may, ROLES, type Actor } from '../../domain/roles.js';
import type { Services } from '../../services.js';
import { adminConflict, adminForbidden, adminInvalid, adminNotFound } from '../../admin-errors.js';
import { validateInput } from './admin-input.js';
import { idPage, parsePageQuery } from './paging.js';

type Deps = Pick<Services, 'repos' | 'now' | 'config'>;

const objectId = Joi.string().pattern(/^[0-9a-f]{24}$/, 'an application id');
const applications = Joi.array().items(objectId).unique().allow(null);
/** At least 12 characters (NIST SP 800-63B's floor for a user-chosen secret is 8; we ask for more), at most 256. */
const password = Joi.string().min(12).max(256);
const createSchema = Joi.object({
  email: Joi.string().email({ tlds: false }).max(254).required(),
  name: Joi.string().max(200).allow('').default(''),
  role: Joi.string()
    .valid(...ROLES)
    .required(),
  applications: applications.default(null),
  password,
});
const updateSchema = Joi.object({
  name: Joi.string().max(200).allow(''),
  role: Joi.string().valid(...ROLES),
  applications,
  disabled: Joi.boolean(),
  password,
}).min(1);
const tokenSchema = Joi.object({ name: Joi.string().max(200).allow('').default('') });

/** What the admin API shows of an operator: never its password hash. */
export const presentOperator = (o: OperatorRecord) => ({
  id: o.id,
  email: o.email,
  name: o.name,
  role: o.role,
  applications: o.applications,
  has_password: o.hasPassword,
  disabled: o.disabled,
  created_at: o.createdAt,
  updated_at: o.updatedAt,
});

export const presentToken = (t: OperatorTokenRecord) => ({
  id: t.id,
  name: t.name,
  hint: t.hint,
  last_used_at: t.lastUsedAt,
  revoked_at: t.revokedAt,
  created_at: t.createdAt,
});

/**
 * The actor a Bearer token stands for: an operator's live personal token (its operator enabled),
 * else null. Records the token's use (at most once a minute).
 */
export async function actorOfToken(deps: Deps, token: string): Promise<Actor | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const found = await deps.repos.operators.tokens.findLive(tokenDigest(token));
  if (!found || found.operator.disabled) return null;
  await deps.repos.operators.tokens.touch(found.token, deps.now());
  return operatorActor(found.operator, { tokenId: found.token.id });
}

/** The actor an enabled operator is, through one of its credentials (a personal token or a session). */
export function operatorActor(operator: OperatorRecord, via: { tokenId: string } | { sessionId: string }): Actor {
  return {
    kind: 'operator',
    role: operator.role,
    applications: operator.applications,
    operatorId: operator.id,
    email: operator.email,
    ...via,
  };
}

async function requireOperator(deps: Deps, id: string): Promise<OperatorRecord> {
  const o = await deps.repos.operators.findById(id);
  if (!o) throw adminNotFound('operator');
  return o;
}

/** An owner may act on any operator's tokens and sessions; anyone else on their own only. */
export function mayActOnCredentialsOf(actor: Actor, operatorId: string): boolean {
  return may(actor, 'manage_operators') || actor.operatorId === operatorId;
}

export async function createOperator(deps: Deps, input: unknown) {
  const v = validateInput(createSchema, input) as {
    email: string;
    name: string;
    role: OperatorRecord['role'];
    applications: string[] | null;
    password?: string;
  };
  try {
    const o = await deps.repos.operators.create({
      email: v.email,
      name: v.name,
      role: v.role,
      applications: v.applications,
      passwordHash: v.password ? await hashPassword(v.password, deps.config.passwordHashCost) : null,
    });
    return presentOperator(o);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw adminConflict('an operator with this "email" already exists');
    throw err;
  }
}

export async function listOperators(deps: Deps, query: unknown = {}) {
  const page = await idPage(parsePageQuery(query), (q) => deps.repos.operators.page(q));
  return { operators: page.rows.map(presentOperator), next_cursor: page.next_cursor };
}

/** The operator itself, or another one for whoever may manage operators. */
export async function getOperator(deps: Deps, actor: Actor, id: string) {
  if (!mayActOnCredentialsOf(actor, id)) throw adminForbidden(`the ${actor.role} role may only read its own operator`);
  return presentOperator(await requireOperator(deps, id));
}

export async function updateOperator(deps: Deps, id: string, input: unknown) {
  const v = validateInput(updateSchema, input) as Partial<Pick<OperatorRecord, 'name' | 'role' | 'applications' | 'disabled'>> & {
    password?: string;
  };
  const before = await requireOperator(deps, id);
  const stopsOwning = before.role === 'owner' && !before.disabled && ((v.role && v.role !== 'owner') || v.disabled === true);
  if (stopsOwning && (await deps.repos.operators.countOwners()) <= 1) {
    throw adminConflict('the last enabled owner cannot be demoted or disabled');
  }
  const { password: newPassword, ...changes } = v;
  const o = await deps.repos.operators.update(id, {
    ...changes,
    ...(newPassword ? { passwordHash: await hashPassword(newPassword, deps.config.passwordHashCost) } : {}),
  });
  if (!o) throw adminNotFound('operator');
  return presentOperator(o);
}

export async function createToken(deps: Deps, actor: Actor, operatorId: string, input: unknown) {
  if (!mayActOnCredentialsOf(actor, operatorId)) throw adminForbidden(`the ${actor.role} role may only manage its own tokens`);
  const v = validateInput(tokenSchema, input) as { name: string };
  const operator = await requireOperator(deps, operatorId);
  if (operator.disabled) throw adminInvalid('the operator is disabled');
  const { token, digest } = newToken();
  const t = await deps.repos.operators.tokens.create(operatorId, { name: v.name, digest, hint: token.slice(0, TOKEN_PREFIX.length + 6) });
  return { ...presentToken(t), token };
}

export async function listTokens(deps: Deps, actor: Actor, operatorId: string) {
  if (!mayActOnCredentialsOf(actor, operatorId)) throw adminForbidden(`the ${actor.role} role may only manage its own tokens`);
  await requireOperator(deps, operatorId);
  return { tokens: (await deps.repos.operators.tokens.list(operatorId)).map(presentToken) };
}

export async function revokeToken(deps: Deps, actor: Actor, operatorId: string, tokenId: string) {
  if (!mayActOnCredentialsOf(actor, operatorId)) throw adminForbidden(`the ${actor.role} role may only manage its own tokens`);
  const t = await deps.repos.operators.tokens.revoke(operatorId, tokenId, deps.now());
  if (!t) throw adminNotFound('token');
  return presentToken(t);
}
