/**
 * The client as another project depends on it (client/README.md "Depending on the client"): packed
 * with `npm pack`, installed from the tarball into a scratch project outside the repository,
 * type-checked and run against a live service; installed by path from a checkout, and by git URL
 * from the release branch (client/scripts/release-branch.sh), with nothing built beforehand by
 * hand (its `prepare` builds `dist/`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { TEST_ADMIN_TOKEN, useTestApi } from '../support/context.js';

const run = promisify(execFile);
const REPO = resolve('.');
const CLIENT = join(REPO, 'client');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const NPM_QUIET = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

/** A program a storefront would write: typed against the installed package, run against the service. */
const PROGRAM = `
import { createAdminClient, createCouponsClient, reasonOf, rateLimitOf, type Reason } from '@coupons/client';
import { verifyWebhook, WebhookVerificationError } from '@coupons/client/webhooks';

const baseUrl = process.env.COUPONS_URL!;
const admin = createAdminClient({ baseUrl, adminToken: process.env.COUPONS_ADMIN_TOKEN! });
const { data: app } = await admin.POST('/admin/applications', { body: { name: 'from the tarball' } });
if (!app) throw new Error('no application');
const coupons = createCouponsClient({ baseUrl, apiKey: app.api_key, secret: app.secret });
const signedUp = await coupons.PUT('/customers/{source_id}', { params: { path: { source_id: 'buyer-1' } }, body: { name: 'Buyer' } });
const checked = await coupons.POST('/coupons/validate', { body: { source_id: 'buyer-1', coupon_details: [{ coupon_code: 'NOPE' }] } });
const why: Reason | null = reasonOf(checked.response);
let verification = 'accepted';
try {
  verifyWebhook('{}', {}, { secrets: 'whsec_x' });
} catch (err) {
  verification = err instanceof WebhookVerificationError ? err.reason : 'other';
}
console.log(JSON.stringify({ created: signedUp.response.status, refused: checked.response.status, why, limited: rateLimitOf(checked.response), verification }));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    typeRoots: [join(REPO, 'node_modules', '@types')],
    types: ['node'],
  },
  include: ['program.ts'],
};

function scratchProject(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `coupons-client-${name}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `scratch-${name}`, version: '1.0.0', private: true, type: 'module' }));
  writeFileSync(join(dir, 'program.ts'), PROGRAM);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  return dir;
}

