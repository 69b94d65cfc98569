/**
 * The explicit dependency bundle handed to use cases (no container): repositories over one
 * database, and the in-process caches. Built by each composition root.
 */
import type { Config } from './config.js';
import { applicationRepository } from './data/application.repository.js';
import { campaignRepository } from './data/campaign.repository.js';
import { couponCodeRepository } from './data/coupon-code.repository.js';
import { customerRepository } from './data/customer.repository.js';
import type { Database } from './data/db.js';
import { eventSequenceRepository } from './data/event-sequence.repository.js';
import { eventRepository } from './data/event.repository.js';
import { idempotencyRecordRepository } from './data/idempotency-record.repository.js';
import { redemptionJournalRepository } from './data/redemption-journal.repository.js';
import { usageCounterRepository } from './data/usage-counter.repository.js';
import { walletBalanceRepository } from './data/wallet-balance.repository.js';
import { walletTransactionRepository } from './data/wallet-transaction.repository.js';
import { walletRepository } from './data/wallet.repository.js';
import { webhookDeliveryRepository } from './data/webhook-delivery.repository.js';
import { webhookEndpointRepository } from './data/webhook-endpoint.repository.js';
import { ApplicationCache } from './usecases/application-cache.js';
import { CampaignCache } from './usecases/campaign-cache.js';
import { CredentialCache } from './usecases/credential-cache.js';

export function createRepositories(db: Database) {
  return {
    applications: applicationRepository(db.models),
    customers: customerRepository(db.models),
    campaigns: campaignRepository(db.models),
    couponCodes: couponCodeRepository(db.models),
    usageCounters: usageCounterRepository(db.models),
    redemptions: redemptionJournalRepository(db.models),
    idempotency: idempotencyRecordRepository(db.models),
    wallets: walletRepository(db.models),
    walletBalances: walletBalanceRepository(db.models),
    walletTransactions: walletTransactionRepository(db.models),
    events: eventRepository(db.models),
    eventSequences: eventSequenceRepository(db.models),
    webhookEndpoints: webhookEndpointRepository(db.models),
    webhookDeliveries: webhookDeliveryRepository(db.models),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

export interface Services {
  config: Config;
  db: Database;
  repos: Repositories;
  credentials: CredentialCache;
  applications: ApplicationCache;
  campaigns: CampaignCache;
  now: () => Date;
}

export function createServices(config: Config, db: Database): Services {
  const repos = createRepositories(db);
  return {
    config,
    db,
    repos,
    credentials: new CredentialCache(repos.applications, config.cacheCheckMs),
    applications: new ApplicationCache(repos.applications, config.cacheCheckMs),
    campaigns: new CampaignCache(repos.campaigns),
    now: () => new Date(),
  };
}
