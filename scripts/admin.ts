/**
 * `npm run admin -- <command> [flags]`: the admin command line (docs/admin-api.md "Command line").
 * It speaks to a running service's admin API — `--url` (or COUPONS_URL) and `--token` (or
 * COUPONS_ADMIN_TOKEN, else ADMIN_TOKEN) — through the typed client (client/), like any other
 * integration: it needs no database or Redis address, and every change it makes goes through the
 * same validation and announcements as the API's. Built on commander (`--help` on every command);
 * CSV read and written with csv-parse / csv-stringify, import errors naming the line.
 *
 * Prints JSON (or CSV for exports) on stdout, progress on stderr; exits 1 on a refused request
 * (the service's message and details on stderr), 2 on a usage error.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parse } from 'csv-parse/sync';
import { RESULT_COLUMNS } from '../shared/usecases/admin/results.usecase.js';
import { stringify } from 'csv-stringify/sync';
import { createAdminClient } from '../client/src/index.js';
import type { VerifyReportBody } from '../shared/usecases/admin/verify.usecase.js';
import { DISCREPANCIES_EXIT, reportLines } from './verify-report.js';

/** Largest batch one import request sends (the admin API takes up to 10,000 customers or 100,000 codes). */
const BATCH = 10_000;

class Refused extends Error {}

type Query = Record<string, string | undefined>;
interface Call {
  /** Path parameters, filled into the `{name}`s of the path. */
  path?: Record<string, string>;
  query?: Query;
  body?: unknown;
}

/** The command line; exported for its help texts (test/api/admin-cli.spec.ts), run when this file is the program. */
export const program = new Command('npm run admin --')
  .description('Configure the coupon service through its admin API (docs/admin-api.md).')
  .addOption(
    new Option('--url <url>', 'the service')
      .env('COUPONS_URL')
      .default(`http://localhost:${process.env.PORT ?? 3000}`, 'http://localhost:$PORT (3000)'),
  )
  .addOption(new Option('--token <token>', 'the admin token (default: COUPONS_ADMIN_TOKEN, else ADMIN_TOKEN)').env('COUPONS_ADMIN_TOKEN'))
  // The tool's own options come before the command (`--url` is also create-webhook's).
  .enablePositionalOptions()
  .showHelpAfterError('(--help for usage)')
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));

function adminClient() {
  const { url, token } = program.opts<{ url: string; token?: string }>();
  const adminToken = token ?? process.env.ADMIN_TOKEN;
  if (!adminToken) {
    process.stderr.write('an admin token is needed: --token, COUPONS_ADMIN_TOKEN or ADMIN_TOKEN\n');
    process.exit(2);
  }
  return createAdminClient({ baseUrl: url, adminToken });
}

/** One admin request through the typed client; a non-2xx answer ends the command (exit 1). */
async function request<T = any>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, call: Call = {}): Promise<T> {
  const client = adminClient() as unknown as Record<
    string,
    (p: string, init: unknown) => Promise<{ data?: T; error?: any; response: Response }>
  >;
  const query = Object.fromEntries(Object.entries(call.query ?? {}).filter(([, v]) => v !== undefined));
  const { data, error, response } = await client[method]!(`/admin${path}`, {
    params: { path: call.path ?? {}, query },
    ...(call.body !== undefined ? { body: call.body } : {}),
  });
  if (!response.ok)
    throw new Refused(error?.message ? `${error.message}: ${error.details} (${response.status})` : `HTTP ${response.status}`);
  return data as T;
}

/** Every item of a listing, page after page (1000 a page). */
async function everything<T = any>(path: string, key: string, call: Call = {}): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await request('GET', path, { ...call, query: { ...call.query, limit: '1000', cursor } });
    out.push(...(page[key] as T[]));
    cursor = page.next_cursor ?? undefined;
    process.stderr.write(`\r${key}: ${out.length}`);
  } while (cursor);
  process.stderr.write('\n');
  return out;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const printCsv = (rows: Record<string, unknown>[], columns: string[]) =>
  process.stdout.write(stringify(rows, { header: true, columns, cast: { date: (d) => d.toISOString(), boolean: String } }));
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const integer = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('not an integer');
  return n;
};

