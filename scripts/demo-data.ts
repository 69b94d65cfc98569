/**
 * The demo data set (`npm run seed`, `npm run dev`): one application, five customers, a loyalty
 * wallet whose orders earn 1 point per ₹100 of their subtotal (docs/wallets.md), and fifteen campaigns that between them use every discount base, rule and promotion kind,
 * created through the same admin use cases as the admin API.
 */
import type { Services } from '../shared/services.js';
import { createApplicationFromAdmin } from '../shared/usecases/admin/applications.usecase.js';
import { addBulkCodes, createCampaign } from '../shared/usecases/admin/campaigns.usecase.js';
import { upsertCustomers } from '../shared/usecases/admin/customers.usecase.js';
import { createWallet } from '../shared/usecases/admin/wallets.usecase.js';

const pct = (value: number, max?: number) => ({ kind: 'discount', type: 'percentage', value, ...(max ? { max } : {}) });
const flat = (value: number) => ({ kind: 'discount', type: 'flat', value });

/** Fifteen campaigns; codes are the keys. */
export const DEMO_CAMPAIGNS: Record<string, Record<string, unknown>> = {
  WELCOME10: {
    name: '10% off your order',
    description: '10% off the selling price, up to 150',
    discount: pct(10, 150),
    discount_calculated_on_property: 'selling_price_subtotal',
  },
  MRP5: { name: '5% off MRP', discount: pct(5), discount_calculated_on_property: 'original_price_subtotal' },
  FLAT200: {
    name: '200 off above 1999',
    discount: flat(200),
    discount_calculated_on_property: 'selling_price_subtotal',
    cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 1999 }],
  },
  FREESHIP: {
    name: 'Free shipping',
    discount: pct(100),
    discount_calculated_on_property: 'shipping',
    cart_conditions: [{ field: 'original_price_subtotal', operator: 'gte', value: 499 }],
  },
  SHOES15: {
    name: '15% off shoes (buy 2)',
    discount: pct(15),
    discount_calculated_on_property: 'selected_items_selling_price_subtotal',
    item_selector: { match: 'OR', properties: [{ property: 'sku', values: ['SHOE-1', 'SHOE-2', 'SHOE-3'] }] },
    selected_items_validations: [{ field: 'selected_items_total_qty', operator: 'gte', value: 2 }],
  },
  NIKERED: {
    name: '100 off red Nike (MRP)',
    discount: flat(100),
    discount_calculated_on_property: 'selected_items_original_price_subtotal',
    metadata_keys: [
      { key: 'brand', type: 'string', scope: 'item' },
      { key: 'colour', type: 'string', scope: 'item' },
    ],
    item_selector: {
      match: 'AND',
      properties: [
        { property: 'metadata.brand', values: ['nike'] },
        { property: 'metadata.colour', values: ['red'] },
      ],
    },
  },
  NOGIFTS8: {
    name: '8% off everything but gift cards',
    discount: pct(8),
    discount_calculated_on_property: 'valid_cart_selling_price_subtotal',
    excluded_items: { match: 'OR', properties: [{ property: 'sku', values: ['GIFTCARD'] }] },
  },
  BIGTICKET: {
    name: '3% off MRP of items over 1000, max 3 each',
    discount: pct(3),
    discount_calculated_on_property: 'valid_cart_original_price_subtotal',
    product_validations: [
      { field: 'selling_price', operator: 'gt', value: 1000 },
      { field: 'cart_qty', operator: 'lte', value: 3 },
    ],
  },
  UPI50: {
    name: '50 off with UPI, app orders',
    discount: flat(50),
    discount_calculated_on_property: 'selling_price_subtotal',
    metadata_keys: [{ key: 'channel', type: 'string', scope: 'order' }],
    cart_conditions: [
      { field: 'payment_mode', operator: 'in', value: ['UPI'] },
      { field: 'metadata.channel', operator: 'eq', value: 'app' },
    ],
  },
  CASHBACK5: {
    name: '5% cashback in loyalty points',
    discount: { kind: 'cashback', type: 'percentage', value: 5, max: 250, wallet_id: 'loyalty' },
    discount_calculated_on_property: 'selling_price_subtotal',
  },
  HAPPYHOUR: {
    name: 'Weekday happy hour, limited',
    discount: pct(20, 300),
    discount_calculated_on_property: 'selling_price_subtotal',
    schedule: { days_of_week: [1, 2, 3, 4, 5], hours: [{ from: '17:00', to: '19:00' }] },
    limits: { total: 1000, per_customer: 1, per_day: 100, per_week: 400, per_month: 900 },
  },
  VIPONLY: {
    name: 'VIP: 25% off, once',
    discount: pct(25, 1000),
    discount_calculated_on_property: 'selling_price_subtotal',
    assignment: 'assigned_users',
    assigned_source_ids: ['cust_1'],
    limits: { per_customer: 1 },
  },
  // Promotion kinds and a money budget (docs/campaigns.md "Promotion kinds", docs/budgets.md).
  SOCKS3FOR2: {
    name: 'Socks: 3 for 2',
    discount: {
      kind: 'discount',
      type: 'buy_x_get_y',
      buy: { quantity: 2, items: { match: 'OR', properties: [{ property: 'sku', values: ['SOCK-1', 'SOCK-2'] }] } },
      get: { quantity: 1, percent_off: 100 },
      max_repeats: 3,
    },
  },
  SPENDMORE: {
    name: 'Spend 1000 save 100, spend 2500 save 300',
    discount: {
      kind: 'discount',
      type: 'tiered',
      tier_type: 'flat',
      tiers: [
        { from: 1000, value: 100 },
        { from: 2500, value: 300 },
      ],
    },
    budget: { total: 50000, per_day: 5000, when_exceeded: 'cap', notify_at: [50, 80] },
  },
  FREETOTE: {
    name: 'A free tote bag over 1500',
    discount: {
      kind: 'discount',
      type: 'free_gift',
      gift: { product_id: 'TOTE-1', sku: 'TOTE', name: 'Tote bag', value: 199 },
      max_gifts: 500,
    },
    cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 1500 }],
  },
};

