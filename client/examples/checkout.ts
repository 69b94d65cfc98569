/**
 * The whole journey against a running service, as an operator and then as a storefront:
 *
 *  1. admin: an application (only a name), a customer, a wallet (all defaults) and a coupon;
 *  2. checkout: list the customer's coupons for the cart → validate the one chosen → redeem it
 *     when the payment succeeds → revert it when the order is cancelled;
 *  3. loyalty: credit points with an `Idempotency-Key`, send the same request again (a retry after
 *     a timeout, say) and see it applied once, then read the wallet;
 *  4. admin: archive the example application.
 *
 * 503s are retried as the service advises (same request, same key, growing pauses): the clients
 * do it. Run it with `npm run example` and
 *   COUPONS_URL          where the service answers (default http://localhost:3000)
 *   COUPONS_ADMIN_TOKEN  the service's ADMIN_TOKEN
 * It prints each step and exits 1 at the first answer that is not the expected one.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminClient, createCouponsClient, listReasons, rateLimitOf, reasonOf, type Schemas } from '../src/index.js';
import { verifyWebhook, WebhookVerificationError } from '../src/webhooks.js';

const baseUrl = process.env.COUPONS_URL ?? 'http://localhost:3000';
/** Where the service reaches this script's webhook receiver (with docker compose: host.docker.internal). */
const receiverHost = process.env.COUPONS_EXAMPLE_RECEIVER_HOST ?? '127.0.0.1';
const adminToken = process.env.COUPONS_ADMIN_TOKEN;
if (!adminToken) {
  console.error('COUPONS_ADMIN_TOKEN is required (the ADMIN_TOKEN of the service at COUPONS_URL)');
  process.exit(2);
}