/** A CSV file's rows with the line each starts on; `columns` names the fields when there is no header. */
function readCsv(file: string, expected: string[], headerRequired: boolean): { row: Record<string, string>; line: number }[] {
  const text = readFileSync(file, 'utf8');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { skip_empty_lines: true, trim: true, info: true, relax_column_count: true, bom: true }) as never;
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new Refused(`${file}${e.lines ? `, line ${e.lines}` : ''}: ${e.message}`);
  }
  if (records.length === 0) throw new Refused(`${file}: no rows`);
  const first = records[0]!.record.map((h) => h.toLowerCase());
  const hasHeader = first.includes(expected[0]!);
  if (!hasHeader && headerRequired) throw new Refused(`${file}, line 1: a header naming the columns is needed (${expected.join(',')})`);
  const columns = hasHeader ? first : expected;
  const unknown = columns.filter((c) => !expected.includes(c));
  if (unknown.length) throw new Refused(`${file}, line 1: unknown column ${unknown.join(', ')} (expected ${expected.join(', ')})`);
  return records.slice(hasHeader ? 1 : 0).map(({ record, info }) => {
    if (record.length > columns.length)
      throw new Refused(`${file}, line ${info.lines}: ${record.length} fields, the header has ${columns.length}`);
    return { row: Object.fromEntries(columns.map((c, i) => [c, record[i] ?? ''])), line: info.lines };
  });
}

/** Sends rows in batches; an answer naming `field[i]` is reported at the line of that row. */
async function inBatches<R>(
  rows: { row: Record<string, string>; line: number }[],
  file: string,
  field: string,
  send: (batch: Record<string, string>[]) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    try {
      out.push(await send(batch.map((b) => b.row)));
    } catch (err) {
      const at = new RegExp(`"?${field}\\[(\\d+)\\]`).exec((err as Error).message);
      if (!at) throw err;
      throw new Refused(`${file}, line ${batch[Number(at[1])]!.line}: ${(err as Error).message}`);
    }
    process.stderr.write(`\r${field}: ${Math.min(i + BATCH, rows.length)}/${rows.length}`);
  }
  process.stderr.write('\n');
  return out;
}

/** Registers a command; its action's result is printed as JSON (or it prints itself and returns undefined). */
function command(name: string, description: string) {
  return program.command(name).description(description);
}
function run<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  return async (...args: A) => {
    const result = await action(...args);
    if (result !== undefined) print(result);
  };
}

const app = (o: { app: string }) => ({ app: o.app });
const campaignPath = (o: { app: string; campaign: string }) => ({ app: o.app, campaign: o.campaign });
const nothing = (value: unknown) => (value === undefined || value === '' ? undefined : value);

// ---- applications ----------------------------------------------------------------------------
command('create-application', 'create an application; prints its secret once')
  .requiredOption('--name <name>')
  .option('--timezone <tz>', 'IANA timezone (default UTC)')
  .option('--currency <code>', 'ISO 4217')
  .action(run((o) => request('POST', '/applications', { body: { name: o.name, timezone: o.timezone, currency: o.currency } })));
command('list-applications', 'one page of applications (--cursor for the next)')
  .option('--cursor <cursor>')
  .option('--include-archived')
  .action(
    run((o) =>
      request('GET', '/applications', {
        query: { limit: '1000', cursor: o.cursor, include_archived: o.includeArchived ? 'true' : undefined },
      }),
    ),
  );
command('update-application', 'change name, timezone, currency, status, rate_limit or stacking (docs/stacking.md)')
  .requiredOption('--app <id>')
  .requiredOption(
    '--json <file>',
    'e.g. {"rate_limit":{"requests":200,"window_seconds":1}} or {"stacking":{"max_coupons":3,"automatic_promotions":true}}',
  )
  .action(run((o) => request('PATCH', '/applications/{app}', { path: app(o), body: readJson(o.json) })));
command('rotate-secret', "replace an application's secret; prints the new one once")
  .requiredOption('--app <id>')
  .action(run((o) => request('POST', '/applications/{app}/rotate-secret', { path: app(o) })));

// ---- customers -------------------------------------------------------------------------------
command('upsert-customers', 'create or update customers from JSON ({"customers":[{"source_id":"c1"}]})')
  .requiredOption('--app <id>')
  .requiredOption('--json <file>')
  .action(run((o) => request('POST', '/applications/{app}/customers', { path: app(o), body: readJson(o.json) })));
