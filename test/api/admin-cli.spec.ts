/**
 * The admin command line (scripts/admin.ts, docs/admin-api.md "Command line") as an operator runs
 * it: a real process talking to a running API with a URL and a token only (no database or Redis
 * address in its environment); `--help` on every command; CSV import and export of codes,
 * customers and redemptions, import errors naming the line.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { program } from '../../scripts/admin.js';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, settle } from '../support/admin.js';
import { PACE_MARGIN, timeoutFromNow } from '../support/pace.js';
import { TEST_ADMIN_TOKEN, useTestApi } from '../support/context.js';
import { nodeArgsFor } from '../../scripts/service-build.js';

const exec = promisify(execFile);

describe('admin command line: through the admin API', function () {
  const api = useTestApi();
  const { client, must } = adminHelpers(api);
  const dir = mkdtempSync(join(tmpdir(), 'coupons-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  // Each test starts several CLI processes; how long one takes depends on the machine's load, so
  // after each the test's timeout is set from the slowest measured so far (docs/testing.md).
  let slowestSpawnMs = 0;
  /** The most CLI processes a test below starts after any one of them. */
  const SPAWNS_LEFT_AT_MOST = 8;
  /** Runs the CLI; resolves with its exit code and output whatever the code. */
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const base = { ...process.env, COUPONS_URL: api().url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN, MONGODB_URI: '', REDIS_URL: '', ...env };
    const started = Date.now();
    try {
      const { stdout, stderr } = await exec('node', [...nodeArgsFor('scripts/admin.ts'), ...args], { env: base });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    } finally {
      slowestSpawnMs = Math.max(slowestSpawnMs, Date.now() - started);
      timeoutFromNow(Math.max(30_000, PACE_MARGIN * slowestSpawnMs * SPAWNS_LEFT_AT_MOST));
    }
  };
  const json = async (args: string[]) => {
    const r = await cli(args);
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout);
  };

  it('when --help is asked of the tool and of every command, then each has its usage; the tool prints it and exits 0', async () => {
    // Every command's help text, read from the program itself (one process for all of them) …
    const names = program.commands.map((c) => c.name());
    expect(names).to.include.members([
      'import-codes',
      'export-codes',
      'import-customers',
      'export-customers',
      'export-redemptions',
      'usage',
      'results',
      'backtest',
      'backtests',
      'ping-webhook',
    ]);
    for (const c of program.commands) {
      const help = c.helpInformation();
      expect(help, c.name()).to.include(`Usage: npm run admin -- ${c.name()} [options]`);
      expect(help, c.name()).to.include('-h, --help');
    }
    // … and the real process answers --help with it, at the top and for a command, exit 0.
    const top = await cli(['--help']);
    expect(top.code).to.equal(0);
    expect([...top.stdout.matchAll(/^ {2}([a-z-]+)(?: \[options\])?(?= {2,})/gm)].map((m) => m[1])).to.deep.equal(names);
    const one = await cli(['import-codes', '--help']);
    expect(one.code).to.equal(0);
    expect(one.stdout).to.equal(program.commands.find((c) => c.name() === 'import-codes')!.helpInformation());
    const unknown = await cli(['nope']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include("unknown command 'nope'");
    const missing = await cli(['usage', '--app', 'x']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include("required option '--campaign <id>' not specified");
  });

  it('when operators and their tokens are managed from the command line, then a token it prints works until it revokes it, and a viewer is refused a change (exit 1, 403)', async () => {
    // The password from stdin, never an argument.
    const withStdin = (args: string[], input: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const env = { ...process.env, COUPONS_URL: api().url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN, MONGODB_URI: '', REDIS_URL: '' };
        const child = execFile('node', [...nodeArgsFor('scripts/admin.ts'), ...args], { env }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin!.end(input);
      });
    const email = `cli-${process.pid}-${Date.now()}@shop.example`;
    const made = await withStdin(
      ['create-operator', '--email', email, '--role', 'viewer', '--name', 'Cli', '--password-stdin'],
      'a long enough password\n',
    );
    expect(made.code, made.stderr).to.equal(0);
    const operator = JSON.parse(made.stdout);
    expect(operator).to.include({ email, role: 'viewer', has_password: true });
    const { token, id: tokenId } = await json(['create-token', '--operator', operator.id, '--name', 'cli']);
    expect(token).to.match(/^cop_/);
    const me = await cli(['whoami'], { COUPONS_ADMIN_TOKEN: token });
    expect(me.code, me.stderr).to.equal(0);
    expect(JSON.parse(me.stdout)).to.include({ kind: 'operator', id: operator.id, role: 'viewer' });
    const change = await cli(['create-application', '--name', 'by a viewer'], { COUPONS_ADMIN_TOKEN: token });
    expect(change.code).to.equal(1);
    expect(change.stderr).to.include('Forbidden: the viewer role may not change anything (403)');
    expect((await json(['list-tokens', '--operator', operator.id])).tokens.map((t: { id: string }) => t.id)).to.deep.equal([tokenId]);
    expect((await json(['revoke-token', '--operator', operator.id, '--token', tokenId])).revoked_at).to.be.a('string');
    expect((await cli(['whoami'], { COUPONS_ADMIN_TOKEN: token })).code).to.equal(1);
    expect((await json(['update-operator', '--operator', operator.id, '--role', 'editor'])).role).to.equal('editor');
    expect((await json(['list-operators'])).operators.map((o: { id: string }) => o.id)).to.include(operator.id);
    // The audit log of that operator, as the command line reads it: newest first.
    const audit = await json(['audit', '--target', operator.id]);
    expect(audit.entries.map((e: { action: string }) => e.action)).to.deep.equal(['operator.update', 'operator.create']);
    expect(audit.entries[0].changes.role).to.deep.equal({ before: 'viewer', after: 'editor' });
    const tokens = await json(['audit', '--target-type', 'token', '--action', 'token.revoke', '--target', tokenId]);
    expect(tokens.entries).to.have.length(1);
  });

  it('when the token is wrong or the service unreachable, then it exits 1 saying so', async () => {
    const wrong = await cli(['list-applications'], { COUPONS_ADMIN_TOKEN: 'wrong-token-0123456789' });
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.match(/\(401\)/);
    const unreachable = await cli(['list-applications'], { COUPONS_URL: 'http://127.0.0.1:9' });
    expect(unreachable.code).to.equal(1);
    // --url before the command overrides COUPONS_URL.
    expect((await cli(['--url', api().url, 'list-applications'], { COUPONS_URL: 'http://127.0.0.1:9' })).code).to.equal(0);
    const refused = await cli(['create-application', '--name', 'x', '--timezone', 'Nowhere/Land']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('"timezone" must be an IANA timezone');
  });

  it('when codes are imported from a CSV with a header and exported, then the same codes come back; a bad code is reported at its line', async () => {
    const app = await json(['create-application', '--name', 'CSV', '--timezone', 'UTC']);
    const campaign = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'bulk',
      code_type: 'bulk',
      discount: { kind: 'discount', type: 'flat', value: 1 },
    });
    const codes = ['CSV-A1', 'CSV-B2', 'CSV-C3'];
    const imported = await json([
      'import-codes',
      '--app',
      app.id,
      '--campaign',
      campaign.id,
      '--file',
      file('codes.csv', `code\n${codes.join('\n')}\n`),
    ]);
    expect(imported).to.deep.include({ inserted: 3, taken: [], total: 3 });
    // Plain lines (no header) work too, and a code taken already is reported, not inserted.
    const again = await json([
      'import-codes',
      '--app',
      app.id,
      '--campaign',
      campaign.id,
      '--file',
      file('more.txt', 'CSV-D4\r\nCSV-A1\r\n'),
    ]);
    expect(again).to.deep.include({ inserted: 1, taken: ['CSV-A1'], total: 4 });
    const exported = await cli(['export-codes', '--app', app.id, '--campaign', campaign.id]);
    expect(exported.code, exported.stderr).to.equal(0);
    const rows = parse(exported.stdout, { columns: true }) as { id: string; code: string; kind: string }[];
    expect(rows.map((r) => r.code).sort()).to.deep.equal([...codes, 'CSV-D4'].sort());
    expect(rows.every((r) => r.kind === 'bulk' && /^[0-9a-f]{24}$/.test(r.id))).to.equal(true);

    const bad = await cli([
      'import-codes',
      '--app',
      app.id,
      '--campaign',
      campaign.id,
      '--file',
      file('bad.csv', 'code\nOK-1\nOK-2\nnot a code!\nOK-3\n'),
    ]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('bad.csv, line 4');
    const broken = await cli([
      'import-codes',
      '--app',
      app.id,
      '--campaign',
      campaign.id,
      '--file',
      file('broken.csv', 'code\nOK-1\n"OK-2\n'),
    ]);
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.match(/broken\.csv, line 3/);
    const after = parse((await cli(['export-codes', '--app', app.id, '--campaign', campaign.id])).stdout, { columns: true }) as unknown[];
    expect(after, 'a refused batch inserts nothing').to.have.length(4);
  });

  it('when customers are imported from CSV, then they exist with their names; a bad email is reported at its line and nothing of that batch is saved', async () => {
    const app = await json(['create-application', '--name', 'People', '--timezone', 'UTC']);
    const ok = await json([
      'import-customers',
      '--app',
      app.id,
      '--file',
      file('people.csv', 'source_id,name,email\nc1,"Rao, Asha",asha@example.com\nc2,,\n'),
    ]);
    expect(ok).to.deep.equal({ upserted: 2 });
    const exported = await cli(['export-customers', '--app', app.id]);
    const rows = parse(exported.stdout, { columns: true }) as { source_id: string; name: string; email: string }[];
    expect(rows.map((r) => [r.source_id, r.name, r.email])).to.deep.equal([
      ['c1', 'Rao, Asha', 'asha@example.com'],
      ['c2', '', ''],
    ]);
    const bad = await cli([
      'import-customers',
      '--app',
      app.id,
      '--file',
      file('bad-people.csv', 'source_id,email\nc3,c3@example.com\nc4,nope\n'),
    ]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('bad-people.csv, line 3');
    const noHeader = await cli(['import-customers', '--app', app.id, '--file', file('bare.csv', 'c5,Someone\n')]);
    expect(noHeader.code).to.equal(1);
    expect(noHeader.stderr).to.include('line 1: a header naming the columns is needed');
    expect((await must('GET', `/applications/${app.id}/customers`)).customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(
      ['c1', 'c2'],
    );
  });

  it('when stacking is set on an application and a campaign from JSON files, then the API has exactly it, and update-application says how', async () => {
    const help = program.commands.find((c) => c.name() === 'update-application')!.helpInformation();
    expect(help).to.include('{"stacking":{"max_coupons":3,"automatic_promotions":true}}');
    const app = await json(['create-application', '--name', 'Stacks', '--timezone', 'UTC']);
    const updated = await json([
      'update-application',
      '--app',
      app.id,
      '--json',
      file('stacking.json', JSON.stringify({ stacking: { max_coupons: 3, automatic_promotions: true } })),
    ]);
    expect(updated.stacking).to.deep.equal({ max_coupons: 3, automatic_promotions: true });
    const bad = await cli(['update-application', '--app', app.id, '--json', file('bad-stacking.json', '{"stacking":{"max_coupons":11}}')]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('"stacking.max_coupons" must be less than or equal to 10');
    const automatic = {
      name: 'Auto',
      trigger: 'automatic',
      stacking: { priority: 10, category: 'sitewide' },
      discount: { kind: 'discount', type: 'flat', value: 5 },
    };
    const campaign = await json(['create-campaign', '--app', app.id, '--json', file('automatic.json', JSON.stringify(automatic))]);
    expect(campaign).to.not.have.property('code');
    expect(campaign).to.deep.include({
      trigger: 'automatic',
      stacking: { priority: 10, category: 'sitewide', exclusive: false, combines_with: 'all' },
    });
    const changed = await json([
      'update-campaign',
      '--app',
      app.id,
      '--campaign',
      campaign.id,
      '--json',
      file('exclusive.json', JSON.stringify({ stacking: { exclusive: true } })),
    ]);
    expect(changed.stacking).to.deep.equal({ priority: 10, category: 'sitewide', exclusive: true, combines_with: 'all' });
    expect((await must('GET', `/applications/${app.id}/campaigns/${campaign.id}`)).stacking).to.deep.equal(changed.stacking);
  });

  it('when redemptions are exported with filters, and a usage is asked, then they match what the API says', async () => {
    const app = await json(['create-application', '--name', 'Orders', '--timezone', 'UTC']);
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    const campaign = await json([
      'create-campaign',
      '--app',
      app.id,
      '--json',
      file(
        'campaign.json',
        JSON.stringify({ name: 'c', code: 'CLI5', discount: { kind: 'discount', type: 'flat', value: 5 }, limits: { total: 10 } }),
      ),
    ]);
    await settle();
    const creds = { api_key: app.api_key, secret: app.secret };
    const orders = [makeOrder(), makeOrder()];
    for (const order of orders) {
      const res = await client(creds, 'POST', '/coupons/apply?type=redeem', {
        source_id: 'c1',
        coupon_details: [{ coupon_code: 'CLI5' }],
        order,
      });
      expect(res.status, res.text).to.equal(200);
    }
    await client(creds, 'POST', '/coupons/apply?type=revert', {
      source_id: 'c1',
      coupon_details: [{ coupon_code: 'CLI5' }],
      order: orders[0],
    });
    const exported = await cli(['export-redemptions', '--app', app.id, '--state', 'completed']);
    expect(exported.code, exported.stderr).to.equal(0);
    const rows = parse(exported.stdout, { columns: true }) as { order_id: string; state: string; discount: string }[];
    expect(rows.map((r) => [r.order_id, r.state, r.discount])).to.deep.equal([[orders[1]!.order_id, 'completed', '5']]);
    const byOrder = await json(['list-redemptions', '--app', app.id, '--order', orders[0]!.order_id]);
    expect(byOrder.redemptions.map((r: { state: string }) => r.state)).to.deep.equal(['reverted']);
    const usage = await json(['usage', '--app', app.id, '--campaign', campaign.id]);
    expect(usage).to.deep.include({ redeemed: 1, reverted: 1 });
    expect(usage.limits.total).to.deep.equal({ limit: 10, used: 1, remaining: 9 });
    // A backtest (docs/results.md): the command waits for its figures, its progress on stderr; this application records no carts.
    const backtest = await cli(['backtest', '--app', app.id, '--campaign', campaign.id]);
    expect(backtest.code, backtest.stderr).to.equal(0);
    const ran = JSON.parse(backtest.stdout);
    expect(ran).to.include({ status: 'done', kind: 'live', campaign_id: campaign.id });
    expect(ran.result.replayed).to.deep.equal({ orders: 0, checks: 0, lists: 0, reverts: 0 });
    expect(backtest.stderr).to.match(/done: 0 of 0 carts/);
    expect((await json(['backtests', '--app', app.id])).backtests.map((b: { id: string }) => b.id)).to.deep.equal([ran.id]);
    // Results (docs/results.md): the campaign's and the application's, as JSON and as CSV by hour.
    const results = await json(['results', '--app', app.id, '--campaign', campaign.id]);
    expect(results.totals).to.include({ redemptions: 1, reverts: 1, discount: 5, basket: 1000 });
    expect((await json(['results', '--app', app.id])).campaigns.map((c: { campaign_id: string }) => c.campaign_id)).to.deep.equal([
      campaign.id,
    ]);
    // Yesterday to tomorrow (UTC): the redeems are in it even if midnight passed since.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const csv = await cli([
      'results',
      '--app',
      app.id,
      '--campaign',
      campaign.id,
      '--bucket',
      'hour',
      '--from',
      day(-1),
      '--to',
      day(1),
      '--csv',
    ]);
    expect(csv.code, csv.stderr).to.equal(0);
    const hours = parse(csv.stdout, { columns: true }) as { period: string; redemptions: string; reverts: string }[];
    expect(hours).to.have.length(72);
    expect(hours.reduce((s, h) => s + Number(h.redemptions) + Number(h.reverts), 0)).to.equal(2);
    const refused = await cli(['results', '--app', app.id, '--from', '2026-02-30']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('from is not a date');
  });
});