export async function loadDemoData(services: Services, log: (line: string) => void = () => {}) {
  const app = await createApplicationFromAdmin(services, { name: 'Demo Store', timezone: 'Asia/Kolkata', currency: 'INR' });
  log(`application ${app.id}`);
  await upsertCustomers(services, app.id, {
    customers: ['cust_1', 'cust_2', 'cust_3', 'cust_4', 'cust_5'].map((source_id) => ({ source_id })),
  });
  log('customers cust_1..cust_5');
  await createWallet(services, app.id, {
    wallet_id: 'loyalty',
    wallet_name: 'Loyalty Points',
    currency: 'INR',
    singular_unit_name: 'point',
    plural_unit_name: 'points',
    timezone: 'Asia/Kolkata',
    // Orders reported completed (POST /wallets/customer/{source_id}/orders/loyalty) earn by it.
    earning_rules: [{ name: 'Points on every order', points: 1, per: 100 }],
  });
  log('wallet loyalty (1 point per 100.00 of an order reported completed)');
  const campaigns = [];
  const entries = Object.entries(DEMO_CAMPAIGNS);
  for (const [i, [code, rules]] of entries.entries()) {
    campaigns.push(
      await createCampaign(services, app.id, {
        code_type: 'fixed',
        code,
        valid_from: '2024-01-01T00:00',
        terms_and_conditions: ['One coupon per order'],
        ...rules,
      }),
    );
    log(`campaign ${i + 1}/${entries.length + 1} ${code}`);
  }
  const bulk = await createCampaign(services, app.id, {
    name: 'Printed voucher: 300 off',
    code_type: 'bulk',
    valid_from: '2024-01-01T00:00',
    discount: flat(300),
    discount_calculated_on_property: 'selling_price_subtotal',
  });
  await addBulkCodes(services, app.id, String(bulk.id), { generate: { count: 20, prefix: 'VOUCHER-', length: 8 } });
  campaigns.push(bulk);
  log(`campaign ${entries.length + 1}/${entries.length + 1} bulk (20 codes)`);
  return { application: app, apiKey: app.api_key, secret: app.secret, campaigns };
}