command('import-customers', 'create or update customers from a CSV file with a header: source_id[,name,email]')
  .requiredOption('--app <id>')
  .requiredOption('--file <csv>')
  .action(
    run(async (o) => {
      const rows = readCsv(o.file, ['source_id', 'name', 'email'], true);
      const answers = await inBatches(rows, o.file, 'customers', (batch) =>
        request('POST', '/applications/{app}/customers', {
          path: app(o),
          body: { customers: batch.map((r) => ({ source_id: r.source_id, name: nothing(r.name), email: nothing(r.email) })) },
        }),
      );
      return { upserted: answers.reduce((n, a) => n + a.customers.length, 0) };
    }),
  );
command('export-customers', 'every customer as CSV: id,source_id,name,email,archived_at')
  .requiredOption('--app <id>')
  .option('--include-archived')
  .action(
    run(async (o) => {
      const rows = await everything('/applications/{app}/customers', 'customers', {
        path: app(o),
        query: { include_archived: o.includeArchived ? 'true' : undefined },
      });
      printCsv(rows, ['id', 'source_id', 'name', 'email', 'archived_at']);
    }),
  );

// ---- wallets ---------------------------------------------------------------------------------
command('create-wallet', 'create a wallet (every field has a default)')
  .requiredOption('--app <id>')
  .option('--json <file>')
  .action(run((o) => request('POST', '/applications/{app}/wallets', { path: app(o), body: o.json ? readJson(o.json) : {} })));
command('ledger', "one page of a customer's wallet ledger")
  .requiredOption('--app <id>')
  .requiredOption('--customer <source_id>')
  .requiredOption('--wallet <wallet_id>')
  .option('--cursor <cursor>')
  .action(
    run((o) =>
      request('GET', '/applications/{app}/customers/{customer}/wallets/{wallet_id}/ledger', {
        path: { app: o.app, customer: o.customer, wallet_id: o.wallet },
        query: { limit: '1000', cursor: o.cursor },
      }),
    ),
  );

// ---- campaigns and codes ---------------------------------------------------------------------
command('create-campaign', 'create a campaign from JSON (docs/campaigns.md), stacking and trigger included')
  .requiredOption('--app <id>')
  .requiredOption('--json <file>', 'e.g. {"name":"5 off","trigger":"automatic","stacking":{"priority":10},"discount":{…}}')
  .action(run((o) => request('POST', '/applications/{app}/campaigns', { path: app(o), body: readJson(o.json) })));
command('update-campaign', 'change a campaign from JSON')
  .requiredOption('--app <id>')
  .requiredOption('--campaign <id>')
  .requiredOption('--json <file>')
  .action(run((o) => request('PATCH', '/applications/{app}/campaigns/{campaign}', { path: campaignPath(o), body: readJson(o.json) })));
command('list-campaigns', 'one page of campaigns')
  .requiredOption('--app <id>')
  .option('--cursor <cursor>')
  .option('--include-archived')
  .action(
    run((o) =>
      request('GET', '/applications/{app}/campaigns', {
        path: app(o),
        query: { limit: '1000', cursor: o.cursor, include_archived: o.includeArchived ? 'true' : undefined },
      }),
    ),
  );
command('usage', "a campaign's usage: redeemed, reverted, refused, and what remains of each limit now")
  .requiredOption('--app <id>')
  .requiredOption('--campaign <id>')
  .action(run((o) => request('GET', '/applications/{app}/campaigns/{campaign}/usage', { path: campaignPath(o) })));
command('results', "a campaign's results (or, without --campaign, every campaign's) by day or hour: docs/results.md")
  .requiredOption('--app <id>')
  .option('--campaign <id>')
  .option('--from <YYYY-MM-DD>', "the first day, in the application's timezone (default: 30 days up to --to)")
  .option('--to <YYYY-MM-DD>', 'the last day (default: today)')
  .option('--bucket <day|hour>', 'one row per day or per hour', 'day')
  .option('--csv', 'the series as CSV, one row per day or hour')
  .action(
    run(async (o) => {
      const query = { from: o.from, to: o.to, bucket: o.bucket };
      const body = o.campaign
        ? await request('GET', '/applications/{app}/campaigns/{campaign}/results', { path: campaignPath(o), query })
        : await request('GET', '/applications/{app}/results', { path: app(o), query });
      if (!o.csv) return body;
      printCsv(body.series, [...RESULT_COLUMNS]);
      return undefined;
    }),
  );
