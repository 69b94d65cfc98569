import { Router } from 'express';
import type { Services } from '../../shared/services.js';
import { basicAuth } from '../middleware/auth.js';

/** The five client routes of the contract, each behind Basic auth with its own 401 body. */
export function clientRouter(services: Services): Router {
  const router = Router();
  router.post('/coupons/list/all', basicAuth(services, 'list'), (_req, res) => {
    res.json([]);
  });
  router.post('/coupons/validate', basicAuth(services, 'validate'), (_req, res) => {
    res.json({});
  });
  router.post('/coupons/apply', basicAuth(services, 'apply'), (_req, res) => {
    res.json({});
  });
  router.get('/wallets/customer/:sourceId', basicAuth(services, 'wallet'), (_req, res) => {
    res.json([]);
  });
  router.put('/wallets/customer/:sourceId/transactions/:walletId', basicAuth(services, 'wallet'), (_req, res) => {
    res.json({});
  });
  return router;
}
