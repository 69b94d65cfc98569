/**
 * The database handle: one mongoose connection with every model bound to it. Created by the
 * processes' composition roots (api/server.ts, worker/main.ts, the CLI, the tests) and passed
 * down explicitly; nothing else opens connections.
 */
import { campaignCustomerSchema, campaignTallySchema, type CampaignCustomerDoc, type CampaignTallyDoc } from './campaign-tally.schema.js';
import mongoose, { type Connection, type Model } from 'mongoose';
import { backtestSchema, type BacktestDoc } from './backtest.schema.js';
import { recordedCartSchema, type RecordedCartDoc } from './recorded-cart.schema.js';
import { applyDriverFixes } from './driver-fixes.js';
import { retryTransient } from './transient.js';
import { applicationSchema, type ApplicationDoc } from './application.schema.js';
import { auditEntrySchema, type AuditEntryDoc } from './audit-entry.schema.js';
import { campaignSchema, type CampaignDoc } from './campaign.schema.js';
import { couponCodeSchema, type CouponCodeDoc } from './coupon-code.schema.js';
import { customerSchema, type CustomerDoc } from './customer.schema.js';
import { limitCounterSchema, type LimitCounterDoc } from './limit-counter.schema.js';
import { eventSchema, type EventDoc } from './event.schema.js';
import { idempotencyRecordSchema, type IdempotencyRecordDoc } from './idempotency-record.schema.js';
import {
  operatorSchema,
  operatorSessionSchema,
  operatorTokenSchema,
  type OperatorDoc,
  type OperatorSessionDoc,
  type OperatorTokenDoc,
} from './operator.schema.js';
import { redemptionSchema, type RedemptionDoc } from './redemption.schema.js';
import { giftCardSchema, type GiftCardDoc } from './gift-card.schema.js';
import { giftCardEntrySchema, type GiftCardEntryDoc } from './gift-card-entry.schema.js';
import { walletBalanceSchema, type WalletBalanceDoc } from './wallet-balance.schema.js';
import { walletTransactionSchema, type WalletTransactionDoc } from './wallet-transaction.schema.js';
import { walletSchema, type WalletDoc } from './wallet.schema.js';
import { webhookDeliverySchema, type WebhookDeliveryDoc } from './webhook-delivery.schema.js';
import { webhookEndpointSchema, type WebhookEndpointDoc } from './webhook-endpoint.schema.js';

function bindModels(connection: Connection) {
  return {
    Application: connection.model<ApplicationDoc>('Application', applicationSchema),
    Customer: connection.model<CustomerDoc>('Customer', customerSchema),
    Wallet: connection.model<WalletDoc>('Wallet', walletSchema),
    WalletBalance: connection.model<WalletBalanceDoc>('WalletBalance', walletBalanceSchema),
    WalletTransaction: connection.model<WalletTransactionDoc>('WalletTransaction', walletTransactionSchema),
    GiftCard: connection.model<GiftCardDoc>('GiftCard', giftCardSchema),
    GiftCardEntry: connection.model<GiftCardEntryDoc>('GiftCardEntry', giftCardEntrySchema),
    Campaign: connection.model<CampaignDoc>('Campaign', campaignSchema),
    CouponCode: connection.model<CouponCodeDoc>('CouponCode', couponCodeSchema),
    LimitCounter: connection.model<LimitCounterDoc>('LimitCounter', limitCounterSchema),
    Redemption: connection.model<RedemptionDoc>('Redemption', redemptionSchema),
    IdempotencyRecord: connection.model<IdempotencyRecordDoc>('IdempotencyRecord', idempotencyRecordSchema),
    Event: connection.model<EventDoc>('Event', eventSchema),
    WebhookEndpoint: connection.model<WebhookEndpointDoc>('WebhookEndpoint', webhookEndpointSchema),
    WebhookDelivery: connection.model<WebhookDeliveryDoc>('WebhookDelivery', webhookDeliverySchema),
    Operator: connection.model<OperatorDoc>('Operator', operatorSchema),
    OperatorToken: connection.model<OperatorTokenDoc>('OperatorToken', operatorTokenSchema),
    OperatorSession: connection.model<OperatorSessionDoc>('OperatorSession', operatorSessionSchema),
    AuditEntry: connection.model<AuditEntryDoc>('AuditEntry', auditEntrySchema),
    CampaignTally: connection.model<CampaignTallyDoc>('CampaignTally', campaignTallySchema),
    CampaignCustomer: connection.model<CampaignCustomerDoc>('CampaignCustomer', campaignCustomerSchema),
    RecordedCart: connection.model<RecordedCartDoc>('RecordedCart', recordedCartSchema),
    Backtest: connection.model<BacktestDoc>('Backtest', backtestSchema),
  };
}
export type Models = ReturnType<typeof bindModels>;