command(
  'backtest',
  'replay recorded carts through a campaign — live, changed or a draft — and print what it would have done: docs/results.md',
)
  .requiredOption('--app <id>')
  .option('--campaign <id>', 'a live campaign: as it is, or with --changes')
  .option('--changes <file.json>', 'a campaign update body, applied to --campaign')
  .option('--draft <file.json>', 'a campaign create body: a draft, tried on every recorded cart')
  .option('--from <YYYY-MM-DD>', "the first day, in the application's timezone (default: 7 days up to --to)")
  .option('--to <YYYY-MM-DD>', 'the last day (default: today)')
  .option('--all-carts', 'every recorded cart, not only those that used the campaign')
  .option('--no-wait', 'print the backtest as queued and return, without waiting for its figures')
  .action(
    run(async (o) => {
      if (!o.campaign === !o.draft) throw new Refused('one of --campaign or --draft');
      const body = {
        ...(o.campaign ? { campaign_id: o.campaign } : { campaign: readJson(o.draft) }),
        ...(o.changes ? { changes: readJson(o.changes) } : {}),
        ...(o.from ? { from: o.from } : {}),
        ...(o.to ? { to: o.to } : {}),
        ...(o.allCarts ? { carts: 'all' } : {}),
      };
      let b = await request('POST', '/applications/{app}/backtests', { path: app(o), body });
      if (!o.wait) return b;
      // Its progress on stderr while it runs, its figures on stdout once done.
      while (b.status === 'queued' || b.status === 'running') {
        await new Promise((r) => setTimeout(r, 500));
        b = await request('GET', '/applications/{app}/backtests/{backtest}', { path: { ...app(o), backtest: b.id } });
        const { done, total } = b.progress;
        process.stderr.write(`\r${b.status}: ${done} of ${total} carts${total ? ` (${Math.floor((done / total) * 100)}%)` : ''}`);
      }
      process.stderr.write('\n');
      if (b.status === 'failed') throw new Refused(`the backtest failed: ${b.error}`);
      return b;
    }),
  );
command('backtests', "the application's newest backtests (or one, with --id), with their progress and figures")
  .requiredOption('--app <id>')
  .option('--id <backtest>')
  .action(
    run((o) =>
      o.id
        ? request('GET', '/applications/{app}/backtests/{backtest}', { path: { ...app(o), backtest: o.id } })
        : request('GET', '/applications/{app}/backtests', { path: app(o) }),
    ),
  );
command('generate-codes', 'generate unique bulk codes for a bulk campaign')
  .requiredOption('--app <id>')
  .requiredOption('--campaign <id>')
  .requiredOption('--count <n>', 'how many (at most 100,000 a call)', integer)
  .option('--prefix <prefix>')
  .option('--length <n>', 'random characters after the prefix (6 to 32, default 10)', integer)
  .action(
    run((o) =>
      request('POST', '/applications/{app}/campaigns/{campaign}/codes', {
        path: campaignPath(o),
        body: {
          generate: { count: o.count, ...(o.prefix !== undefined ? { prefix: o.prefix } : {}), ...(o.length ? { length: o.length } : {}) },
        },
      }),
    ),
  );
command('import-codes', 'import bulk codes from a file: one code a line, or CSV with a `code` header')
  .requiredOption('--app <id>')
  .requiredOption('--campaign <id>')
  .requiredOption('--file <file>')
  .action(
    run(async (o) => {
      const rows = readCsv(o.file, ['code'], false);
      const answers = await inBatches(rows, o.file, 'codes', (batch) =>
        request('POST', '/applications/{app}/campaigns/{campaign}/codes', {
          path: campaignPath(o),
          body: { codes: batch.map((r) => r.code) },
        }),
      );
      return {
        inserted: answers.reduce((n, a) => n + a.inserted, 0),
        taken: answers.flatMap((a) => a.taken),
        total: answers.at(-1)?.total,
      };
    }),
  );
