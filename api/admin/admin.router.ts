/**
 * Admin API (docs/admin-api.md): configuration outside the client contract (docs/decisions.md#26).
 * `Authorization: Bearer <ADMIN_TOKEN>` (acts as an owner), or an operator's personal token
 * (`Bearer cop_…`: its operator's role and applications). Every route names what it does — read,
 * change, or manage operators — and a role that may not do it is refused with 403, as is a route
 * of an application the operator is not given. Without an ADMIN_TOKEN configured, only operators'
 * tokens are answered; without either, the admin API is off (plain 404 like any unknown route).
 * Routes are thin: each calls one admin use case.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { DomainError } from '../../shared/errors.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { adjustPointsRoute } from './adjust-points.route.js';
import type { WebhookQueue } from '../../shared/queue/webhook-queue.js';
import type { Services } from '../../shared/services.js';
import {
  createApplicationFromAdmin,
  deleteApplication,
  listApplications,
  rotateSecret,
  setApplicationArchived,
  updateApplication,
} from '../../shared/usecases/admin/applications.usecase.js';
import {
  addBulkCodes,
  createCampaign,
  deleteCampaign,
  getCampaign,
  listCampaigns,
  listCodes,
  previewCampaign,
  setCampaignArchived,
  updateCampaign,
} from '../../shared/usecases/admin/campaigns.usecase.js';
import {
  deleteCustomer,
  eraseCustomer,
  getCustomer,
  listCustomers,
  setCustomerArchived,
  upsertCustomers,
} from '../../shared/usecases/admin/customers.usecase.js';
import { explainCart } from '../../shared/usecases/admin/explain.usecase.js';
import { campaignUsage, listRedemptions } from '../../shared/usecases/admin/redemptions.usecase.js';
import {
  createWallet,
  deleteWallet,
  listWallets,
  readLedger,
  setWalletArchived,
  updateWallet,
} from '../../shared/usecases/admin/wallets.usecase.js';
import { listDeliveries, listEvents, pingWebhook, redeliver } from '../../shared/usecases/admin/webhook-deliveries.usecase.js';
import { createWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../shared/usecases/admin/webhooks.usecase.js';
import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { RedisClient } from '../../shared/queue/redis.js';
import { adminForbidden, adminInvalid } from '../../shared/usecases/admin/admin-errors.js';
import {
  actorOfSession,
  CSRF_HEADER,
  csrfTokenOf,
  listSessions,
  revokeSession,
  SESSION_COOKIE,
  signIn,
  type LoginThrottle,
} from '../../shared/usecases/admin/sessions.usecase.js';
import { loginThrottle } from './login-throttle.js';
import { auditedChange, listAudit, type AuditedChange, type TargetType } from '../../shared/usecases/admin/audit.usecase.js';
import { notFoundRoute } from '../middleware/error-handler.js';
import { presentsToken } from '../../shared/ops/token.js';
import { ADMIN_TOKEN_ACTOR, may, reaches, refusalOf, type Actor, type AdminAction } from '../../shared/domain/roles.js';
import {
  actorOfToken,
  createOperator,
  createToken,
  getOperator,
  listOperators,
  listTokens,
  revokeToken,
  updateOperator,
} from '../../shared/usecases/admin/operators.usecase.js';

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
      if (!actor) return next(new DomainError('unauthorized', 'unauthorized', 'admin token invalid', { code: 401 }));
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

/** `POST /admin/sessions`: sign in (no credentials needed to call it; throttled). */
function signInRoute(services: Services, throttle: LoginThrottle): RequestHandler {
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

export const actorOf = (res: Response): Actor => res.locals.actor as Actor;

/**
 * A route that answers `status` with the JSON its use case returns. A change to an application's
 * configuration (any method but GET) is announced to every process before the answer: the next
 * request on any replica sees it (shared/cache/config-changes.ts).
 */
const answer =
  (
    services: Services,
    status: number,
    action: AdminAction,
    run: (req: Request, actor: Actor) => Promise<unknown>,
    audit: RouteAudit | null,
  ): RequestHandler =>
  async (req, res) => {
    const actor = actorOf(res);
    if (!may(actor, action)) throw adminForbidden(refusalOf(actor, action));
    let result: unknown;
    try {
      result = audit ? await auditedChange(services, actor, audit(req), () => run(req, actor)) : await run(req, actor);
    } finally {
      // Also after a refusal: a change refused half-way may have written part of itself.
      if (req.method !== 'GET' && req.params.app) await services.changes.announce(String(req.params.app));
    }
    res.status(status).json(result);
  };

type Run = (req: Request, actor: Actor) => Promise<unknown>;

/** What a changing route records in the audit log, read from its request. */
type RouteAudit = (req: Request) => AuditedChange;

/** A route parameter → the kind of resource it names. */
const PARAM_TARGETS: Record<string, TargetType> = {
  app: 'application',
  customer: 'customer',
  wallet: 'wallet',
  campaign: 'campaign',
  webhook: 'webhook',
  operator: 'operator',
  token: 'token',
  session: 'session',
};

/**
 * The audit record of a changing route, from its method and path (docs/admin-api.md#audit-log):
 * `PATCH …/:x` updates x, `DELETE …/:x` deletes it (a token: revokes), `POST …/:x/<verb>` does
 * <verb> to it, `POST …/<collection>` creates one — except `…/customers` (an upsert of many) and
 * `…/codes` (codes added to the campaign).
 */
export function auditOfRoute(method: string, path: string): RouteAudit {
  const segments = path.split('/').filter(Boolean);
  const params = segments.filter((s) => s.startsWith(':')).map((s) => s.slice(1));
  const lastParam = params.at(-1);
  const last = segments.at(-1)!;
  const base = (req: Request) => ({
    application: req.params.app ? String(req.params.app) : null,
    requestId: String(req.id),
  });
  const idOf = (req: Request, param: string | undefined) => (param ? String(req.params[param]) : null);
  if (last.startsWith(':')) {
    const type = PARAM_TARGETS[lastParam!]!;
    const verb = method === 'patch' ? 'update' : type === 'token' || type === 'session' ? 'revoke' : 'delete';
    return (req) => ({ ...base(req), type, verb, id: idOf(req, lastParam) });
  }
  if (last === 'customers')
    return (req) => ({ ...base(req), type: 'customer', verb: 'upsert', id: null, many: 'Customer', body: req.body });
  if (last === 'codes')
    return (req) => ({ ...base(req), type: 'campaign', verb: 'add_codes', id: idOf(req, 'campaign'), many: 'CouponCode', body: req.body });
  const collection = Object.values(PARAM_TARGETS).find((t) => last === `${t}s` || (t === 'application' && last === 'applications'));
  if (collection) return (req) => ({ ...base(req), type: collection, verb: 'create', id: null });
  // `POST …/:x/<verb>`: archive, unarchive, rotate-secret, redeliver, ping.
  const type = PARAM_TARGETS[lastParam!]!;
  return (req) => ({ ...base(req), type, verb: last.replace(/-/g, '_'), id: idOf(req, lastParam) });
}
/** The archive and delete use cases of a resource that belongs to an application. */
type SetArchived = (services: Services, app: string, id: string, archive: boolean) => Promise<unknown>;
type Remove = (services: Services, app: string, id: string) => Promise<unknown>;

/**
 * @param webhooks - the webhook queue (redelivery); without it redelivery answers 503.
 * @param redis - where sign-in failures are counted (read at the first sign-in).
 */
export function adminRouter(
  services: Services,
  webhooks?: WebhookQueue,
  redis: () => RedisClient | undefined = () => undefined,
  jobs?: JobGateway,
): Router {
  const r = Router();
  r.post('/sessions', signInRoute(services, loginThrottle(services.config, redis)));
  r.use(adminAuth(services));
  // A route of an application the operator is not given: refused before anything is read.
  r.param('app', (req, res, next, app: string) =>
    next(reaches(actorOf(res), app) ? undefined : adminForbidden('this operator is not given this application')),
  );
  const p = (req: Request, name: string) => String(req.params[name]);
  /**
   * A route answering `status` (200 unless said) with what its use case returns. What it does
   * (`action`) is a read for GET and a change otherwise, unless said.
   */
  const on = (method: 'get' | 'post' | 'patch' | 'delete', path: string, run: Run, status = 200, action?: AdminAction) =>
    r[method](
      path,
      answer(services, status, action ?? (method === 'get' ? 'read' : 'change'), run, method === 'get' ? null : auditOfRoute(method, path)),
    );
  /** `POST <path>/archive`, `POST <path>/unarchive` and `DELETE <path>` of a resource named by `:<param>`. */
  const lifecycle = (path: string, param: string, setArchived: SetArchived, remove: Remove) => {
    const [app, id] = [(req: Request) => p(req, 'app'), (req: Request) => p(req, param)];
    on('post', `${path}/archive`, (req) => setArchived(services, app(req), id(req), true));
    on('post', `${path}/unarchive`, (req) => setArchived(services, app(req), id(req), false));
    on('delete', path, (req) => remove(services, app(req), id(req)));
  };

  const APP = '/applications/:app';
  on(
    'post',
    '/applications',
    (req, actor) => {
      // A new application would be outside a limited operator's applications.
      if (actor.applications !== null) throw adminForbidden('an operator limited to some applications may not create one');
      return createApplicationFromAdmin(services, req.body);
    },
    201,
  );
  on('get', '/applications', (req, actor) => listApplications(services, req.query, actor.applications));
  on('patch', APP, (req) => updateApplication(services, p(req, 'app'), req.body));
  on('post', `${APP}/rotate-secret`, (req) => rotateSecret(services, p(req, 'app')));
  lifecycle(
    APP,
    'app',
    (s, app, _id, archive) => setApplicationArchived(s, app, archive),
    (s, app) => deleteApplication(s, app),
  );

  const CUSTOMER = `${APP}/customers/:customer`;
  on('post', `${APP}/customers`, (req) => upsertCustomers(services, p(req, 'app'), req.body));
  on('get', `${APP}/customers`, (req) => listCustomers(services, p(req, 'app'), req.query));
  on('get', CUSTOMER, (req) => getCustomer(services, p(req, 'app'), p(req, 'customer')));
  lifecycle(CUSTOMER, 'customer', setCustomerArchived, deleteCustomer);
  on('post', `${CUSTOMER}/erase`, (req) => eraseCustomer(services, p(req, 'app'), p(req, 'customer')));
  on('get', `${CUSTOMER}/wallets/:wallet/ledger`, (req) =>
    readLedger(services, p(req, 'app'), p(req, 'customer'), p(req, 'wallet'), req.query),
  );
  // A manual adjustment: queued on the customer's partition like every wallet operation.
  r.post(`${CUSTOMER}/wallets/:wallet/adjustments`, adjustPointsRoute(services, jobs));

  on('post', `${APP}/wallets`, (req) => createWallet(services, p(req, 'app'), req.body), 201);
  on('get', `${APP}/wallets`, (req) => listWallets(services, p(req, 'app'), req.query));
  on('patch', `${APP}/wallets/:wallet`, (req) => updateWallet(services, p(req, 'app'), p(req, 'wallet'), req.body));
  lifecycle(`${APP}/wallets/:wallet`, 'wallet', setWalletArchived, deleteWallet);

  const CAMPAIGN = `${APP}/campaigns/:campaign`;
  on('post', `${APP}/campaigns`, (req) => createCampaign(services, p(req, 'app'), req.body), 201);
  on('get', `${APP}/campaigns`, (req) => listCampaigns(services, p(req, 'app'), req.query));
  // A dry run: nothing written, nothing audited; a viewer may (it reads what would be saved).
  r.post(
    `${APP}/campaign-preview`,
    answer(services, 200, 'read', (req) => previewCampaign(services, p(req, 'app'), req.body), null),
  );
  on('get', CAMPAIGN, (req) => getCampaign(services, p(req, 'app'), p(req, 'campaign')));
  on('patch', CAMPAIGN, (req) => updateCampaign(services, p(req, 'app'), p(req, 'campaign'), req.body));
  lifecycle(CAMPAIGN, 'campaign', setCampaignArchived, deleteCampaign);
  on('post', `${CAMPAIGN}/codes`, (req) => addBulkCodes(services, p(req, 'app'), p(req, 'campaign'), req.body));
  on('get', `${CAMPAIGN}/codes`, (req) => listCodes(services, p(req, 'app'), p(req, 'campaign'), req.query));
  on('get', `${CAMPAIGN}/usage`, (req) => campaignUsage(services, p(req, 'app'), p(req, 'campaign')));

  on('get', `${APP}/redemptions`, (req) => listRedemptions(services, p(req, 'app'), req.query));
  // "Try a cart": a POST for its body, yet a read — it changes nothing, so viewers may, and no audit entry.
  r.post(
    `${APP}/explain`,
    answer(services, 200, 'read', (req) => explainCart(services, p(req, 'app'), req.body), null),
  );

  const WEBHOOK = `${APP}/webhooks/:webhook`;
  /** The webhook queue, for the routes that queue deliveries; without it they answer 503. */
  const queue = () => {
    if (!webhooks) throw new DomainError('unavailable', 'Service Unavailable', 'the webhook queue is not connected', { code: 503 });
    return webhooks;
  };
  on('post', `${APP}/webhooks`, (req) => createWebhook(services, p(req, 'app'), req.body), 201);
  on('get', `${APP}/webhooks`, (req) => listWebhooks(services, p(req, 'app'), req.query));
  on('patch', WEBHOOK, (req) => updateWebhook(services, p(req, 'app'), p(req, 'webhook'), req.body));
  on('post', `${WEBHOOK}/rotate-secret`, (req) => rotateWebhookSecret(services, p(req, 'app'), p(req, 'webhook'), req.body));
  on('get', `${WEBHOOK}/deliveries`, (req) => listDeliveries(services, p(req, 'app'), p(req, 'webhook'), req.query));
  on(
    'post',
    `${WEBHOOK}/redeliver`,
    async (req) => {
      return redeliver({ ...services, webhooks: queue() }, p(req, 'app'), p(req, 'webhook'), req.body);
    },
    202,
  );
  on(
    'post',
    `${WEBHOOK}/ping`,
    async (req) => {
      return pingWebhook({ ...services, webhooks: queue() }, p(req, 'app'), p(req, 'webhook'), String(req.id));
    },
    202,
  );
  on('get', `${APP}/events`, (req) => listEvents(services, p(req, 'app'), req.query));

  on('get', '/audit', (req, actor) => listAudit(services, actor, req.query));

  // Operators: owners manage them; everyone reads itself and manages its own tokens (the use
  // cases check whose they are).
  const OPERATOR = '/operators/:operator';
  on('post', '/operators', (req) => createOperator(services, req.body), 201, 'manage_operators');
  on('get', '/operators', (req) => listOperators(services, req.query), 200, 'manage_operators');
  on('get', '/operators/me', async (_req, actor) => {
    if (!actor.operatorId) return { kind: actor.kind, role: actor.role, applications: actor.applications };
    return { kind: actor.kind, ...(await getOperator(services, actor, actor.operatorId)) };
  });
  on('get', OPERATOR, (req, actor) => getOperator(services, actor, p(req, 'operator')));
  on('patch', OPERATOR, (req) => updateOperator(services, p(req, 'operator'), req.body), 200, 'manage_operators');
  on('post', `${OPERATOR}/tokens`, (req, actor) => createToken(services, actor, p(req, 'operator'), req.body), 201, 'read');
  on('get', `${OPERATOR}/tokens`, (req, actor) => listTokens(services, actor, p(req, 'operator')), 200, 'read');
  on('delete', `${OPERATOR}/tokens/:token`, (req, actor) => revokeToken(services, actor, p(req, 'operator'), p(req, 'token')), 200, 'read');
  on('get', `${OPERATOR}/sessions`, (req, actor) => listSessions(services, actor, p(req, 'operator')), 200, 'read');
  on(
    'delete',
    `${OPERATOR}/sessions/:session`,
    (req, actor) => revokeSession(services, actor, p(req, 'operator'), p(req, 'session')),
    200,
    'read',
  );
  // Sign out: the session of the cookie ends; the cookie is cleared.
  r.delete('/sessions/current', async (req, res, next) => {
    try {
      const actor = actorOf(res);
      if (!actor.sessionId) throw adminInvalid('signing out needs a session cookie');
      await revokeSession(services, actor, actor.operatorId!, actor.sessionId);
      res.setHeader('Set-Cookie', sessionCookie(req, '', 0));
      res.status(200).json({ signed_out: true });
    } catch (err) {
      next(err);
    }
  });
  return r;
}
