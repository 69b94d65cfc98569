/** The admin routes of customers: the customers themselves, their ledgers and points adjustments (docs/admin-api.md). */
import {
  deleteCustomer,
  eraseCustomer,
  getCustomer,
  listCustomers,
  setCustomerArchived,
  upsertCustomers,
} from '../../../shared/usecases/admin/customers.usecase.js';
import { readLedger } from '../../../shared/usecases/admin/wallets.usecase.js';
import type { AdminRoute } from '../admin-route.js';
import { ADJUST_POINTS_ROUTE } from './adjust-points.route.js';
import { APP } from './applications.routes.js';
import { lifecycleRoutes } from './lifecycle.js';

/** One customer, by its `source_id` or the service's id. */
export const CUSTOMER = `${APP}/customers/:customer`;

export const CUSTOMER_ROUTES: readonly AdminRoute[] = [
  {
    method: 'post',
    path: `${APP}/customers`,
    action: 'change',
    audit: { type: 'customer', verb: 'upsert', target: 'none', many: 'Customer' },
    status: 200,
    handler: (c) => upsertCustomers(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: `${APP}/customers`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listCustomers(c.services, c.param('app'), c.req.query),
  },
  {
    method: 'get',
    path: CUSTOMER,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => getCustomer(c.services, c.param('app'), c.param('customer')),
  },
  ...lifecycleRoutes(
    CUSTOMER,
    'customer',
    'customer',
    (c, archive) => setCustomerArchived(c.services, c.param('app'), c.param('customer'), archive),
    (c) => deleteCustomer(c.services, c.param('app'), c.param('customer')),
  ),
  {
    method: 'post',
    path: `${CUSTOMER}/erase`,
    action: 'change',
    audit: { type: 'customer', verb: 'erase', target: { param: 'customer' } },
    status: 200,
    handler: (c) => eraseCustomer(c.services, c.param('app'), c.param('customer')),
  },
  {
    method: 'get',
    path: `${CUSTOMER}/wallets/:wallet/ledger`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => readLedger(c.services, c.param('app'), c.param('customer'), c.param('wallet'), c.req.query),
  },
  ADJUST_POINTS_ROUTE,
];
