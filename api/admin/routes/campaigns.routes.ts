/** The admin routes of campaigns and their codes, redemptions and "Try a cart" (docs/admin-api.md). */
import {
  addBulkCodes,
  createCampaign,
  deleteCampaign,
  getCampaign,
  listCampaigns,
  listCodes,
  previewCampaign,
  setCampaignArchived,
  updateCampaign,
} from '../../../shared/usecases/admin/campaigns.usecase.js';
import { explainCart } from '../../../shared/usecases/admin/explain.usecase.js';
import { campaignUsage, listRedemptions } from '../../../shared/usecases/admin/redemptions.usecase.js';
import { campaignResults } from '../../../shared/usecases/admin/results.usecase.js';
import type { AdminRoute } from '../admin-route.js';
import { APP } from './applications.routes.js';
import { lifecycleRoutes } from './lifecycle.js';

const CAMPAIGN = `${APP}/campaigns/:campaign`;

export const CAMPAIGN_ROUTES: readonly AdminRoute[] = [
  {
    method: 'post',
    path: `${APP}/campaigns`,
    action: 'change',
    audit: { type: 'campaign', verb: 'create', target: 'created' },
    status: 201,
    handler: (c) => createCampaign(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: `${APP}/campaigns`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listCampaigns(c.services, c.param('app'), c.req.query),
  },
  {
    // A dry run: nothing written, nothing audited; a viewer may (it reads what would be saved).
    method: 'post',
    path: `${APP}/campaign-preview`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => previewCampaign(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: CAMPAIGN,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => getCampaign(c.services, c.param('app'), c.param('campaign')),
  },
  {
    method: 'patch',
    path: CAMPAIGN,
    action: 'change',
    audit: { type: 'campaign', verb: 'update', target: { param: 'campaign' } },
    status: 200,
    handler: (c) => updateCampaign(c.services, c.param('app'), c.param('campaign'), c.req.body),
  },
  ...lifecycleRoutes(
    CAMPAIGN,
    'campaign',
    'campaign',
    (c, archive) => setCampaignArchived(c.services, c.param('app'), c.param('campaign'), archive),
    (c) => deleteCampaign(c.services, c.param('app'), c.param('campaign')),
  ),
  {
    method: 'post',
    path: `${CAMPAIGN}/codes`,
    action: 'change',
    // The codes are stamped, not the campaign: the entry records the request.
    audit: { type: 'campaign', verb: 'add_codes', target: { param: 'campaign' }, many: 'CouponCode' },
    status: 200,
    handler: (c) => addBulkCodes(c.services, c.param('app'), c.param('campaign'), c.req.body),
  },
  {
    method: 'get',
    path: `${CAMPAIGN}/codes`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listCodes(c.services, c.param('app'), c.param('campaign'), c.req.query),
  },
  {
    method: 'get',
    path: `${CAMPAIGN}/usage`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => campaignUsage(c.services, c.param('app'), c.param('campaign')),
  },
  {
    method: 'get',
    path: `${CAMPAIGN}/results`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => campaignResults(c.services, c.param('app'), c.param('campaign'), c.req.query),
  },
  {
    method: 'get',
    path: `${APP}/redemptions`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listRedemptions(c.services, c.param('app'), c.req.query),
  },
  {
    // "Try a cart": a POST for its body, yet a read — it changes nothing, so viewers may, and no audit entry.
    method: 'post',
    path: `${APP}/explain`,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => explainCart(c.services, c.param('app'), c.req.body),
  },
];