command('export-codes', "a campaign's codes as CSV: id,code,kind")
  .requiredOption('--app <id>')
  .requiredOption('--campaign <id>')
  .action(
    run(async (o) => {
      printCsv(await everything('/applications/{app}/campaigns/{campaign}/codes', 'codes', { path: campaignPath(o) }), [
        'id',
        'code',
        'kind',
      ]);
    }),
  );

// ---- redemptions -----------------------------------------------------------------------------
const redemptionFilters = (c: Command) =>
  c
    .requiredOption('--app <id>')
    .option('--customer <source_id>')
    .option('--campaign <id>')
    .option('--order <order_id>')
    .option('--order-prefix <text>', 'orders whose id begins with it')
    .addOption(new Option('--state <state>').choices(['completed', 'reverted', 'refused']))
    .option('--from <iso>', 'created at or after')
    .option('--to <iso>', 'created before');
const redemptionQuery = (o: Record<string, string | undefined>): Query => ({
  customer: o.customer,
  campaign: o.campaign,
  order_id: o.order,
  order_id_prefix: o.orderPrefix,
  state: o.state,
  from: o.from,
  to: o.to,
});
redemptionFilters(command('list-redemptions', 'one page of redemptions, newest first'))
  .option('--cursor <cursor>')
  .action(
    run((o) =>
      request('GET', '/applications/{app}/redemptions', {
        path: app(o),
        query: { ...redemptionQuery(o), limit: '1000', cursor: o.cursor },
      }),
    ),
  );
redemptionFilters(command('export-redemptions', 'every matching redemption as CSV, newest first')).action(
  run(async (o) => {
    const rows = await everything('/applications/{app}/redemptions', 'redemptions', { path: app(o), query: redemptionQuery(o) });
    const columns = [
      'id',
      'campaign_id',
      'campaign_name',
      'customer_id',
      'customer_source_id',
      'customer_name',
      'order_id',
      'cycle',
      'state',
      'coupon_code',
      'discount',
      'cashback',
      'created_at',
    ];
    printCsv(rows, columns);
  }),
);

// ---- archive and delete ----------------------------------------------------------------------
const lifecycle = (name: 'archive' | 'unarchive' | 'delete', description: string) =>
  command(name, description)
    .requiredOption('--app <id>')
    .option('--campaign <id>')
    .option('--customer <source_id>')
    .option('--wallet <wallet_id>')
    .action(
      run((o) => {
        const base = '/applications/{app}';
        const [path, params] = o.campaign
          ? [`${base}/campaigns/{campaign}`, { app: o.app, campaign: o.campaign }]
          : o.customer
            ? [`${base}/customers/{customer}`, { app: o.app, customer: o.customer }]
            : o.wallet
              ? [`${base}/wallets/{wallet_id}`, { app: o.app, wallet_id: o.wallet }]
              : [base, { app: o.app }];
        return name === 'delete' ? request('DELETE', path, { path: params }) : request('POST', `${path}/${name}`, { path: params });
      }),
    );
lifecycle('archive', 'archive the application, or the campaign, customer or wallet named');
lifecycle('unarchive', 'unarchive the application, or the campaign, customer or wallet named');
lifecycle('delete', 'delete the application, or the campaign, customer or wallet named (refused while it has history)');

// ---- webhooks --------------------------------------------------------------------------------
const hook = (o: { app: string; webhook: string }) => ({ app: o.app, webhook: o.webhook });
const withHook = (c: Command) => c.requiredOption('--app <id>').requiredOption('--webhook <id>');
command('create-webhook', 'register an endpoint (docs/events.md); prints its secret once')
  .requiredOption('--app <id>')
  .requiredOption('--url <url>')
  .option('--events <types>', 'comma-separated event types (default *)')
  .option('--description <text>')
  .action(
    run((o) =>
      request('POST', '/applications/{app}/webhooks', {
        path: app(o),
        body: {
          url: o.url,
          ...(o.events ? { event_types: String(o.events).split(',') } : {}),
          ...(o.description ? { description: o.description } : {}),
        },
      }),
    ),
  );
command('list-webhooks', 'one page of endpoints')
  .requiredOption('--app <id>')
  .option('--cursor <cursor>')
  .action(run((o) => request('GET', '/applications/{app}/webhooks', { path: app(o), query: { limit: '1000', cursor: o.cursor } })));
