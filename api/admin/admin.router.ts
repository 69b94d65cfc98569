/**
 * Admin API (docs/admin-api.md): configuration outside the client contract (decision 26).
 * `Authorization: Bearer <ADMIN_TOKEN>`; off (plain 404 like any unknown route) when no token
 * is configured. Routes are thin: each calls one admin use case.
 */
import { Router, type RequestHandler } from 'express';
import { DomainError } from '../../shared/errors.js';
import type { Services } from '../../shared/services.js';
import {
  createApplicationFromAdmin,
  listApplications,
  rotateSecret,
  updateApplication,
} from '../../shared/usecases/admin/applications.usecase.js';
import {
  addBulkCodes,
  createCampaign,
  getCampaign,
  listCampaigns,
  listCodes,
  updateCampaign,
} from '../../shared/usecases/admin/campaigns.usecase.js';
import { listCustomers, upsertCustomers } from '../../shared/usecases/admin/customers.usecase.js';
import { listRedemptions } from '../../shared/usecases/admin/redemptions.usecase.js';
import { createWallet, listWallets, readLedger } from '../../shared/usecases/admin/wallets.usecase.js';
import { notFoundRoute } from '../middleware/error-handler.js';
import { presentsToken } from '../ops/token.js';

export function adminAuth(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token) return notFoundRoute(req, res, next);
    if (!presentsToken(req.headers.authorization, token)) {
      return next(new DomainError('unauthorized', 'unauthorized', 'admin token invalid', { code: 401 }));
    }
    next();
  };
}

const page = (q: Record<string, unknown>) => ({
  limit: Math.min(Math.max(Number(q.limit) || 100, 1), 1000),
  skip: Math.max(Number(q.skip) || 0, 0),
});

export function adminRouter(services: Services): Router {
  const r = Router();
  r.use(adminAuth(services.config.adminToken));
  const p = (req: { params: Record<string, string | string[]> }, name: string) => String(req.params[name]);

  r.post('/applications', async (req, res) => void res.status(201).json(await createApplicationFromAdmin(services, req.body)));
  r.get('/applications', async (_req, res) => void res.json({ applications: await listApplications(services) }));
  r.patch('/applications/:app', async (req, res) => void res.json(await updateApplication(services, p(req, 'app'), req.body)));
  r.post('/applications/:app/rotate-secret', async (req, res) => void res.json(await rotateSecret(services, p(req, 'app'))));

  r.post('/applications/:app/customers', async (req, res) => void res.json(await upsertCustomers(services, p(req, 'app'), req.body)));
  r.get('/applications/:app/customers', async (req, res) => void res.json(await listCustomers(services, p(req, 'app'), page(req.query))));
  r.get(
    '/applications/:app/customers/:customer/wallets/:wallet/ledger',
    async (req, res) => void res.json(await readLedger(services, p(req, 'app'), p(req, 'customer'), p(req, 'wallet'))),
  );

  r.post(
    '/applications/:app/wallets',
    async (req, res) => void res.status(201).json(await createWallet(services, p(req, 'app'), req.body)),
  );
  r.get('/applications/:app/wallets', async (req, res) => void res.json(await listWallets(services, p(req, 'app'))));

  r.post(
    '/applications/:app/campaigns',
    async (req, res) => void res.status(201).json(await createCampaign(services, p(req, 'app'), req.body)),
  );
  r.get('/applications/:app/campaigns', async (req, res) => void res.json(await listCampaigns(services, p(req, 'app'))));
  r.get(
    '/applications/:app/campaigns/:campaign',
    async (req, res) => void res.json(await getCampaign(services, p(req, 'app'), p(req, 'campaign'))),
  );
  r.patch(
    '/applications/:app/campaigns/:campaign',
    async (req, res) => void res.json(await updateCampaign(services, p(req, 'app'), p(req, 'campaign'), req.body)),
  );
  r.post(
    '/applications/:app/campaigns/:campaign/codes',
    async (req, res) => void res.json(await addBulkCodes(services, p(req, 'app'), p(req, 'campaign'), req.body)),
  );
  r.get(
    '/applications/:app/campaigns/:campaign/codes',
    async (req, res) => void res.json(await listCodes(services, p(req, 'app'), p(req, 'campaign'), page(req.query))),
  );

  r.get(
    '/applications/:app/redemptions',
    async (req, res) =>
      void res.json(
        await listRedemptions(services, p(req, 'app'), {
          customer: req.query.customer ? String(req.query.customer) : undefined,
          limit: page(req.query).limit,
        }),
      ),
  );
  return r;
}
