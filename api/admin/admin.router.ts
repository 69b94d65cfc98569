/**
 * Admin API (docs/admin-api.md): configuration outside the client contract (docs/decisions.md#26).
 * `Authorization: Bearer <ADMIN_TOKEN>`; off (plain 404 like any unknown route) when no token
 * is configured. Routes are thin: each calls one admin use case.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { DomainError } from '../../shared/errors.js';
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
  setCampaignArchived,
  updateCampaign,
} from '../../shared/usecases/admin/campaigns.usecase.js';
import { deleteCustomer, listCustomers, setCustomerArchived, upsertCustomers } from '../../shared/usecases/admin/customers.usecase.js';
import { campaignUsage, listRedemptions } from '../../shared/usecases/admin/redemptions.usecase.js';
import { createWallet, deleteWallet, listWallets, readLedger, setWalletArchived } from '../../shared/usecases/admin/wallets.usecase.js';
import { listDeliveries, listEvents, pingWebhook, redeliver } from '../../shared/usecases/admin/webhook-deliveries.usecase.js';
import { createWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../shared/usecases/admin/webhooks.usecase.js';
import { notFoundRoute } from '../middleware/error-handler.js';
import { presentsToken } from '../../shared/ops/token.js';

export function adminAuth(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token) return notFoundRoute(req, res, next);
    if (!presentsToken(req.headers.authorization, token)) {
      return next(new DomainError('unauthorized', 'unauthorized', 'admin token invalid', { code: 401 }));
    }
    next();
  };
}

/**
 * A route that answers `status` with the JSON its use case returns. A change to an application's
 * configuration (any method but GET) is announced to every process before the answer: the next
 * request on any replica sees it (shared/cache/config-changes.ts).
 */
const answer =
  (services: Services, status: number, run: (req: Request) => Promise<unknown>): RequestHandler =>
  async (req, res) => {
    let result: unknown;
    try {
      result = await run(req);
    } finally {
      // Also after a refusal: a change refused half-way may have written part of itself.
      if (req.method !== 'GET' && req.params.app) await services.changes.announce(String(req.params.app));
    }
    res.status(status).json(result);
  };

type Run = (req: Request) => Promise<unknown>;
/** The archive and delete use cases of a resource that belongs to an application. */
type SetArchived = (services: Services, app: string, id: string, archive: boolean) => Promise<unknown>;
type Remove = (services: Services, app: string, id: string) => Promise<unknown>;

/** @param webhooks - the webhook queue (redelivery); without it redelivery answers 503. */
export function adminRouter(services: Services, webhooks?: WebhookQueue): Router {
  const r = Router();
  r.use(adminAuth(services.config.adminToken));
  const p = (req: Request, name: string) => String(req.params[name]);
  /** A route answering `status` (200 unless said) with what its use case returns. */
  const on = (method: 'get' | 'post' | 'patch' | 'delete', path: string, run: Run, status = 200) =>
    r[method](path, answer(services, status, run));
  /** `POST <path>/archive`, `POST <path>/unarchive` and `DELETE <path>` of a resource named by `:<param>`. */
  const lifecycle = (path: string, param: string, setArchived: SetArchived, remove: Remove) => {
    const [app, id] = [(req: Request) => p(req, 'app'), (req: Request) => p(req, param)];
    on('post', `${path}/archive`, (req) => setArchived(services, app(req), id(req), true));
    on('post', `${path}/unarchive`, (req) => setArchived(services, app(req), id(req), false));
    on('delete', path, (req) => remove(services, app(req), id(req)));
  };

  const APP = '/applications/:app';
  on('post', '/applications', (req) => createApplicationFromAdmin(services, req.body), 201);
  on('get', '/applications', (req) => listApplications(services, req.query));
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
  lifecycle(CUSTOMER, 'customer', setCustomerArchived, deleteCustomer);
  on('get', `${CUSTOMER}/wallets/:wallet/ledger`, (req) =>
    readLedger(services, p(req, 'app'), p(req, 'customer'), p(req, 'wallet'), req.query),
  );

  on('post', `${APP}/wallets`, (req) => createWallet(services, p(req, 'app'), req.body), 201);
  on('get', `${APP}/wallets`, (req) => listWallets(services, p(req, 'app'), req.query));
  lifecycle(`${APP}/wallets/:wallet`, 'wallet', setWalletArchived, deleteWallet);

  const CAMPAIGN = `${APP}/campaigns/:campaign`;
  on('post', `${APP}/campaigns`, (req) => createCampaign(services, p(req, 'app'), req.body), 201);
  on('get', `${APP}/campaigns`, (req) => listCampaigns(services, p(req, 'app'), req.query));
  on('get', CAMPAIGN, (req) => getCampaign(services, p(req, 'app'), p(req, 'campaign')));
  on('patch', CAMPAIGN, (req) => updateCampaign(services, p(req, 'app'), p(req, 'campaign'), req.body));
  lifecycle(CAMPAIGN, 'campaign', setCampaignArchived, deleteCampaign);
  on('post', `${CAMPAIGN}/codes`, (req) => addBulkCodes(services, p(req, 'app'), p(req, 'campaign'), req.body));
  on('get', `${CAMPAIGN}/codes`, (req) => listCodes(services, p(req, 'app'), p(req, 'campaign'), req.query));
  on('get', `${CAMPAIGN}/usage`, (req) => campaignUsage(services, p(req, 'app'), p(req, 'campaign')));

  on('get', `${APP}/redemptions`, (req) => listRedemptions(services, p(req, 'app'), req.query));

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
  return r;
}
