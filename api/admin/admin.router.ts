/**
 * Admin API (docs/admin-api.md): configuration outside the client contract (decision 26).
 * `Authorization: Bearer <ADMIN_TOKEN>`; off (plain 404 like any unknown route) when no token
 * is configured. Routes are thin: each calls one admin use case.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { DomainError } from '../../shared/errors.js';
import type { Services } from '../../shared/services.js';
import {
  archiveApplication,
  createApplicationFromAdmin,
  deleteApplication,
  listApplications,
  rotateSecret,
  unarchiveApplication,
  updateApplication,
} from '../../shared/usecases/admin/applications.usecase.js';
import {
  addBulkCodes,
  archiveCampaign,
  createCampaign,
  deleteCampaign,
  getCampaign,
  listCampaigns,
  listCodes,
  unarchiveCampaign,
  updateCampaign,
} from '../../shared/usecases/admin/campaigns.usecase.js';
import {
  archiveCustomer,
  deleteCustomer,
  listCustomers,
  unarchiveCustomer,
  upsertCustomers,
} from '../../shared/usecases/admin/customers.usecase.js';
import { listRedemptions } from '../../shared/usecases/admin/redemptions.usecase.js';
import {
  archiveWallet,
  createWallet,
  deleteWallet,
  listWallets,
  readLedger,
  unarchiveWallet,
} from '../../shared/usecases/admin/wallets.usecase.js';
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

/** A route that answers `status` with the JSON its use case returns. */
const answer =
  (status: number, run: (req: Request) => Promise<unknown>): RequestHandler =>
  async (req, res) =>
    void res.status(status).json(await run(req));

export function adminRouter(services: Services): Router {
  const r = Router();
  r.use(adminAuth(services.config.adminToken));
  const p = (req: Request, name: string) => String(req.params[name]);
  const ok = (run: (req: Request) => Promise<unknown>) => answer(200, run);
  const created = (run: (req: Request) => Promise<unknown>) => answer(201, run);

  const APP = '/applications/:app';
  r.post(
    '/applications',
    created((req) => createApplicationFromAdmin(services, req.body)),
  );
  r.get(
    '/applications',
    ok((req) => listApplications(services, req.query)),
  );
  r.patch(
    APP,
    ok((req) => updateApplication(services, p(req, 'app'), req.body)),
  );
  r.delete(
    APP,
    ok((req) => deleteApplication(services, p(req, 'app'))),
  );
  r.post(
    `${APP}/rotate-secret`,
    ok((req) => rotateSecret(services, p(req, 'app'))),
  );
  r.post(
    `${APP}/archive`,
    ok((req) => archiveApplication(services, p(req, 'app'))),
  );
  r.post(
    `${APP}/unarchive`,
    ok((req) => unarchiveApplication(services, p(req, 'app'))),
  );

  const CUSTOMER = `${APP}/customers/:customer`;
  r.post(
    `${APP}/customers`,
    ok((req) => upsertCustomers(services, p(req, 'app'), req.body)),
  );
  r.get(
    `${APP}/customers`,
    ok((req) => listCustomers(services, p(req, 'app'), req.query)),
  );
  r.delete(
    CUSTOMER,
    ok((req) => deleteCustomer(services, p(req, 'app'), p(req, 'customer'))),
  );
  r.post(
    `${CUSTOMER}/archive`,
    ok((req) => archiveCustomer(services, p(req, 'app'), p(req, 'customer'))),
  );
  r.post(
    `${CUSTOMER}/unarchive`,
    ok((req) => unarchiveCustomer(services, p(req, 'app'), p(req, 'customer'))),
  );
  r.get(
    `${CUSTOMER}/wallets/:wallet/ledger`,
    ok((req) => readLedger(services, p(req, 'app'), p(req, 'customer'), p(req, 'wallet'), req.query)),
  );

  const WALLET = `${APP}/wallets/:wallet`;
  r.post(
    `${APP}/wallets`,
    created((req) => createWallet(services, p(req, 'app'), req.body)),
  );
  r.get(
    `${APP}/wallets`,
    ok((req) => listWallets(services, p(req, 'app'), req.query)),
  );
  r.delete(
    WALLET,
    ok((req) => deleteWallet(services, p(req, 'app'), p(req, 'wallet'))),
  );
  r.post(
    `${WALLET}/archive`,
    ok((req) => archiveWallet(services, p(req, 'app'), p(req, 'wallet'))),
  );
  r.post(
    `${WALLET}/unarchive`,
    ok((req) => unarchiveWallet(services, p(req, 'app'), p(req, 'wallet'))),
  );

  const CAMPAIGN = `${APP}/campaigns/:campaign`;
  r.post(
    `${APP}/campaigns`,
    created((req) => createCampaign(services, p(req, 'app'), req.body)),
  );
  r.get(
    `${APP}/campaigns`,
    ok((req) => listCampaigns(services, p(req, 'app'), req.query)),
  );
  r.get(
    CAMPAIGN,
    ok((req) => getCampaign(services, p(req, 'app'), p(req, 'campaign'))),
  );
  r.patch(
    CAMPAIGN,
    ok((req) => updateCampaign(services, p(req, 'app'), p(req, 'campaign'), req.body)),
  );
  r.delete(
    CAMPAIGN,
    ok((req) => deleteCampaign(services, p(req, 'app'), p(req, 'campaign'))),
  );
  r.post(
    `${CAMPAIGN}/archive`,
    ok((req) => archiveCampaign(services, p(req, 'app'), p(req, 'campaign'))),
  );
  r.post(
    `${CAMPAIGN}/unarchive`,
    ok((req) => unarchiveCampaign(services, p(req, 'app'), p(req, 'campaign'))),
  );
  r.post(
    `${CAMPAIGN}/codes`,
    ok((req) => addBulkCodes(services, p(req, 'app'), p(req, 'campaign'), req.body)),
  );
  r.get(
    `${CAMPAIGN}/codes`,
    ok((req) => listCodes(services, p(req, 'app'), p(req, 'campaign'), req.query)),
  );

  r.get(
    `${APP}/redemptions`,
    ok((req) => listRedemptions(services, p(req, 'app'), req.query)),
  );
  return r;
}
