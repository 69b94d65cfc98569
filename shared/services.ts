/**
 * The explicit dependency bundle handed to use cases (no container): repositories over one
 * database, and the in-process caches. Built by each composition root.
 */
import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { applicationRepository } from './data/application.repository.js';
import { campaignRepository } from './data/campaign.repository.js';
import { couponCodeRepository } from './data/coupon-code.repository.js';
import { customerRepository } from './data/customer.repository.js';
import type { Database } from './data/db.js';
import { eventRepository } from './data/event.repository.js';
import { idempotencyRecordRepository } from './data/idempotency-record.repository.js';
import { redemptionJournalRepository } from './data/redemption-journal.repository.js';
import { limitCounterRepository } from './data/limit-counter.repository.js';
import { walletBalanceRepository } from './data/wallet-balance.repository.js';
import { giftCardRepository } from './data/gift-card.repository.js';
import { walletTransactionRepository } from './data/wallet-transaction.repository.js';
import { walletRepository } from './data/wallet.repository.js';
import { webhookDeliveryRepository } from './data/webhook-delivery.repository.js';
import { operatorRepository } from './data/operator.repository.js';
import { webhookEndpointRepository } from './data/webhook-endpoint.repository.js';
import { SoldOutHints } from './cache/sold-out-hints.js';
import { CampaignCache } from './cache/campaign-cache.js';
import { CredentialCache } from './cache/credential-cache.js';
import { RecheckCache } from './cache/recheck-cache.js';
import { auditEntryRepository } from './data/audit-entry.repository.js';
import { ALL_APPLICATIONS, ConfigChanges } from './cache/config-changes.js';
import type { Logger } from './logger.js';
import { campaignTallyRepository } from './data/campaign-tally.repository.js';
import { ResultsTally } from './cache/results-tally.js';
import { CartRecorder } from './cache/cart-recorder.js';
import { recordedCartRepository } from './data/recorded-cart.repository.js';
import { backtestRepository } from './data/backtest.repository.js';
import type { ApplicationRecord } from './data/application.repository.js';
import type { WalletRecord } from './data/wallet.repository.js';
import type { WebhookEndpointRecord } from './data/webhook-endpoint.repository.js';

export function createRepositories(db: Database) {
  return {
    applications: applicationRepository(db.models),
    customers: customerRepository(db.models),
    campaigns: campaignRepository(db.models),
    couponCodes: couponCodeRepository(db.models),
    limitCounters: limitCounterRepository(db.models),
    redemptions: redemptionJournalRepository(db.models),
    idempotency: idempotencyRecordRepository(db.models),
    wallets: walletRepository(db.models),
    walletBalances: walletBalanceRepository(db.models),
    giftCards: giftCardRepository(db.models),
    walletTransactions: walletTransactionRepository(db.models),
    events: eventRepository(db.models),
    webhookEndpoints: webhookEndpointRepository(db.models),
    webhookDeliveries: webhookDeliveryRepository(db.models),
    operators: operatorRepository(db.models),
    audit: auditEntryRepository(db.models),
    campaignTallies: campaignTallyRepository(db.models),
    recordedCarts: recordedCartRepository(db.models),
    backtests: backtestRepository(db.models),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

export interface Services {
  config: Config;
  db: Database;
  repos: Repositories;
  credentials: CredentialCache;
  /** Applications by id, for workers (their jobs name an application, not credentials). */
  applications: RecheckCache<ApplicationRecord | null>;
  /** Wallets by `<application>:<wallet_id>` (wallet updates, cashback). */
  wallets: RecheckCache<WalletRecord | null>;
  campaigns: CampaignCache;
  /** Refusals and first-time customers counted for campaign results, written in batches (docs/results.md). */
  tally: ResultsTally;
  /** The carts list, validate and redeem saw, for the applications that record them, appended in batches (docs/results.md). */
  carts: CartRecorder;
  /** Campaigns this process saw refused at a campaign-wide limit (the API's sold-out refusals). */
  soldOut: SoldOutHints;
  /**
   * An application's webhook endpoints (active and disabled; empty: none), for recording events
   * and signing deliveries. An admin change is announced to every process (`changes`); a process
   * that sees a 410 forgets the application's endpoints itself.
   */
  webhookEndpoints: RecheckCache<WebhookEndpointRecord[]>;
  /**
   * Announces an admin change to every process (and drops this one's cached state of the
   * application at once): called by the admin use cases that change what the caches above hold
   * (shared/usecases/admin/announce.ts). Composition roots `start()` it to hear the others' announcements.
   */
  changes: ConfigChanges;
  /** Drops this process's cached state of one application (`*`: of all); the next use reads it again. */
  forget(applicationId: string): void;
  now: () => Date;
}

/** `<application>:<rest>` → [application, rest] (application ids never contain a colon). */
const splitOnce = (key: string): [string, string] => [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];

export function createServices(config: Config, db: Database, logger?: Logger): Services {
  const repos = createRepositories(db);
  const credentials = new CredentialCache(repos.applications, config.cacheCheckMs);
  const applications = new RecheckCache((id) => repos.applications.findById(id), config.cacheCheckMs);
  const wallets = new RecheckCache(
    (key) => {
      const [applicationId, walletId] = splitOnce(key);
      return repos.wallets.findByWalletId(applicationId, walletId);
    },
    config.cacheCheckMs,
    false,
  );
  const campaigns = new CampaignCache(repos.campaigns);
  const webhookEndpoints = new RecheckCache(
    (applicationId) => repos.webhookEndpoints.listByApplication(applicationId),
    config.cacheCheckMs,
  );
  /** Every cache's state of one application (`*`: of all), dropped. */
  const forget = (applicationId: string) => {
    const mine = (key: string) => applicationId === ALL_APPLICATIONS || key === applicationId || key.startsWith(`${applicationId}:`);
    credentials.forgetApplication(applicationId);
    applications.forgetWhere(mine);
    wallets.forgetWhere(mine);
    campaigns.forget(applicationId);
    webhookEndpoints.forgetWhere(mine);
  };
  return {
    config,
    db,
    repos,
    credentials,
    applications,
    wallets,
    campaigns,
    tally: new ResultsTally(repos, config.resultsTallyMs, logger),
    carts: new CartRecorder(repos, config.cartRecordMs, logger),
    soldOut: new SoldOutHints(),
    webhookEndpoints,
    changes: new ConfigChanges(forget, config.redisUrl, config.queuePrefix, logger),
    forget,
    now: clockOf(config),
  };
}

/**
 * The clock the service decides by: the machine's, or — in tests only (refused in production:
 * shared/config.ts) — the machine's plus the milliseconds written in `TEST_CLOCK_FILE`, read at
 * every reading so a test moves the time of every process it started (docs/wallets.md).
 */
function clockOf(config: Pick<Config, 'testClockFile'>): () => Date {
  const file = config.testClockFile;
  if (!file) return () => new Date();
  return () => {
    let offset = 0;
    try {
      offset = Number(readFileSync(file, 'utf8').trim()) || 0;
    } catch {
      // no file yet: no offset
    }
    return new Date(Date.now() + offset);
  };
}
