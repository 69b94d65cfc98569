import { Router, type RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { Services } from '../../shared/services.js';
import type { ClientRoute } from '../../shared/client-errors.js';
import { basicAuth } from '../middleware/auth.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { applyCouponRoute } from './apply-coupon.route.js';
import { bestDealRoute } from './best-deal.route.js';
import { upsertCustomerRoute } from './customers.route.js';
import { listCouponsRoute } from './list-coupons.route.js';
import { validateCouponRoute } from './validate-coupon.route.js';
import { readGiftCardRoute, readStoreCreditRoute } from './gift-cards.route.js';
import { orderReportRoute, readWalletsRoute, walletTransactionRoute } from './wallets.route.js';

/**
 * The five client routes of the contract, each behind Basic auth with its own 401 body, and the
 * application's own customer upsert, best deal and order reports (beyond the contract:
 * docs/customers.md, docs/best-deal.md, docs/wallets.md).
 */
export function clientRouter(services: Services, jobs: JobGateway, shed: (queued: boolean) => RequestHandler): Router {
  const router = Router();
  const limit = rateLimit(services.config, () => jobs.redis);
  const [shedRead, shedQueued] = [shed(false), shed(true)];
  /**
   * Shedding while the process is too late (middleware/limits.ts), Basic auth with the route's own
   * 401 body, then the application's rate limit (docs/rate-limits.md).
   */
  const as = (route: ClientRoute, queued = false) => [queued ? shedQueued : shedRead, basicAuth(services, route), limit];
  router.post('/coupons/list/all', as('list'), listCouponsRoute(services));
  router.post('/coupons/validate', as('validate'), validateCouponRoute(services));
  router.post('/coupons/apply', as('apply', true), applyCouponRoute(services, jobs));
  router.post('/coupons/best-deal', as('best_deal'), bestDealRoute(services));
  router.get('/wallets/customer/:sourceId', as('wallet'), readWalletsRoute(services));
  router.put('/wallets/customer/:sourceId/transactions/:walletId', as('wallet', true), walletTransactionRoute(services, jobs));
  router.put('/customers/:sourceId', as('customers'), upsertCustomerRoute(services));
  // Beyond the contract: orders reported to earn points (docs/wallets.md), with the wallet routes' 401.
  router.post('/wallets/customer/:sourceId/orders/:walletId', as('wallet', true), orderReportRoute(services, jobs));
  // Beyond the contract: a gift card's balance (docs/gift-cards.md).
  router.get('/gift-cards/:code', as('gift_cards'), readGiftCardRoute(services));
  // Beyond the contract: a customer's store credit (docs/gift-cards.md), with the customer upsert's 401.
  router.get('/customers/:sourceId/store-credit', as('customers'), readStoreCreditRoute(services));
  return router;
}
