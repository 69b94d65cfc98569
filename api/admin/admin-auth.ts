/**
 * Who calls the admin API: `Authorization: Bearer <ADMIN_TOKEN>` (acts as an owner), an operator's
 * personal token (`Bearer cop_…`: its operator's role and applications), or an operator's browser
 * session (its cookie). Without an ADMIN_TOKEN configured, only operators' credentials are
 * answered; without any, the admin API is off (plain 404 like any unknown route).
 */
import type { Request, RequestHandler, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import { ADMIN_TOKEN_ACTOR, type Actor } from '../../shared/domain/roles.js';
import { presentsToken } from '../../shared/ops/token.js';
import type { Services } from '../../shared/services.js';
import { adminForbidden, adminTokenInvalid } from '../../shared/admin-errors.js';
import { actorOfToken } from '../../shared/usecases/admin/operators.usecase.js';
import { actorOfSession, CSRF_HEADER, csrfTokenOf, SESSION_COOKIE } from '../../shared/usecases/admin/sessions.usecase.js';
import { notFoundRoute } from '../middleware/error-handler.js';

const OPERATOR_BEARER = /^Bearer\s+(cop_\S+)\s*$/i;

/** The session cookie's value, if the request carries one. */
const sessionCookieOf = (req: Request): string | undefined => {
  const header = req.headers.cookie;
  return header && header.length <= 8192 ? parseCookie(header)[SESSION_COOKIE] : undefined;
};

/**
 * Whether a request to Bull Board (read-only) comes from an operator's browser session that may
 * see every application: the queues hold every application's jobs, so an operator limited to some
 * applications is refused like anyone without credentials.
 */
export async function sessionMaySeeQueues(services: Services, req: Request): Promise<boolean> {
  const session = req.headers.authorization ? undefined : sessionCookieOf(req);
  if (!session) return false;
  const actor = await actorOfSession(services, session);
  return actor !== null && actor.applications === null;
}

/** Methods that change nothing: no CSRF token needed with a session cookie. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Who is calling, in `res.locals.actor`: the ADMIN_TOKEN or an operator's token (`Authorization`),
 * else an operator's browser session (its cookie; a change also needs the session's CSRF token in
 * `X-CSRF-Token`, else 403). 401 for anything else.
 */
export function adminAuth(services: Services): RequestHandler {
  const token = services.config.adminToken;
  return async (req, res, next) => {
    const header = req.headers.authorization;
    const personal = header && header.length <= 4096 ? OPERATOR_BEARER.exec(header) : null;
    const session = header ? undefined : sessionCookieOf(req);
    if (!token && !personal && !session) return notFoundRoute(req, res, next);
    try {
      const actor =
        token && presentsToken(header, token)
          ? ADMIN_TOKEN_ACTOR
          : personal
            ? await actorOfToken(services, personal[1]!)
            : session
              ? await actorOfSession(services, session)
              : null;
      if (!actor) return next(adminTokenInvalid());
      if (session && !SAFE_METHODS.has(req.method)) {
        const sent = req.headers[CSRF_HEADER];
        if (typeof sent !== 'string' || !sameText(sent, csrfTokenOf(session)))
          return next(adminForbidden(`a change made with a session cookie needs its CSRF token in ${CSRF_HEADER}`));
      }
      res.locals.actor = actor;
      res.locals.sessionToken = session;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The caller {@link adminAuth} found. */
export const actorOf = (res: Response): Actor => res.locals.actor as Actor;
