/**
 * `npm run dev` as a newcomer meets it: a busy port is one clear line and nothing left running;
 * with nothing set it starts its embedded servers, serves the demo data, and SIGTERM stops all of
 * them.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { call } from '../support/context.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** `tsx scripts/dev.ts` with `env` and none of the test run's servers: what `npm run dev` gets on a fresh machine. */
function startDev(env: NodeJS.ProcessEnv) {
  const { MONGODB_URI: _m, REDIS_URL: _r, TESTDB_LOG: _t, ...rest } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    cwd: repoRoot,
    env: { ...rest, LOG_LEVEL: 'warn', LOG_PRETTY: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, out: () => out, err: () => err };
}

async function until(check: () => boolean, ms: number, what: string, tell: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms / 1000} s; it printed:\n${tell()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('npm run dev', function () {
  this.timeout(300_000);

  it('when its port is in use, then it says so in one line, starts nothing and exits 1', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, () => r()));
    const { port } = busy.address() as AddressInfo;
    try {
      const dev = startDev({ PORT: String(port) });
      const code = await dev.exited;
      expect(code).to.equal(1);
      expect(dev.err().trim().split('\n'), dev.err()).to.deep.equal([
        `npm run dev: port ${port} is in use (another \`npm run dev\`?): choose another with PORT, e.g. PORT=${port + 1} npm run dev`,
      ]);
      expect(dev.err()).to.not.match(/embedded servers:/); // nothing was started
    } finally {
      busy.close();
    }
  });

  it('when started with nothing set, then it serves the demo data and the console (its printed login signs in) on its embedded servers, and SIGTERM stops every one of them', async () => {
    const dev = startDev({ PORT: '0' });
    try {
      // Time to build nothing (the test database is built by the run) and start: generous, it waits for a line.
      await until(
        () => /coupon service \(dev\) on http:\/\/localhost:\d+/.test(dev.out()),
        240_000,
        'ready',
        () => dev.out() + dev.err(),
      );
      const url = /on (http:\/\/localhost:\d+)/.exec(dev.out())![1]!;
      const apiKey = /API key: (\S+)/.exec(dev.out())![1]!;
      const secret = /secret: +(\S+)/.exec(dev.out())![1]!;
      const list = await call(url, 'POST', '/coupons/list/all', {
        auth: `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`,
        body: { source_id: 'cust_1' },
      });
      expect(list.status, list.text).to.equal(200);
      // The console's address and first login, printed: the page answers and the login signs in.
      const login = /console: (http:\/\/localhost:\d+\/console)\s+sign in as (\S+) \/ (\S+)/.exec(dev.out());
      expect(login, dev.out()).to.not.equal(null);
      expect((await fetch(login![1]!)).status).to.equal(200);
      const session = await call(url, 'POST', '/admin/sessions', { body: { email: login![2], password: login![3] } });
      expect(session.status, session.text).to.equal(201);
      const redisPort = /redis-server on 127\.0\.0\.1:(\d+)/.exec(dev.err())?.[1];
      const databaseDir = /test database at \S+ \((\S+)\)/.exec(dev.err())?.[1];
      dev.child.kill('SIGTERM');
      expect(await dev.exited).to.equal(0);
      // Nothing of what it started is left.
      if (redisPort) {
        const refused = await new Promise<boolean>((r) => {
          const s = createServer();
          s.once('error', () => r(false));
          s.listen(Number(redisPort), '127.0.0.1', () => s.close(() => r(true)));
        });
        expect(refused, `redis-server on ${redisPort} stopped (its port free again)`).to.equal(true);
      }
      if (databaseDir) expect(existsSync(databaseDir), `${databaseDir} removed`).to.equal(false);
      expect(redisPort ?? databaseDir, `it said which servers it started:\n${dev.err()}`).to.be.a('string');
    } finally {
      // A failed step: SIGTERM first, so it stops the embedded servers it started (SIGKILL would leave them running).
      if (dev.child.exitCode === null) {
        dev.child.kill('SIGTERM');
        const stopped = await Promise.race([dev.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
        if (!stopped) dev.child.kill('SIGKILL');
      }
    }
  });
});
