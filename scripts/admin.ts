/**
 * `npm run admin -- <command> [flags]`: the admin use cases from a shell (docs/admin-api.md).
 * Prints JSON on stdout; progress on stderr.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isDomainError } from '../shared/errors.js';
import {
  createApplicationFromAdmin,
  deleteApplication,
  listApplications,
  rotateSecret,
  setApplicationArchived,
  updateApplication,
} from '../shared/usecases/admin/applications.usecase.js';
import {
  addBulkCodes,
  createCampaign,
  deleteCampaign,
  listCampaigns,
  setCampaignArchived,
  updateCampaign,
} from '../shared/usecases/admin/campaigns.usecase.js';
import { deleteCustomer, setCustomerArchived, upsertCustomers } from '../shared/usecases/admin/customers.usecase.js';
import { listRedemptions } from '../shared/usecases/admin/redemptions.usecase.js';
import { createWallet, deleteWallet, readLedger, setWalletArchived } from '../shared/usecases/admin/wallets.usecase.js';
import { listDeliveries, listEvents, redeliver } from '../shared/usecases/admin/webhook-deliveries.usecase.js';
import { createWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../shared/usecases/admin/webhooks.usecase.js';
import { WebhookQueue } from '../shared/queue/webhook-queue.js';
import { progress, withServices } from './cli-context.js';

const USAGE = `usage: npm run admin -- <command> [flags]
  create-application --name N [--timezone TZ] [--currency CUR]
  list-applications [--cursor C] [--include-archived]
  update-application --app ID --json FILE
  rotate-secret --app ID
  upsert-customers --app ID --json FILE          ({"customers":[{"source_id":"c1"}]})
  create-wallet --app ID [--json FILE]          (every field has a default)
  create-campaign --app ID --json FILE           (docs/campaigns.md)
  update-campaign --app ID --campaign ID --json FILE
  list-campaigns --app ID [--cursor C] [--include-archived]
  generate-codes --app ID --campaign ID --count N [--prefix P] [--length L]
  import-codes --app ID --campaign ID --file FILE (one code per line)
  list-redemptions --app ID [--customer SOURCE_ID] [--campaign ID] [--cursor C]
  ledger --app ID --customer SOURCE_ID --wallet WALLET_ID [--cursor C]
  archive | unarchive | delete --app ID [--campaign ID | --customer SOURCE_ID | --wallet WALLET_ID]
                                                 (the application itself when none is named)
  create-webhook --app ID --url URL [--events T1,T2 (default *)] [--description D]   (docs/events.md)
  list-webhooks --app ID [--cursor C]
  update-webhook --app ID --webhook ID --json FILE ({"url"?, "event_types"?, "description"?, "status"?})
  disable-webhook --app ID --webhook ID
  enable-webhook --app ID --webhook ID
  rotate-webhook-secret --app ID --webhook ID [--overlap SECONDS (default 86400)]
  list-deliveries --app ID --webhook ID [--status pending|succeeded|dead|cancelled] [--event EVENT_ID] [--cursor C]
  list-events --app ID [--type TYPE] [--customer SOURCE_ID] [--cursor C]
  redeliver --app ID --webhook ID (--event EVENT_ID | --from ISO --to ISO)   (also needs REDIS_URL)
Listings print one page of up to 1000 and its next_cursor.`;

const { positionals, values: f } = parseArgs({
  allowPositionals: true,
  options: Object.fromEntries(
    [
      ...['name', 'timezone', 'currency', 'app', 'json', 'campaign', 'count', 'prefix', 'length', 'file', 'customer', 'wallet', 'cursor'],
      ...['url', 'events', 'description', 'webhook', 'overlap', 'status', 'event', 'type', 'from', 'to'],
    ]
      .map((k) => [k, { type: 'string' as const }] as [string, { type: 'string' | 'boolean' }])
      .concat([['include-archived', { type: 'boolean' }]]),
  ),
});
const json = () => JSON.parse(readFileSync(need('json'), 'utf8'));
function need(k: string): string {
  const v = f[k];
  if (typeof v !== 'string') {
    process.stderr.write(`--${k} is required\n${USAGE}\n`);
    process.exit(2);
  }
  return v;
}

/** The paging query of a listing command: one page of 1000, from --cursor. */
const page = (extra: Record<string, string | undefined> = {}) =>
  Object.fromEntries(
    Object.entries({ limit: '1000', cursor: f.cursor as string | undefined, ...extra }).filter(([, v]) => v !== undefined),
  );
const archived = () => (f['include-archived'] ? { include_archived: 'true' } : {});

