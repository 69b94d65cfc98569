/** The admin routes of gift cards and store credit (docs/gift-cards.md, docs/admin-api.md). */
import {
  changeGiftCard,
  creditStoreCredit,
  importGiftCards,
  issueGiftCard,
  issueGiftCards,
  listGiftCards,
  readGiftCard,
  topUpGiftCard,
} from '../../../shared/usecases/admin/gift-cards.usecase.js';
import type { AdminRoute } from '../admin-route.js';
import { APP } from './applications.routes.js';

const CARDS = `${APP}/gift-cards`;
const CARD = `${CARDS}/:card`;

export const GIFT_CARD_ROUTES: readonly AdminRoute[] = [
  {
    method: 'post',
    path: CARDS,
    action: 'change',
    audit: { type: 'gift_card', verb: 'issue', target: 'created' },
    status: 201,
    handler: (c) => issueGiftCard(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'post',
    path: `${CARDS}/bulk`,
    action: 'change',
    audit: { type: 'gift_card', verb: 'issue_bulk', target: 'none', many: 'GiftCard' },
    status: 201,
    handler: (c) => issueGiftCards(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'post',
    path: `${CARDS}/import`,
    action: 'change',
    audit: { type: 'gift_card', verb: 'import', target: 'none', many: 'GiftCard' },
    status: 201,
    handler: (c) => importGiftCards(c.services, c.param('app'), c.req.body),
  },
  {
    method: 'get',
    path: CARDS,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => listGiftCards(c.services, c.param('app'), c.req.query),
  },
  {
    method: 'get',
    path: CARD,
    action: 'read',
    audit: null,
    status: 200,
    handler: (c) => readGiftCard(c.services, c.param('app'), c.param('card')),
  },
  {
    method: 'post',
    path: `${CARD}/top-up`,
    action: 'change',
    audit: { type: 'gift_card', verb: 'top_up', target: { param: 'card' } },
    status: 200,
    handler: (c) => topUpGiftCard(c.services, c.param('app'), c.param('card'), c.req.body, String(c.req.id)),
  },
  {
    method: 'patch',
    path: CARD,
    action: 'change',
    audit: { type: 'gift_card', verb: 'update', target: { param: 'card' } },
    status: 200,
    handler: (c) => changeGiftCard(c.services, c.param('app'), c.param('card'), c.req.body, String(c.req.id)),
  },
  {
    // Store credit: the same balance, held by a customer (docs/gift-cards.md).
    method: 'post',
    path: `${APP}/customers/:customer/store-credit`,
    action: 'change',
    audit: { type: 'gift_card', verb: 'store_credit', target: 'none', many: 'GiftCard' },
    status: 200,
    handler: (c) => creditStoreCredit(c.services, c.param('app'), c.param('customer'), c.req.body, String(c.req.id)),
  },
];
