/**
 * Admin API (docs/admin-api.md): configuration outside the client contract (decision 26).
 * `Authorization: Bearer <ADMIN_TOKEN>`; off (plain 404 like any unknown route) when no token
 * is configured. Routes are thin: each calls one admin use case.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { DomainError } from '../../shared/errors.js';
import type { WebhookQueue } from '../../shared/queue/webhook-queue.js';
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
import { listDeliveries, listEvents, redeliver } from '../../shared/usecases/admin/webhook-deliveries.usecase.js';
import { createWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../shared/usecases/admin/webhooks.usecase.js';
import { notFoundRoute } from '../middleware/error-handler.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request carries the admin token (Bearer, or Basic with the token as password). */
export function hasAdminToken(header: string | undefined, token: string): boolean {
  if (!header) return false;
  let presented: string | undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) presented = bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (basic) presented = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':');
  // Compare digests: constant time whatever the lengths.
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

export function adminAuth(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token) return notFoundRoute(req, res, next);
    if (!hasAdminToken(req.headers.authorization, token)) {
      return next(new DomainError('unauthorized', 'unauthorized', 'admin token invalid', { code: 401 }));
    }
    next();
  };
}

const page = (q: Record<string, unknown>) => ({
  limit: Math.min(Math.max(Number(q.limit) || 100, 1), 1000),
  skip: Math.max(Number(q.skip) || 0, 0),
});

/** The string query parameters among `names`, plus the paged `limit`. */
const filters = (q: Record<string, unknown>, names: string[]) => ({
  ...Object.fromEntries(names.filter((n) => typeof q[n] === 'string').map((n) => [n, q[n]])),
  limit: page(q).limit,
});

/** @param webhooks - the webhook queue (redelivery); without it redelivery answers 503. */
export function adminRouter(services: Services, webhooks?: WebhookQueue): Router {
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

  r.post(
    '/applications/:app/webhooks',
    async (req, res) => void res.status(201).json(await createWebhook(services, p(req, 'app'), req.body)),
  );
  r.get('/applications/:app/webhooks', async (req, res) => void res.json(await listWebhooks(services, p(req, 'app'))));
  r.patch(
    '/applications/:app/webhooks/:webhook',
    async (req, res) => void res.json(await updateWebhook(services, p(req, 'app'), p(req, 'webhook'), req.body)),
  );
  r.post(
    '/applications/:app/webhooks/:webhook/rotate-secret',
    async (req, res) => void res.json(await rotateWebhookSecret(services, p(req, 'app'), p(req, 'webhook'), req.body)),
  );
  r.get(
    '/applications/:app/webhooks/:webhook/deliveries',
    async (req, res) =>
      void res.json(await listDeliveries(services, p(req, 'app'), p(req, 'webhook'), filters(req.query, ['status', 'event']))),
  );
  r.post('/applications/:app/webhooks/:webhook/redeliver', async (req, res) => {
    if (!webhooks) throw new DomainError('unavailable', 'Service Unavailable', 'the webhook queue is not connected', { code: 503 });
    res.status(202).json(await redeliver({ ...services, webhooks }, p(req, 'app'), p(req, 'webhook'), req.body));
  });
  r.get(
    '/applications/:app/events',
    async (req, res) => void res.json(await listEvents(services, p(req, 'app'), filters(req.query, ['type', 'customer']))),
  );
  return r;
}
