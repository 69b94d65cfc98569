/**
 * The typed client (client/) against a running service — real HTTP, Redis and database: its
 * example script end to end, retries of a 503 as the service advises, paging, and the check that
 * its generated types match openapi.yaml.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { allPages, createAdminClient, createCouponsClient, retryingFetch } from '../../client/src/index.js';
import { createLogger } from '../../shared/logger.js';
import { createProcessor } from '../../worker/processors/index.js';
import { WorkerPool } from '../../worker/worker-pool.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { createTestApplication, startTestApi, TEST_ADMIN_TOKEN, TEST_QUEUE_PREFIX, useTestApi } from '../support/context.js';

const run = promisify(execFile);
const CLIENT_DIR = 'client';
/** The client's openapi-typescript (its command's script), wherever the root's install put it: client/node_modules or node_modules. */
const GENERATOR_PACKAGE = createRequire(resolve(CLIENT_DIR, 'package.json')).resolve('openapi-typescript/package.json');
const GENERATOR = join(dirname(GENERATOR_PACKAGE), JSON.parse(readFileSync(GENERATOR_PACKAGE, 'utf8')).bin['openapi-typescript']);
/** The flags of client/package.json's `generate` script (the same output, or the check fails). */
const GENERATE_FLAGS = ['--output', join(CLIENT_DIR, 'src', 'schema.ts'), '--default-non-nullable=false', '--enum-values'];

