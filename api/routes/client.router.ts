import { Router } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { Services } from '../../shared/services.js';
import { basicAuth } from '../middleware/auth.js';
import { applyCouponRoute } from './apply-coupon.route.js';
import { upsertCustomerRoute } from './customers.route.js';
import { listCouponsRoute } from './list-coupons.route.js';
import { validateCouponRoute } from './validate-coupon.route.js';
import { readWalletsRoute, walletTransactionRoute } from './wallets.route.js';

/**
 * The five client routes of the contract, each behind Basic auth with its own 401 body, and the
 * application's own customer upsert (beyond the contract: docs/customers.md).
 */
export function clientRouter(services: Services, jobs: JobGateway): Router {
  const router = Router();
  router.post('/coupons/list/all', basicAuth(services, 'list'), listCouponsRoute(services));
  router.post('/coupons/validate', basicAuth(services, 'validate'), validateCouponRoute(services));
  router.post('/coupons/apply', basicAuth(services, 'apply'), applyCouponRoute(services, jobs));
  router.get('/wallets/customer/:sourceId', basicAuth(services, 'wallet'), readWalletsRoute(services));
  router.put('/wallets/customer/:sourceId/transactions/:walletId', basicAuth(services, 'wallet'), walletTransactionRoute(services, jobs));
  router.put('/customers/:sourceId', basicAuth(services, 'customers'), upsertCustomerRoute(services));
  return router;
}