withHook(command('update-webhook', 'change an endpoint from JSON ({"url"?, "event_types"?, "description"?, "status"?})'))
  .requiredOption('--json <file>')
  .action(run((o) => request('PATCH', '/applications/{app}/webhooks/{webhook}', { path: hook(o), body: readJson(o.json) })));
withHook(command('disable-webhook', 'stop deliveries to an endpoint (events are still recorded)')).action(
  run((o) => request('PATCH', '/applications/{app}/webhooks/{webhook}', { path: hook(o), body: { status: 'disabled' } })),
);
withHook(command('enable-webhook', 'resume deliveries to an endpoint')).action(
  run((o) => request('PATCH', '/applications/{app}/webhooks/{webhook}', { path: hook(o), body: { status: 'active' } })),
);
withHook(command('rotate-webhook-secret', "replace an endpoint's secret; both sign during the overlap"))
  .option('--overlap <seconds>', 'how long the previous secret still signs (default 86400)', integer)
  .action(
    run((o) =>
      request('POST', '/applications/{app}/webhooks/{webhook}/rotate-secret', {
        path: hook(o),
        body: o.overlap !== undefined ? { previous_secret_expires_in: o.overlap } : {},
      }),
    ),
  );
withHook(command('ping-webhook', 'send a signed webhook.ping to an endpoint')).action(
  run((o) => request('POST', '/applications/{app}/webhooks/{webhook}/ping', { path: hook(o) })),
);
withHook(command('list-deliveries', "one page of an endpoint's deliveries"))
  .addOption(new Option('--status <status>').choices(['pending', 'succeeded', 'dead', 'cancelled']))
  .option('--event <event_id>')
  .option('--cursor <cursor>')
  .action(
    run((o) =>
      request('GET', '/applications/{app}/webhooks/{webhook}/deliveries', {
        path: hook(o),
        query: { limit: '1000', status: o.status, event: o.event, cursor: o.cursor },
      }),
    ),
  );
command('list-events', "one page of an application's events")
  .requiredOption('--app <id>')
  .option('--type <type>')
  .option('--customer <source_id>')
  .option('--cursor <cursor>')
  .action(
    run((o) =>
      request('GET', '/applications/{app}/events', {
        path: app(o),
        query: { limit: '1000', type: o.type, customer: o.customer, cursor: o.cursor },
      }),
    ),
  );
withHook(command('redeliver', 'send one event, or every event of a time range, again'))
  .option('--event <event_id>')
  .option('--from <iso>')
  .option('--to <iso>')
  .action(
    run((o) => {
      if (!o.event && !(o.from && o.to)) program.error('redeliver needs --event, or --from and --to', { exitCode: 2 });
      return request('POST', '/applications/{app}/webhooks/{webhook}/redeliver', {
        path: hook(o),
        body: o.event ? { event_id: o.event } : { from: o.from, to: o.to },
      });
    }),
  );

// ---- operators (docs/admin-api.md#operators) ------------------------------------------------
const ROLE = () => new Option('--role <role>').choices(['owner', 'editor', 'viewer']);
const appList = (value: string) => (value === 'all' ? null : value.split(',').filter(Boolean));
command('whoami', 'who the token stands for (the ADMIN_TOKEN, or an operator)').action(run(() => request('GET', '/operators/me')));
command('create-operator', 'create an operator (owners); --password-stdin reads its password from stdin')
  .requiredOption('--email <email>')
  .addOption(ROLE().makeOptionMandatory())
  .option('--name <name>')
  .option('--applications <ids|all>', 'comma-separated application ids it is limited to (default all)', appList)
  .option('--password-stdin', 'read the password from stdin (never from an argument: shells keep history)')
  .action(
    run(async (o) =>
      request('POST', '/operators', {
        body: {
          email: o.email,
          role: o.role,
          name: o.name,
          applications: o.applications ?? null,
          ...(o.passwordStdin ? { password: readFileSync(0, 'utf8').replace(/\r?\n$/, '') } : {}),
        },
      }),
    ),
  );
