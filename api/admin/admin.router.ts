/**
 * Admin API (docs/admin-api.md): configuration outside the client contract (docs/decisions.md#26).
 * Built from the route table (api/admin/routes/*.routes.ts: one row per route, admin-route.ts):
 * every row names what it does — read, change, or manage operators — and a role that may not do
 * it is refused with 403, as is a route of an application the operator is not given. Who calls:
 * admin-auth.ts; signing in and out: sign-in.route.ts.
 */
import { Router } from 'express';
import { reaches } from '../../shared/domain/roles.js';
import type { BacktestQueue } from '../../shared/queue/backtest-queue.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { RedisClient } from '../../shared/queue/redis.js';
import type { WebhookQueue } from '../../shared/queue/webhook-queue.js';
import type { Services } from '../../shared/services.js';
import { adminForbidden } from '../../shared/admin-errors.js';
import { actorOf, adminAuth } from './admin-auth.js';
import { handlerOf, type AdminRoute } from './admin-route.js';
import { loginThrottle } from './login-throttle.js';
import { APPLICATION_ROUTES } from './routes/applications.routes.js';
import { CAMPAIGN_ROUTES } from './routes/campaigns.routes.js';
import { CUSTOMER_ROUTES } from './routes/customers.routes.js';
import { GIFT_CARD_ROUTES } from './routes/gift-cards.routes.js';
import { OPERATOR_ROUTES } from './routes/operators.routes.js';
import { WALLET_ROUTES } from './routes/wallets.routes.js';
import { WEBHOOK_ROUTES } from './routes/webhooks.routes.js';
import { signInRoute, signOutRoute } from './sign-in.route.js';

/** Every route of the admin API but signing in and out, in the order they are matched. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  ...APPLICATION_ROUTES,
  ...CUSTOMER_ROUTES,
  ...WALLET_ROUTES,
  ...GIFT_CARD_ROUTES,
  ...CAMPAIGN_ROUTES,
  ...WEBHOOK_ROUTES,
  ...OPERATOR_ROUTES,
];

/**
 * @param webhooks - the webhook queue (redelivery, ping); without it those routes answer 503.
 * @param redis - where sign-in failures are counted (read at the first sign-in).
 * @param jobs - the partition queues (points adjustments); without them that route answers 503.
 * @param backtests - the backtest queue; without it a backtest cannot be asked (503).
 */
export function adminRouter(
  services: Services,
  webhooks?: WebhookQueue,
  redis: () => RedisClient | undefined = () => undefined,
  jobs?: JobGateway,
  backtests?: BacktestQueue,
): Router {
  const r = Router();
  r.post('/sessions', signInRoute(services, loginThrottle(services.config, redis)));
  r.use(adminAuth(services));
  // A route of an application the operator is not given: refused before anything is read.
  r.param('app', (req, res, next, app: string) =>
    next(reaches(actorOf(res), app) ? undefined : adminForbidden('this operator is not given this application')),
  );
  for (const route of ADMIN_ROUTES) r[route.method](route.path, handlerOf({ services, webhooks, jobs, backtests }, route));
  r.delete('/sessions/current', signOutRoute(services));
  return r;
}