describe('client/: the typed client against a running service', function () {
  this.timeout(120_000);
  // Loopback destinations allowed, as `npm run dev` does: the example registers a receiver on 127.0.0.1.
  const testApi = useTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });

  it('when the example script runs against the service, then every step passes (list, validate, redeem, revert, wallet credit)', async () => {
    const { stdout } = await run('npm', ['run', '-s', 'example'], {
      cwd: CLIENT_DIR,
      env: { ...process.env, COUPONS_URL: testApi().url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    });
    for (const step of ['list: the coupons shopper-1 can use', 'redeem: after the payment succeeded', 'revert: the order was cancelled'])
      expect(stdout).to.include(`✔ ${step}`);
    expect(stdout.trim().split('\n').at(-1)).to.equal('all steps passed');
  });

  it('when the example script is given a wrong admin token, then it fails naming the step and the answer', async () => {
    const failed = await run('npm', ['run', '-s', 'example'], {
      cwd: CLIENT_DIR,
      env: { ...process.env, COUPONS_URL: testApi().url, COUPONS_ADMIN_TOKEN: 'not-the-admin-token' },
    }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).to.equal(1);
    expect(failed?.stderr).to.include('admin: application created: HTTP 401').and.include('admin token invalid');
  });

  it('when a wallet credit is answered 503, then the client sends the same request with the same key again and it is applied once', async () => {
    // An API whose jobs wait for a worker that starts only after the first 503.
    const prefix = `${TEST_QUEUE_PREFIX}-client-retry`;
    const stalled = await startTestApi({ QUEUE_PREFIX: prefix, JOB_WAIT_TIMEOUT_MS: '300' }, { inProcessWorker: false });
    let pool: WorkerPool | undefined;
    try {
      const app = await createTestApplication(stalled.services);
      await createCustomers(stalled.services, app.id, ['c1']);
      await createWallet(stalled.services, app.id);
      const sent: { status: number; key: string | null }[] = [];
      const coupons = createCouponsClient({
        baseUrl: stalled.url,
        apiKey: app.apiKey,
        secret: app.secret,
        retry: {
          attempts: 10,
          baseDelayMs: 50,
          maxDelayMs: 200,
          onRetry: async () => {
            if (pool) return;
            pool = new WorkerPool(
              stalled.services.config,
              createLogger(stalled.services.config, 'retry-test'),
              createProcessor(stalled.services),
            );
            await pool.start();
          },
        },
        fetch: async (request) => {
          const response = await fetch(request);
          sent.push({ status: response.status, key: request.headers.get('idempotency-key') });
          return response;
        },
      });
      const { data, error } = await coupons.PUT('/wallets/customer/{source_id}/transactions/{wallet_id}', {
        params: { path: { source_id: 'c1', wallet_id: 'loyalty' } },
        body: { type: 'credit', points: 7 },
      });
      expect(error, JSON.stringify(error)).to.equal(undefined);
      expect(data).to.include({ loyalty_points: 7, previous_loyalty_points: 0, points: 7 });
      expect(sent[0]!.status).to.equal(503);
      expect(sent.at(-1)!.status).to.equal(200);
      // One key, generated by the client, on every attempt.
      expect(sent[0]!.key).to.match(/^[0-9a-f-]{36}$/);
      expect(new Set(sent.map((s) => s.key))).to.deep.equal(new Set([sent[0]!.key]));
      const customer = (await stalled.services.repos.customers.resolve(app.id, 'c1'))!;
      const wallet = (await stalled.services.repos.wallets.findByWalletId(app.id, 'loyalty'))!;
      const entries = await stalled.services.repos.walletTransactions.listForCustomer(app.id, customer.id, wallet.id);
      expect(entries.map((e) => [e.type, e.points, e.state])).to.deep.equal([['credit', 700, 'applied']]);
    } finally {
      await pool?.close();
      await Promise.all(stalled.jobs.partitionQueues.map((q) => q.obliterate({ force: true })));
      await stalled.close();
    }
  });

  it('when a server keeps answering 503, then reads are retried up to the attempts and other admin writes are sent once', async () => {
    const hits: string[] = [];
    const server: Server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url} ${req.headers['idempotency-key'] ?? ''}`.trim());
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"code":503}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const admin = createAdminClient({ baseUrl, adminToken: 'x', retry: { attempts: 3, baseDelayMs: 1 } });
      const list = await admin.GET('/admin/applications');
      expect(list.response.status).to.equal(503);
      const create = await admin.POST('/admin/applications', { body: { name: 'once' } });
      expect(create.response.status).to.equal(503);
      const coupons = createCouponsClient({ baseUrl, apiKey: 'k', secret: 's', retry: { attempts: 2, baseDelayMs: 1 } });
      await coupons.POST('/coupons/apply', {
        params: { query: { type: 'revert' }, header: { 'Idempotency-Key': 'mine' } },
        body: { source_id: 'c1', coupon_details: [{ coupon_code: 'X' }], order: {} as never },
      });
      expect(hits).to.deep.equal([
        'GET /admin/applications',
        'GET /admin/applications',
        'GET /admin/applications',
        'POST /admin/applications',
        'POST /coupons/apply?type=revert mine',
        'POST /coupons/apply?type=revert mine',
      ]);
      // retryingFetch alone: one attempt means no retry.
      const once = retryingFetch({ attempts: 1 });
      expect((await once(new Request(`${baseUrl}/healthz`))).status).to.equal(503);
      expect(hits).to.have.length(7);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('when the admin client pages customers with allPages, then every customer comes once, in order', async () => {
    const app = await createTestApplication(testApi().services);
    const ids = Array.from({ length: 7 }, (_, i) => `pc-${i}`);
    await createCustomers(testApi().services, app.id, ids);
    const admin = createAdminClient({ baseUrl: testApi().url, adminToken: TEST_ADMIN_TOKEN });
    const seen: string[] = [];
    for await (const c of allPages(
      (cursor) =>
        admin.GET('/admin/applications/{app}/customers', {
          params: { path: { app: app.id }, query: { limit: 3, ...(cursor ? { cursor } : {}) } },
        }),
      'customers',
    ))
      seen.push(c.source_id);
    expect(seen).to.deep.equal(ids);
  });

  describe('generated types', () => {
    it('when openapi.yaml and client/src/schema.ts are compared, then the generator finds nothing to change', async () => {
      const { stdout, stderr } = await run(process.execPath, [GENERATOR, 'openapi.yaml', ...GENERATE_FLAGS, '--check']).catch(
        (err: { stdout: string; stderr: string }) => {
          throw new Error(
            `client/src/schema.ts is out of date with openapi.yaml: run \`npm install\` (it generates it) or \`npm run generate --workspace client\`\n${err.stdout}${err.stderr}`,
          );
        },
      );
      expect(`${stdout}${stderr}`).to.not.include('not up-to-date');
    });

    it('when the spec gains a field, then the same check fails', async () => {
      const changed = readFileSync('openapi.yaml', 'utf8').replace(
        '    ApplyResult:\n      type: object\n',
        '    ApplyResult:\n      type: object\n      description: changed by a test\n',
      );
      expect(changed).to.include('changed by a test');
      const spec = join(mkdtempSync(join(tmpdir(), 'client-spec-')), 'openapi.yaml');
      writeFileSync(spec, changed);
      const outcome = await run(process.execPath, [GENERATOR, spec, ...GENERATE_FLAGS, '--check']).then(
        () => 'in sync',
        (err: { code: number }) => `exit ${err.code}`,
      );
      expect(outcome).to.equal('exit 1');
    });
  });
});