/** The body of a successful answer, or a failure naming the step and the service's error. */
function ok<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${step}: HTTP ${answer.response.status} ${JSON.stringify(answer.error)}`);
  console.log(`✔ ${step}`);
  return answer.data;
}
function expectEqual(what: string, actual: unknown, expected: unknown) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

async function main() {
  // ---- 1. the operator sets things up ---------------------------------------------------------
  const admin = createAdminClient({ baseUrl, adminToken: adminToken! });
  const app = ok(
    'admin: application created',
    await admin.POST('/admin/applications', { body: { name: `Example store ${new Date().toISOString()}`, currency: 'INR' } }),
  );
  const appPath = { params: { path: { app: app.id } } };
  ok(
    'admin: customer created',
    await admin.POST('/admin/applications/{app}/customers', { ...appPath, body: { customers: [{ source_id: 'shopper-1' }] } }),
  );
  const wallet = ok('admin: wallet created with defaults', await admin.POST('/admin/applications/{app}/wallets', { ...appPath, body: {} }));
  const campaign = ok(
    'admin: coupon WELCOME10 created (10% off orders from 500, once per customer)',
    await admin.POST('/admin/applications/{app}/campaigns', {
      ...appPath,
      body: {
        name: '10% off your order',
        code: 'WELCOME10',
        limits: { per_customer: 1 },
        discount: { kind: 'discount', type: 'percentage', value: 10, max: 500 },
        cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 500 }],
      },
    }),
  );

  // ---- 2. the storefront's checkout ------------------------------------------------------------
  const coupons = createCouponsClient({ baseUrl, apiKey: app.api_key, secret: app.secret });
  const order: Schemas['ApplyRequest']['order'] = {
    order_id: `order-${randomUUID()}`,
    original_price_subtotal: 1200,
    selling_price_subtotal: 1000,
    status: 'pending',
    items: [
      { product_id: 'shirt', original_price: 700, selling_price: 600, quantity: 1, shipping: 0 },
      { product_id: 'socks', original_price: 250, selling_price: 200, quantity: 2, shipping: 0 },
    ],
  };
  const listed = ok(
    'list: the coupons shopper-1 can use on this cart',
    await coupons.POST('/coupons/list/all', { body: { source_id: 'shopper-1', order } }),
  );
  const offer = listed.find((c) => c.coupon_code === 'WELCOME10');
  if (!offer?.is_applicable) throw new Error(`list: WELCOME10 is not offered as applicable: ${JSON.stringify(listed)}`);
  expectEqual('list: coupon_code_id is the campaign id', offer.coupon_code_id, campaign.id);

  const details = [{ coupon_id: offer.coupon_code_id, coupon_code: offer.coupon_code }];
  const checked = ok(
    'validate: the chosen coupon',
    await coupons.POST('/coupons/validate', { body: { source_id: 'shopper-1', coupon_details: details, order } }),
  );
  expectEqual('validate: applicable', checked.is_applicable, true);
  expectEqual('validate: total_discount', checked.coupon_savings.order.total_discount, 100);
  console.log(`  pay ${checked.coupon_savings.order.total_amount} instead of ${order.selling_price_subtotal}`);

  const redeemKey = randomUUID();
  const redeemed = ok(
    'redeem: after the payment succeeded',
    await coupons.POST('/coupons/apply', {
      params: { query: { type: 'redeem' }, header: { 'Idempotency-Key': redeemKey } },
      body: { source_id: 'shopper-1', coupon_details: details, order: { ...order, status: 'completed' } },
    }),
  );
  expectEqual('redeem: status', redeemed.status, 'completed');
  const again = await coupons.POST('/coupons/validate', { body: { source_id: 'shopper-1', coupon_details: details, order } });
  expectEqual(
    'validate after redeem: the per-customer limit is reached',
    again.data?.message,
    'coupon code redemption per_user_limit exceeded',
  );
  // The same, without matching English: the stable reason beside the body (docs/reasons.md).
  expectEqual('validate after redeem: the reason', reasonOf(again.response), 'per_user_limit');
  const relisted = await coupons.POST('/coupons/list/all', { body: { source_id: 'shopper-1', order } });
  expectEqual('list after redeem: the reason by coupon id', listReasons(relisted.response).reasons.get(campaign.id), 'per_user_limit');
  console.log('✔ validate and list: used up for this customer (reason per_user_limit)');

  const reverted = ok(
    'revert: the order was cancelled',
    await coupons.POST('/coupons/apply', {
      params: { query: { type: 'revert' } },
      body: { source_id: 'shopper-1', coupon_details: details, order: { ...order, status: 'reverted' } },
    }),
  );
  expectEqual('revert: status', reverted.status, 'reverted');

  // ---- 3. loyalty points -----------------------------------------------------------------------
  const creditKey = randomUUID();
  const credit = () =>
    coupons.PUT('/wallets/customer/{source_id}/transactions/{wallet_id}', {
      params: { path: { source_id: 'shopper-1', wallet_id: wallet.wallet_id }, header: { 'Idempotency-Key': creditKey } },
      body: { type: 'credit', points: 120, description: 'welcome bonus' },
    });
  const first = ok('wallet: 120 points credited with an Idempotency-Key', await credit());
  const replay = ok('wallet: the same request sent again is answered, not applied again', await credit());
  expectEqual('wallet: replayed txn_id', replay.txn_id, first.txn_id);
  const wallets = ok('wallet: read', await coupons.GET('/wallets/customer/{source_id}', { params: { path: { source_id: 'shopper-1' } } }));
  expectEqual(
    'wallet: balance',
    wallets.map((w) => [w.wallet_id, w.loyalty_points]),
    [[wallet.wallet_id, 120]],
  );
  const overdraft = await coupons.PUT('/wallets/customer/{source_id}/transactions/{wallet_id}', {
    params: { path: { source_id: 'shopper-1', wallet_id: wallet.wallet_id } },
    body: { type: 'debit', points: 500 },
  });
  expectEqual(
    'wallet: a debit over the balance is refused',
    [overdraft.response.status, reasonOf(overdraft.response)],
    [400, 'insufficient_points'],
  );
  console.log('✔ wallet: a debit over the balance is refused (reason insufficient_points)');

  // ---- 4. a verified webhook ------------------------------------------------------------------
  const deliveries: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, receiverHost === '127.0.0.1' ? '127.0.0.1' : '0.0.0.0', r));
  try {
    const hookUrl = `http://${receiverHost}:${(receiver.address() as AddressInfo).port}/hooks`;
    const hook = await admin.POST('/admin/applications/{app}/webhooks', { ...appPath, body: { url: hookUrl } });
    if (!hook.data)
      throw new Error(
        `webhook: ${hookUrl} refused (${JSON.stringify(hook.error)}); the service must allow it (WEBHOOK_ALLOWED_CIDRS) and reach it (COUPONS_EXAMPLE_RECEIVER_HOST)`,
      );
    console.log('✔ admin: webhook endpoint registered (its secret is shown this once)');
    ok(
      'admin: a signed test event sent',
      await admin.POST('/admin/applications/{app}/webhooks/{webhook}/ping', { params: { path: { app: app.id, webhook: hook.data.id } } }),
    );
    for (let waited = 0; deliveries.length === 0; waited += 100) {
      if (waited > 20_000) throw new Error('webhook: no delivery within 20 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const [delivery] = deliveries;
    const event = verifyWebhook(delivery!.body, delivery!.headers, { secrets: hook.data.secret });
    expectEqual('webhook: the verified event', event.type, 'webhook.ping');
    // The same delivery sent again six minutes later (a replay) is refused.
    const later = new Date(Date.now() + 6 * 60_000);
    let replay = 'accepted';
    try {
      verifyWebhook(delivery!.body, delivery!.headers, { secrets: hook.data.secret, now: later });
    } catch (err) {
      replay = err instanceof WebhookVerificationError ? err.reason : String(err);
    }
    expectEqual('webhook: a replay after the tolerance', replay, 'timestamp_outside_tolerance');
    console.log('✔ webhook: the ping verified with the secret; the same delivery replayed later refused');
  } finally {
    receiver.close();
  }

  // ---- 5. a rate limit -------------------------------------------------------------------------
  ok(
    'admin: the example application limited to 2 requests an hour',
    await admin.PATCH('/admin/applications/{app}', { ...appPath, body: { rate_limit: { requests: 2, window_seconds: 3600 } } }),
  );
  const read = () => coupons.GET('/wallets/customer/{source_id}', { params: { path: { source_id: 'shopper-1' } } });
  const counted = [await read(), await read(), await read()].map((r) => [r.response.status, rateLimitOf(r.response)?.remaining]);
  expectEqual('rate limit: two answered, the third refused', counted, [
    [200, 1],
    [200, 0],
    [429, 0],
  ]);
  const limited = await read();
  expectEqual('rate limit: the reason', reasonOf(limited.response), 'rate_limited');
  console.log(`✔ rate limit: 429 after 2 requests, retry after ${rateLimitOf(limited.response)?.retryAfterSeconds} s`);

  // ---- 6. tidy up ------------------------------------------------------------------------------
  ok('admin: example application archived', await admin.POST('/admin/applications/{app}/archive', appPath));
  console.log('all steps passed');
}

main().catch((err: unknown) => {
  console.error(`✘ ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