export interface Database {
  connection: Connection;
  models: Models;
  close(): Promise<void>;
}

/** How long start-up retries an index creation the database refused for a reason of its own (a deadlock). */
const INDEX_RETRY_MS = 30_000;

/** How long a connection may wait for the database's next bytes before it is given up (the driver's socketTimeoutMS). */
const SOCKET_TIMEOUT_MS = 60_000;

/**
 * Connects, binds the models and makes sure every index exists. `monitorCommands` lets tests
 * count database round trips (commandStarted events); `socketTimeoutMS` (the worker's
 * DB_SOCKET_TIMEOUT_MS, tests freezing a database) waits less than {@link SOCKET_TIMEOUT_MS}.
 *
 * A connection that died silently (no FIN, no reset) is only noticed by that timeout, and a timed
 * out command closes its own connection, not the pool: the pool's other connections on the same
 * dead path would each cost the next attempts a whole timeout. The server monitor notices for all
 * of them: its check on its own (dead) connection fails within `connectTimeoutMS` and clears the
 * pool. So with a shorter socket timeout the monitor checks every third of it and gives a check
 * that long: a retry started one socket timeout after the path died finds the pool cleared, or at
 * worst meets one more dead connection (docs/reliability.md, "A connection that dies silently").
 */
export async function connectDatabase(uri: string, opts: { monitorCommands?: boolean; socketTimeoutMS?: number } = {}): Promise<Database> {
  applyDriverFixes();
  // autoIndex off: indexes are created once below, awaited, instead of racing the first queries.
  const connection = mongoose.createConnection(uri, {
    monitorCommands: opts.monitorCommands ?? false,
    autoIndex: false,
    maxPoolSize: 20,
    // Bounded waits: while the database is away a request fails (503) in seconds, never hangs.
    serverSelectionTimeoutMS: 5_000,
    socketTimeoutMS: opts.socketTimeoutMS ?? SOCKET_TIMEOUT_MS,
    ...(opts.socketTimeoutMS === undefined
      ? {}
      : {
          connectTimeoutMS: Math.min(30_000, opts.socketTimeoutMS),
          heartbeatFrequencyMS: Math.min(10_000, Math.max(500, Math.floor(opts.socketTimeoutMS / 3))),
        }),
  });
  await connection.asPromise();
  const models = bindModels(connection);
  for (const model of Object.values(models) as Model<unknown>[]) {
    // Replicas starting together create the same indexes at once: the test database can refuse one
    // of them as a deadlock, which would stop that replica's start-up. Creating an index that
    // exists is a no-op, so a refused attempt is simply made again.
    await retryTransient(async () => {
      try {
        await model.createIndexes();
      } catch (err) {
        // An index that exists with other options than the schema's (e.g. without its TTL): rebuild this model's.
        if (![85, 86].includes((err as { code?: number }).code ?? 0)) throw err;
        await model.syncIndexes();
      }
    }, INDEX_RETRY_MS);
  }
  return { connection, models, close: () => connection.close() };
}

/** True for E11000 (a unique index refused an insert or upsert). */
export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
