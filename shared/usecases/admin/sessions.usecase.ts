/**
 * Operators' browser sessions (docs/admin-api.md#sessions): sign in with e-mail and password, get
 * an httpOnly cookie and a CSRF token; the session ends at its maximum age, after its idle time,
 * on sign-out, or when revoked. An unknown e-mail, a wrong password, an operator without a password
 * or a disabled one all get the same answer after the same work (a password check against a decoy
 * hash when there is no account), and all count as failures for the throttle.
 */
import { createHmac, randomBytes } from 'node:crypto';
import Joi from 'joi';
import type { OperatorSessionRecord } from '../../data/operator.repository.js';
import { decoyHash, hashedAtOtherCost, hashPassword, tokenDigest, verifyPassword } from '../../domain/passwords.js';
import type { Actor } from '../../domain/roles.js';
import type { Services } from '../../services.js';
import { adminForbidden, adminNotFound, tooManySignIns, wrongCredentials } from '../../admin-errors.js';
import { validateInput } from './admin-input.js';
import { mayActOnCredentialsOf, operatorActor, presentOperator } from './operators.usecase.js';

type Deps = Pick<Services, 'repos' | 'now' | 'config'>;

/** The cookie that carries a session (Path=/admin, HttpOnly, SameSite=Strict, Secure behind TLS). */
export const SESSION_COOKIE = 'coupons_session';
/** The header a state-changing request made with the cookie sends its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
const SESSION_PREFIX = 'cos_';

/** Counts failed sign-ins per e-mail and per address (api/admin/login-throttle.ts: Redis, every replica). */
export interface LoginThrottle {
  /** Seconds until a sign-in for this e-mail from this address is accepted again; 0: now. */
  waitFor(email: string, address: string): Promise<number>;
  failed(email: string, address: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

const signInSchema = Joi.object({
  email: Joi.string().max(254).required(),
  password: Joi.string().max(256).required(),
});

/** The CSRF token of a session: derived from its secret cookie value, so nothing more is stored. */
export const csrfTokenOf = (sessionToken: string): string => createHmac('sha256', sessionToken).update('csrf').digest('base64url');

export const presentSession = (s: OperatorSessionRecord) => ({
  id: s.id,
  address: s.address,
  user_agent: s.userAgent,
  created_at: s.createdAt,
  last_seen_at: s.lastSeenAt,
  expires_at: s.expiresAt,
  revoked_at: s.revokedAt,
});

export async function signIn(deps: Deps, throttle: LoginThrottle, input: unknown, client: { address: string; userAgent: string }) {
  const v = validateInput(signInSchema, input) as { email: string; password: string };
  const email = v.email.trim().toLowerCase();
  const wait = await throttle.waitFor(email, client.address);
  if (wait > 0) throw tooManySignIns(wait);
  const found = await deps.repos.operators.findForSignIn(email);
  // The same work whether or not the account exists: a check against a decoy hash costs what a real one does.
  const cost = deps.config.passwordHashCost;
  const matches = await verifyPassword(v.password, found?.passwordHash ?? decoyHash(cost));
  if (!found || !found.passwordHash || found.disabled || !matches) {
    await throttle.failed(email, client.address);
    throw wrongCredentials();
  }
  await throttle.succeeded(email);
  // A password hashed at another cost (PASSWORD_HASH_COST changed since) is hashed again now.
  if (hashedAtOtherCost(found.passwordHash, cost))
    await deps.repos.operators.update(found.id, { passwordHash: await hashPassword(v.password, cost) });
  const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
  const now = deps.now();
  const session = await deps.repos.operators.sessions.create(found.id, {
    digest: tokenDigest(token),
    address: client.address.slice(0, 100),
    userAgent: client.userAgent.slice(0, 300),
    expiresAt: new Date(now.getTime() + deps.config.sessionMaxAgeMs),
    lastSeenAt: now,
  });
  return { token, body: { operator: presentOperator(found), session: presentSession(session), csrf_token: csrfTokenOf(token) } };
}

/** The actor a session cookie stands for (its operator enabled, the session live), else null. Records activity. */
export async function actorOfSession(deps: Deps, token: string): Promise<Actor | null> {
  if (!token.startsWith(SESSION_PREFIX) || token.length > 200) return null;
  const now = deps.now();
  const found = await deps.repos.operators.sessions.findLive(tokenDigest(token), now, new Date(now.getTime() - deps.config.sessionIdleMs));
  if (!found || found.operator.disabled) return null;
  await deps.repos.operators.sessions.touch(found.session, now);
  return operatorActor(found.operator, { sessionId: found.session.id });
}

export async function listSessions(deps: Deps, actor: Actor, operatorId: string) {
  if (!mayActOnCredentialsOf(actor, operatorId)) throw adminForbidden(`the ${actor.role} role may only manage its own sessions`);
  if (!(await deps.repos.operators.findById(operatorId))) throw adminNotFound('operator');
  const now = deps.now();
  const live = await deps.repos.operators.sessions.listLive(operatorId, now, new Date(now.getTime() - deps.config.sessionIdleMs));
  return { sessions: live.map((s) => ({ ...presentSession(s), current: s.id === actor.sessionId })) };
}

export async function revokeSession(deps: Deps, actor: Actor, operatorId: string, sessionId: string) {
  if (!mayActOnCredentialsOf(actor, operatorId)) throw adminForbidden(`the ${actor.role} role may only manage its own sessions`);
  const s = await deps.repos.operators.sessions.revoke(operatorId, sessionId, deps.now());
  if (!s) throw adminNotFound('session');
  return presentSession(s);
}
