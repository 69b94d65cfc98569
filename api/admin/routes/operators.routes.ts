/**
 * The admin routes of operators, their tokens and sessions, and the audit log
 * (docs/admin-api.md#operators, #audit-log). Owners manage operators; everyone reads itself and
 * manages its own tokens and sessions (`read`: the use cases check whose they are).
 */
import { listAudit } from '../../../shared/usecases/admin/audit.usecase.js';
import {
  createOperator,
  createToken,
  getOperator,
  listOperators,
  listTokens,
  revokeToken,
  updateOperator,
} from '../../../shared/usecases/admin/operators.usecase.js';
import { listSessions, revokeSession } from '../../../shared/usecases/admin/sessions.usecase.js';
import type { AdminRoute } from '../admin-route.js';

const OPERATOR = '/operators/:operator';

export const OPERATOR_ROUTES: readonly AdminRoute[] = [
  {
    method: 'get',
    path: '/audit',
    action: 'read',
    audit: null,
    status: 200,
    handler: ({ services, actor, req }) => listAudit(services, actor, req.query),
  },
  {
    method: 'post',
    path: '/operators',
    action: 'manage_operators',
    audit: { type: 'operator', verb: 'create', target: 'created' },
    status: 201,
    handler: (c) => createOperator(c.services, c.req.body),
  },
  {
    method: 'get',
    path: '/operators',
    action: 'manage_operators',
    audit: null,
    status: 200,
    handler: (c) => listOperators(c.services, c.req.query),
  },
  {
    // Before `/operators/:operator`, which would take `me` for an id.
    method: 'get',
    path: '/operators/me',
    action: 'read',
    audit: null,
    status: 200,
    handler: async ({ services, actor }) => {
      // What this service offers beside the admin API, for the console's links (docs/console.md).
      const service = { metrics: services.config.metricsToken !== undefined };
      if (!actor.operatorId) return { kind: actor.kind, role: actor.role, applications: actor.applications, service };
      return { kind: actor.kind, ...(await getOperator(services, actor, actor.operatorId)), service };
    },
  },
  {
    method: 'get',
    path: OPERATOR,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => getOperator(c.services, c.actor, c.param('operator')),
  },
  {
    method: 'patch',
    path: OPERATOR,
    action: 'manage_operators',
    audit: { type: 'operator', verb: 'update', target: { param: 'operator' } },
    status: 200,
    handler: (c) => updateOperator(c.services, c.param('operator'), c.req.body),
  },
  {
    method: 'post',
    path: `${OPERATOR}/tokens`,
    action: 'read',
    audit: { type: 'token', verb: 'create', target: 'created' },
    status: 201,
    handler: (c) => createToken(c.services, c.actor, c.param('operator'), c.req.body),
  },
  {
    method: 'get',
    path: `${OPERATOR}/tokens`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listTokens(c.services, c.actor, c.param('operator')),
  },
  {
    method: 'delete',
    path: `${OPERATOR}/tokens/:token`,
    action: 'read',
    audit: { type: 'token', verb: 'revoke', target: { param: 'token' } },
    status: 200,
    handler: (c) => revokeToken(c.services, c.actor, c.param('operator'), c.param('token')),
  },
  {
    method: 'get',
    path: `${OPERATOR}/sessions`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listSessions(c.services, c.actor, c.param('operator')),
  },
  {
    method: 'delete',
    path: `${OPERATOR}/sessions/:session`,
    action: 'read',
    audit: { type: 'session', verb: 'revoke', target: { param: 'session' } },
    status: 200,
    handler: (c) => revokeSession(c.services, c.actor, c.param('operator'), c.param('session')),
  },
];
