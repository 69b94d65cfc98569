/** The admin routes of wallets (docs/admin-api.md); a customer's ledger and adjustments are customers' routes. */
import {
  createWallet,
  deleteWallet,
  listWallets,
  setWalletArchived,
  updateWallet,
} from '../../../shared/usecases/admin/wallets.usecase.js';
import { explainEarning } from '../../../shared/usecases/admin/earning-rules.js';
import type { AdminRoute } from '../admin-route.js';
import { APP } from './applications.routes.js';
import { lifecycleRoutes } from './lifecycle.js';

/** One wallet, by its `wallet_id` (the log names it by the service's id). */
const WALLET = `${APP}/wallets/:wallet`;

export const WALLET_ROUTES: readonly AdminRoute[] = [
  {
    method: 'post',
    path: `${APP}/wallets`,
    action: 'change',
    audit: { type: 'wallet', verb: 'create', target: 'created' },
    status: 201,
    handler: (c) => createWallet(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: `${APP}/wallets`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listWallets(c.services, c.param('app'), c.req.query),
  },
  {
    method: 'patch',
    path: WALLET,
    action: 'change',
    audit: { type: 'wallet', verb: 'update', target: { param: 'wallet' } },
    status: 200,
    handler: (c) => updateWallet(c.services, c.param('app'), c.param('wallet'), c.req.body),
  },
  {
    // What an order would earn under the wallet's earning rules, and why; nothing is credited.
    method: 'post',
    path: `${WALLET}/earning/explain`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => explainEarning(c.services, c.param('app'), c.param('wallet'), c.req.body),
  },
  ...lifecycleRoutes(
    WALLET,
    'wallet',
    'wallet',
    (c, archive) => setWalletArchived(c.services, c.param('app'), c.param('wallet'), archive),
    (c) => deleteWallet(c.services, c.param('app'), c.param('wallet')),
  ),
];