command('list-operators', 'every operator (owners)').action(run(async () => ({ operators: await everything('/operators', 'operators') })));
command('update-operator', "change an operator's name, role or applications, or disable / enable it (owners)")
  .requiredOption('--operator <id>')
  .option('--name <name>')
  .addOption(ROLE())
  .option('--applications <ids|all>', 'comma-separated application ids, or all', appList)
  .option('--disable')
  .option('--enable')
  .action(
    run((o) => {
      if (o.disable && o.enable) program.error('--disable and --enable exclude each other', { exitCode: 2 });
      const body = {
        ...(o.name !== undefined ? { name: o.name } : {}),
        ...(o.role !== undefined ? { role: o.role } : {}),
        ...(o.applications !== undefined ? { applications: o.applications } : {}),
        ...(o.disable ? { disabled: true } : o.enable ? { disabled: false } : {}),
      };
      if (Object.keys(body).length === 0) program.error('nothing to change', { exitCode: 2 });
      return request('PATCH', '/operators/{operator}', { path: { operator: o.operator }, body });
    }),
  );
command('create-token', 'a personal API token for an operator (yourself, or anyone for owners); printed once')
  .requiredOption('--operator <id>')
  .option('--name <name>', 'what it is for')
  .action(run((o) => request('POST', '/operators/{operator}/tokens', { path: { operator: o.operator }, body: { name: o.name ?? '' } })));
command('list-tokens', "an operator's tokens (never the tokens themselves)")
  .requiredOption('--operator <id>')
  .action(run((o) => request('GET', '/operators/{operator}/tokens', { path: { operator: o.operator } })));
command('revoke-token', 'revoke a token: it stops working at once')
  .requiredOption('--operator <id>')
  .requiredOption('--token <token_id>')
  .action(run((o) => request('DELETE', '/operators/{operator}/tokens/{token}', { path: { operator: o.operator, token: o.token } })));

// ---- erasure ---------------------------------------------------------------------------------
command('erase', "erase a person's data: name, e-mail and source id (docs/admin-api.md#erasing-a-person)")
  .requiredOption('--app <id>')
  .requiredOption('--customer <source_id>', 'its source id or the service id')
  .action(run((o) => request('POST', '/applications/{app}/customers/{customer}/erase', { path: { app: o.app, customer: o.customer } })));

// ---- exactness -------------------------------------------------------------------------------
command(
  'verify',
  'recount limit counters and wallet balances from the journals; lists each discrepancy, exits 3 when any (docs/operations.md)',
)
  .option('--app, --application <id>', 'one application (default: every application the token reaches)')
  .option('--json', 'print the reports as JSON (one per line)')
  .option('--event-grace-ms <n>', 'redemptions this recent are not checked for events (default 60000)')
  .action(async (o) => {
    const apps = o.application
      ? [o.application as string]
      : (await everything<{ id: string }>('/applications', 'applications', { query: { include_archived: 'true' } })).map((a) => a.id);
    let found = 0;
    for (const id of apps) {
      const report = await request<VerifyReportBody>('GET', '/applications/{app}/verify', {
        path: { app: id },
        query: { event_grace_ms: o.eventGraceMs },
      });
      found += report.discrepancy_count;
      process.stdout.write(o.json ? `${JSON.stringify(report)}\n` : `${reportLines(report).join('\n')}\n`);
    }
    if (found > 0) process.exit(DISCREPANCIES_EXIT);
  });

// ---- the audit log -------------------------------------------------------------------------
command('audit', 'one page of the audit log, newest first: who changed what')
  .option('--app <id>', "an application's entries (its resources and itself)")
  .option('--target-type <type>', 'application, customer, wallet, campaign, webhook, operator or token')
  .option('--target <id>', "one resource's entries")
  .option('--operator <id>', "one operator's changes")
  .option('--action <action>', 'e.g. campaign.update')
  .option('--from <iso>')
  .option('--to <iso>')
  .option('--cursor <cursor>')
  .action(
    run((o) =>
      request('GET', '/audit', {
        query: {
          application: o.app,
          target_type: o.targetType,
          target_id: o.target,
          operator: o.operator,
          action: o.action,
          from: o.from,
          to: o.to,
          limit: '1000',
          cursor: o.cursor,
        },
      }),
    ),
  );

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  program.parseAsync(process.argv).catch((err) => {
    process.stderr.write(`${err instanceof Refused ? err.message : String((err as Error).message ?? err)}\n`);
    process.exit(1);
  });
}
