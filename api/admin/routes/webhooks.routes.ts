/** The admin routes of webhook endpoints, their deliveries and the application's events (docs/admin-api.md#webhooks). */
import { webhookQueueNotConnected } from '../../../shared/admin-errors.js';
import type { WebhookQueue } from '../../../shared/queue/webhook-queue.js';
import { listDeliveries, listEvents, pingWebhook, redeliver } from '../../../shared/usecases/admin/webhook-deliveries.usecase.js';
import { createWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../../shared/usecases/admin/webhooks.usecase.js';
import type { AdminCall, AdminRoute } from '../admin-route.js';
import { APP } from './applications.routes.js';

const WEBHOOK = `${APP}/webhooks/:webhook`;

/** The webhook queue, for the routes that queue deliveries; without it they answer 503. */
function queueOf({ webhooks }: AdminCall): WebhookQueue {
  if (!webhooks) throw webhookQueueNotConnected();
  return webhooks;
}

export const WEBHOOK_ROUTES: readonly AdminRoute[] = [
  {
    method: 'post',
    path: `${APP}/webhooks`,
    action: 'change',
    audit: { type: 'webhook', verb: 'create', target: 'created' },
    status: 201,
    handler: (c) => createWebhook(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: `${APP}/webhooks`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listWebhooks(c.services, c.param('app'), c.req.query),
  },
  {
    method: 'patch',
    path: WEBHOOK,
    action: 'change',
    audit: { type: 'webhook', verb: 'update', target: { param: 'webhook' } },
    status: 200,
    handler: (c) => updateWebhook(c.services, c.param('app'), c.param('webhook'), c.req.body),
  },
  {
    method: 'post',
    path: `${WEBHOOK}/rotate-secret`,
    action: 'change',
    audit: { type: 'webhook', verb: 'rotate_secret', target: { param: 'webhook' } },
    status: 200,
    handler: (c) => rotateWebhookSecret(c.services, c.param('app'), c.param('webhook'), c.req.body),
  },
  {
    method: 'get',
    path: `${WEBHOOK}/deliveries`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listDeliveries(c.services, c.param('app'), c.param('webhook'), c.req.query),
  },
  {
    method: 'post',
    path: `${WEBHOOK}/redeliver`,
    action: 'change',
    audit: { type: 'webhook', verb: 'redeliver', target: { param: 'webhook' } },
    status: 202,
    handler: async (c) => redeliver({ ...c.services, webhooks: queueOf(c) }, c.param('app'), c.param('webhook'), c.req.body),
  },
  {
    method: 'post',
    path: `${WEBHOOK}/ping`,
    action: 'change',
    audit: { type: 'webhook', verb: 'ping', target: { param: 'webhook' } },
    status: 202,
    handler: async (c) => pingWebhook({ ...c.services, webhooks: queueOf(c) }, c.param('app'), c.param('webhook'), String(c.req.id)),
  },
  {
    method: 'get',
    path: `${APP}/events`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listEvents(c.services, c.param('app'), c.req.query),
  },
];
