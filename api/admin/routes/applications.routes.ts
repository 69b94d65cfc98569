/** The admin routes of applications (docs/admin-api.md). */
import { applicationResults } from '../../../shared/usecases/admin/results.usecase.js';
import { askBacktest, getBacktest, listBacktests } from '../../../shared/usecases/admin/backtests.usecase.js';
import { adminForbidden } from '../../../shared/admin-errors.js';
import {
  createApplicationFromAdmin,
  deleteApplication,
  listApplications,
  rotateSecret,
  setApplicationArchived,
  updateApplication,
} from '../../../shared/usecases/admin/applications.usecase.js';
import { verifyApplicationFromAdmin } from '../../../shared/usecases/admin/verify.usecase.js';
import type { AdminRoute } from '../admin-route.js';
import { lifecycleRoutes } from './lifecycle.js';

/** The path of one application: every route under it is refused (403) to an operator not given it. */
export const APP = '/applications/:app';

export const APPLICATION_ROUTES: readonly AdminRoute[] = [
  {
    // A backtest changes nothing live (docs/results.md "Backtests"): a read, so viewers may, and no audit entry.
    method: 'post',
    path: `${APP}/backtests`,
    action: 'read',
    audit: null,
    status: 202,
    handler: (c) => askBacktest({ ...c.services, ...(c.backtests ? { backtests: c.backtests } : {}) }, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: `${APP}/backtests`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listBacktests(c.services, c.param('app')),
  },
  {
    method: 'get',
    path: `${APP}/backtests/:backtest`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => getBacktest(c.services, c.param('app'), c.param('backtest')),
  },
  {
    method: 'get',
    path: `${APP}/results`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => applicationResults(c.services, c.param('app'), c.req.query),
  },
  {
    method: 'post',
    path: '/applications',
    action: 'change',
    audit: { type: 'application', verb: 'create', target: 'created' },
    status: 201,
    handler: async ({ services, actor, req }) => {
      // A new application would be outside a limited operator's applications.
      if (actor.applications !== null) throw adminForbidden('an operator limited to some applications may not create one');
      return createApplicationFromAdmin(services, req.body);
    },
  },
  {
    method: 'get',
    path: '/applications',
    action: 'read',
    audit: null,
    status: 200,
    handler: ({ services, actor, req }) => listApplications(services, req.query, actor.applications),
  },
  {
    method: 'patch',
    path: APP,
    action: 'change',
    audit: { type: 'application', verb: 'update', target: { param: 'app' } },
    status: 200,
    handler: (c) => updateApplication(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'post',
    path: `${APP}/rotate-secret`,
    action: 'change',
    audit: { type: 'application', verb: 'rotate_secret', target: { param: 'app' } },
    status: 200,
    handler: (c) => rotateSecret(c.services, c.param('app')),
  },
  {
    // A read (any role): re-derives counters and balances from the journals (docs/operations.md, "Verifying exactness").
    method: 'get',
    path: `${APP}/verify`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => verifyApplicationFromAdmin(c.services, c.param('app'), c.req.query as Record<string, unknown>),
  },
  ...lifecycleRoutes(
    APP,
    'application',
    'app',
    (c, archive) => setApplicationArchived(c.services, c.param('app'), archive),
    (c) => deleteApplication(c.services, c.param('app')),
  ),
];