type Services = Parameters<Parameters<typeof withServices>[0]>[0];
/** The resource the flags name: a campaign, a customer, a wallet, or the application itself. */
const target = () => {
  const app = need('app');
  const campaign = f.campaign as string | undefined;
  const customer = f.customer as string | undefined;
  const wallet = f.wallet as string | undefined;
  return {
    setArchived: (s: Services, archive: boolean) =>
      campaign
        ? setCampaignArchived(s, app, campaign, archive)
        : customer
          ? setCustomerArchived(s, app, customer, archive)
          : wallet
            ? setWalletArchived(s, app, wallet, archive)
            : setApplicationArchived(s, app, archive),
    remove: (s: Services) =>
      campaign
        ? deleteCampaign(s, app, campaign)
        : customer
          ? deleteCustomer(s, app, customer)
          : wallet
            ? deleteWallet(s, app, wallet)
            : deleteApplication(s, app),
  };
};

const commands: Record<string, (s: Services) => Promise<unknown>> = {
  'create-application': (s) =>
    createApplicationFromAdmin(s, {
      name: need('name'),
      ...(f.timezone ? { timezone: f.timezone } : {}),
      ...(f.currency ? { currency: f.currency } : {}),
    }),
  'list-applications': (s) => listApplications(s, page(archived())),
  'update-application': (s) => updateApplication(s, need('app'), json()),
  'rotate-secret': (s) => rotateSecret(s, need('app')),
  'upsert-customers': (s) => upsertCustomers(s, need('app'), json()),
  'create-wallet': (s) => createWallet(s, need('app'), f.json ? json() : {}),
  'create-campaign': (s) => createCampaign(s, need('app'), json()),
  'update-campaign': (s) => updateCampaign(s, need('app'), need('campaign'), json()),
  'list-campaigns': (s) => listCampaigns(s, need('app'), page(archived())),
  'generate-codes': (s) =>
    addBulkCodes(
      s,
      need('app'),
      need('campaign'),
      {
        generate: {
          count: Number(need('count')),
          ...(f.prefix ? { prefix: f.prefix } : {}),
          ...(f.length ? { length: Number(f.length) } : {}),
        },
      },
      progress('codes'),
    ),
  'import-codes': (s) =>
    addBulkCodes(
      s,
      need('app'),
      need('campaign'),
      {
        codes: readFileSync(need('file'), 'utf8')
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean),
      },
      progress('codes'),
    ),
  'list-redemptions': (s) =>
    listRedemptions(s, need('app'), page({ customer: f.customer as string | undefined, campaign: f.campaign as string | undefined })),
  ledger: (s) => readLedger(s, need('app'), need('customer'), need('wallet'), page()),
  archive: (s) => target().setArchived(s, true),
  unarchive: (s) => target().setArchived(s, false),
  delete: (s) => target().remove(s),
  'create-webhook': (s) =>
    createWebhook(s, need('app'), {
      url: need('url'),
      ...(f.events ? { event_types: String(f.events).split(',') } : {}),
      ...(f.description ? { description: f.description } : {}),
    }),
  'list-webhooks': (s) => listWebhooks(s, need('app'), page()),
  'update-webhook': (s) => updateWebhook(s, need('app'), need('webhook'), json()),
  'disable-webhook': (s) => updateWebhook(s, need('app'), need('webhook'), { status: 'disabled' }),
  'enable-webhook': (s) => updateWebhook(s, need('app'), need('webhook'), { status: 'active' }),
  'rotate-webhook-secret': (s) =>
    rotateWebhookSecret(s, need('app'), need('webhook'), f.overlap ? { previous_secret_expires_in: Number(f.overlap) } : {}),
  'list-deliveries': (s) =>
    listDeliveries(s, need('app'), need('webhook'), page({ status: f.status as string | undefined, event: f.event as string | undefined })),
  'list-events': (s) =>
    listEvents(s, need('app'), page({ type: f.type as string | undefined, customer: f.customer as string | undefined })),
  redeliver: async (s) => {
    if (!s.config.redisUrl) {
      process.stderr.write('REDIS_URL is required to queue deliveries\n');
      process.exit(1);
    }
    const webhooks = new WebhookQueue(s.config);
    try {
      const range = f.event ? { event_id: f.event } : { from: need('from'), to: need('to') };
      return await redeliver({ ...s, webhooks }, need('app'), need('webhook'), range);
    } finally {
      await webhooks.close();
    }
  },
};

const command = commands[positionals[0] ?? ''];
if (!command) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
withServices(async (services) => {
  process.stdout.write(`${JSON.stringify(await command(services), null, 2)}\n`);
}).catch((err) => {
  process.stderr.write(isDomainError(err) ? `${err.message}: ${err.details}\n` : `${String(err)}\n`);
  process.exit(1);
});
