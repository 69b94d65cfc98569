/**
 * `npm run admin -- <command> [flags]`: the admin use cases from a shell (docs/admin-api.md).
 * Prints JSON on stdout; progress on stderr.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isDomainError } from '../shared/errors.js';
import {
  createApplicationFromAdmin,
  listApplications,
  rotateSecret,
  updateApplication,
} from '../shared/usecases/admin/applications.usecase.js';
import { addBulkCodes, createCampaign, listCampaigns, updateCampaign } from '../shared/usecases/admin/campaigns.usecase.js';
import { upsertCustomers } from '../shared/usecases/admin/customers.usecase.js';
import { listRedemptions } from '../shared/usecases/admin/redemptions.usecase.js';
import { createWallet, readLedger } from '../shared/usecases/admin/wallets.usecase.js';
import { listDeliveries, listEvents, redeliver } from '../shared/usecases/admin/webhook-deliveries.usecase.js';
import { createWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../shared/usecases/admin/webhooks.usecase.js';
import { WebhookQueue } from '../shared/queue/webhook-queue.js';
import { progress, withServices } from './cli-context.js';

const USAGE = `usage: npm run admin -- <command> [flags]
  create-application --name N --timezone TZ --currency CUR
  list-applications
  update-application --app ID --json FILE
  rotate-secret --app ID
  upsert-customers --app ID --json FILE          ({"customers":[{"source_id":"c1"}]})
  create-wallet --app ID --json FILE
  create-campaign --app ID --json FILE           (docs/campaigns.md)
  update-campaign --app ID --campaign ID --json FILE
  list-campaigns --app ID
  generate-codes --app ID --campaign ID --count N [--prefix P] [--length L]
  import-codes --app ID --campaign ID --file FILE (one code per line)
  list-redemptions --app ID [--customer SOURCE_ID]
  ledger --app ID --customer SOURCE_ID --wallet WALLET_ID
  create-webhook --app ID --url URL [--events T1,T2 (default *)] [--description D]   (docs/events.md)
  list-webhooks --app ID
  update-webhook --app ID --webhook ID --json FILE ({"url"?, "event_types"?, "description"?, "status"?})
  disable-webhook --app ID --webhook ID
  enable-webhook --app ID --webhook ID
  rotate-webhook-secret --app ID --webhook ID [--overlap SECONDS (default 86400)]
  list-deliveries --app ID --webhook ID [--status pending|succeeded|dead|cancelled] [--event EVENT_ID]
  list-events --app ID [--type TYPE] [--customer SOURCE_ID]
  redeliver --app ID --webhook ID (--event EVENT_ID | --from ISO --to ISO)   (also needs REDIS_URL)`;

const { positionals, values: f } = parseArgs({
  allowPositionals: true,
  options: Object.fromEntries(
    [
      ...['name', 'timezone', 'currency', 'app', 'json', 'campaign', 'count', 'prefix', 'length', 'file', 'customer', 'wallet'],
      ...['url', 'events', 'description', 'webhook', 'overlap', 'status', 'event', 'type', 'from', 'to'],
    ].map((k) => [k, { type: 'string' as const }]),
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

const commands: Record<string, (s: Parameters<Parameters<typeof withServices>[0]>[0]) => Promise<unknown>> = {
  'create-application': (s) =>
    createApplicationFromAdmin(s, { name: need('name'), timezone: need('timezone'), currency: need('currency') }),
  'list-applications': (s) => listApplications(s),
  'update-application': (s) => updateApplication(s, need('app'), json()),
  'rotate-secret': (s) => rotateSecret(s, need('app')),
  'upsert-customers': (s) => upsertCustomers(s, need('app'), json()),
  'create-wallet': (s) => createWallet(s, need('app'), json()),
  'create-campaign': (s) => createCampaign(s, need('app'), json()),
  'update-campaign': (s) => updateCampaign(s, need('app'), need('campaign'), json()),
  'list-campaigns': (s) => listCampaigns(s, need('app')),
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
  'list-redemptions': (s) => listRedemptions(s, need('app'), { customer: f.customer as string | undefined, limit: 1000 }),
  ledger: (s) => readLedger(s, need('app'), need('customer'), need('wallet')),
  'create-webhook': (s) =>
    createWebhook(s, need('app'), {
      url: need('url'),
      ...(f.events ? { event_types: String(f.events).split(',') } : {}),
      ...(f.description ? { description: f.description } : {}),
    }),
  'list-webhooks': (s) => listWebhooks(s, need('app')),
  'update-webhook': (s) => updateWebhook(s, need('app'), need('webhook'), json()),
  'disable-webhook': (s) => updateWebhook(s, need('app'), need('webhook'), { status: 'disabled' }),
  'enable-webhook': (s) => updateWebhook(s, need('app'), need('webhook'), { status: 'active' }),
  'rotate-webhook-secret': (s) =>
    rotateWebhookSecret(s, need('app'), need('webhook'), f.overlap ? { previous_secret_expires_in: Number(f.overlap) } : {}),
  'list-deliveries': (s) =>
    listDeliveries(s, need('app'), need('webhook'), {
      ...(f.status ? { status: f.status } : {}),
      ...(f.event ? { event: f.event } : {}),
      limit: 1000,
    }),
  'list-events': (s) =>
    listEvents(s, need('app'), { ...(f.type ? { type: f.type } : {}), ...(f.customer ? { customer: f.customer } : {}), limit: 1000 }),
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