describe('client/: depended on from another project', function () {
  // npm pack builds the package and npm install resolves its dependency: minutes on a cold cache.
  this.timeout(600_000);
  const api = useTestApi();
  const made: string[] = [];
  after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /**
   * Runs the program against the service; type-checks it first when asked. The type-check (a strict
   * project checking the package's declarations too, ≈5 s of CPU) runs once, on the tarball: the
   * other two installs build the same declarations from the same sources.
   */
  async function runProgram(dir: string, { typeCheck }: { typeCheck: boolean }) {
    if (typeCheck) await run(process.execPath, [TSC, '-p', dir], { cwd: dir });
    const { stdout } = await run(process.execPath, [TSX, 'program.ts'], {
      cwd: dir,
      env: { ...process.env, COUPONS_URL: api().url, COUPONS_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  }

  it('when the client is packed and the tarball installed outside the repository, then a program type-checks against it and runs against the service', async () => {
    const packDir = mkdtempSync(join(tmpdir(), 'coupons-client-pack-'));
    made.push(packDir);
    // Packed from a checkout, never from the repository's client/: `prepare` regenerates
    // src/schema.ts and rebuilds dist/, and a rewrite of the repository's files mid-suite made
    // the console look stale to other files' tests, which rebuilt it under a running server.
    const checkout = await checkoutOfWorkingTree();
    // Its build tools, installed once: where the repository's root install put them (node_modules/,
    // and client/node_modules/ for the versions that differ from the root's).
    symlinkSync(join(REPO, 'node_modules'), join(checkout, 'node_modules'));
    if (existsSync(join(CLIENT, 'node_modules'))) symlinkSync(join(CLIENT, 'node_modules'), join(checkout, 'client', 'node_modules'));
    const untouched = ['src/schema.ts', 'dist/index.js'].map((f) => [
      f,
      existsSync(join(CLIENT, f)) ? statSync(join(CLIENT, f)).mtimeMs : 0,
    ]);
    await run('npm', ['pack', '--pack-destination', packDir, ...NPM_QUIET], { cwd: join(checkout, 'client') });
    for (const [f, mtime] of untouched)
      expect(existsSync(join(CLIENT, f as string)) ? statSync(join(CLIENT, f as string)).mtimeMs : 0, `client/${f} untouched`).to.equal(
        mtime,
      );
    const [tarball] = readdirSync(packDir).filter((f) => f.endsWith('.tgz'));
    expect(tarball, 'npm pack wrote a tarball').to.match(/^coupons-client-.*\.tgz$/);
    const { stdout: listing } = await run('tar', ['-tzf', join(packDir, tarball!)]);
    expect(listing.split('\n')).to.include.members([
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/webhooks.js',
      'package/README.md',
    ]);

    const dir = scratchProject('tarball');
    made.push(dir);
    expect(dir.startsWith(REPO)).to.equal(false);
    await run('npm', ['install', join(packDir, tarball!), ...NPM_QUIET], { cwd: dir });
    expect(existsSync(join(dir, 'node_modules', '@coupons', 'client', 'dist', 'index.js'))).to.equal(true);
    expect(await runProgram(dir, { typeCheck: true })).to.deep.equal({
      created: 201,
      refused: 400,
      why: 'coupon_not_found',
      limited: null,
      verification: 'no_signature',
    });
  });

  /** A checkout of its own, as another project would have (no dist/, no client/node_modules), holding the working tree under test. */
  async function checkoutOfWorkingTree(): Promise<string> {
    const checkout = mkdtempSync(join(tmpdir(), 'coupons-client-checkout-'));
    made.push(checkout);
    await run('git', ['clone', '-q', '--no-hardlinks', REPO, checkout]);
    const copied = ['client/src', 'client/scripts', 'client/package.json', 'package.json', 'openapi.yaml'];
    for (const path of copied) await run('cp', ['-r', join(REPO, path), join(checkout, path, '..')]);
    await run('rm', ['-f', join(checkout, 'client', 'src', 'schema.ts')]); // generated, never committed on main
    return checkout;
  }

  it('when a project installs the client by path from a checkout, then it imports without building it first', async () => {
    const checkout = await checkoutOfWorkingTree();
    expect(existsSync(join(checkout, 'client', 'dist'))).to.equal(false);
    const dir = scratchProject('path');
    made.push(dir);
    await run('npm', ['install', join(checkout, 'client'), ...NPM_QUIET], { cwd: dir });
    expect(await runProgram(dir, { typeCheck: false })).to.include({ created: 201, why: 'coupon_not_found' });
  });

  it('when the release branch is made and a project installs it by git URL, then it imports without building it first', async () => {
    const checkout = await checkoutOfWorkingTree();
    const git = (...args: string[]) => run('git', ['-C', checkout, ...args]);
    await git('add', '-A');
    // --allow-empty: a clean clone's working tree may hold nothing uncommitted.
    await git(
      '-c',
      'user.name=test',
      '-c',
      'user.email=test@coupons.invalid',
      'commit',
      '--allow-empty',
      '-qm',
      'the working tree under test',
    );
    const { stdout } = await run('bash', [join(checkout, 'client', 'scripts', 'release-branch.sh')], { cwd: checkout });
    expect(stdout.trim()).to.match(/^client [0-9a-f]{40}$/);
    // The branch's root is the package, with its generated schema and without build output.
    const files = (await git('ls-tree', '-r', '--name-only', 'client')).stdout.split('\n');
    expect(files).to.include.members(['package.json', 'src/index.ts', 'src/schema.ts', 'scripts/prepare.mjs']);
    expect(files.some((f) => f.startsWith('dist/') || f.startsWith('node_modules/'))).to.equal(false);
    // A second run on the same revision adds nothing.
    const head = (await git('rev-parse', 'client')).stdout;
    await run('bash', [join(checkout, 'client', 'scripts', 'release-branch.sh')], { cwd: checkout });
    expect((await git('rev-parse', 'client')).stdout).to.equal(head);

    const dir = scratchProject('git');
    made.push(dir);
    await run('npm', ['install', `git+file://${checkout}#client`, ...NPM_QUIET], { cwd: dir });
    expect(await runProgram(dir, { typeCheck: false })).to.include({ created: 201, why: 'coupon_not_found' });
  });
});
