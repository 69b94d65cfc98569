/**
 * Signing in and out of a browser session (docs/admin-api.md#sessions): `POST /admin/sessions`
 * (no credentials needed to call it; throttled) sets the session cookie, `DELETE
 * /admin/sessions/current` ends the cookie's session and clears it. Neither configures anything:
 * no role check, no audit entry.
 */
import type { Request, RequestHandler } from 'express';
import { stringifySetCookie } from 'cookie';
import type { Services } from '../../shared/services.js';
import { adminInvalid } from '../../shared/admin-errors.js';
import { revokeSession, SESSION_COOKIE, signIn, type LoginThrottle } from '../../shared/usecases/admin/sessions.usecase.js';
import { actorOf } from './admin-auth.js';

/** The session cookie: scoped to the admin API, never readable by scripts, never sent cross-site; Secure behind TLS. */
const sessionCookie = (req: Request, value: string, maxAgeSeconds: number) =>
  stringifySetCookie({
    name: SESSION_COOKIE,
    value,
    path: '/admin',
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    maxAge: maxAgeSeconds,
  });

/** `POST /admin/sessions`: sign in. */
export function signInRoute(services: Services, throttle: LoginThrottle): RequestHandler {
  return async (req, res, next) => {
    try {
      const { token, body } = await signIn(services, throttle, req.body, {
        address: req.ip ?? '',
        userAgent: String(req.headers['user-agent'] ?? ''),
      });
      res.setHeader('Set-Cookie', sessionCookie(req, token, Math.floor(services.config.sessionMaxAgeMs / 1000)));
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(body);
    } catch (err) {
      const wait = (err as { retryAfter?: number }).retryAfter;
      if (wait) res.setHeader('Retry-After', String(wait));
      next(err);
    }
  };
}

/** `DELETE /admin/sessions/current`: sign out (after the admin auth: the session of the cookie ends; the cookie is cleared). */
export function signOutRoute(services: Services): RequestHandler {
  return async (req, res, next) => {
    try {
      const actor = actorOf(res);
      if (!actor.sessionId) throw adminInvalid('signing out needs a session cookie');
      await revokeSession(services, actor, actor.operatorId!, actor.sessionId);
      res.setHeader('Set-Cookie', sessionCookie(req, '', 0));
      res.status(200).json({ signed_out: true });
    } catch (err) {
      next(err);
    }
  };
}
