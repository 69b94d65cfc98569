/**
 * `npm run dev` as a newcomer meets it: a busy port is one clear line and nothing left running;
 * with nothing set it starts its embedded servers, serves the demo data, and a signal ends every
 * process it started (the service, Redis, FerretDB and PostgreSQL) whether it is sent to its whole
 * process group (a terminal's Ctrl-C, `timeout -s TERM`: Redis and FerretDB must not get it and
 * die under the draining service) or to the `npm run dev` process itself (a process manager).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * `npm run dev` itself, as a terminal or a process manager starts it: the process the test signals.
 * In a process group of its own (it leads it), as a terminal's foreground job or `timeout` has it.
 */
function startNpmDev(env: NodeJS.ProcessEnv) {
  const { MONGODB_URI: _m, REDIS_URL: _r, TESTDB_LOG: _t, ...rest } = process.env;
  const child = spawn('npm', ['run', 'dev'], {
    cwd: repoRoot,
    env: { ...rest, LOG_LEVEL: 'warn', LOG_PRETTY: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return { child, exited, out: () => out, err: () => err };
}

/** A process as /proc shows it: its pid and start time (a pid reused by another process is not it). */
interface Proc {
  pid: number;
  start: string;
  command: string;
}

function readProc(pid: number): (Proc & { ppid: number; pgrp: number; zombie: boolean }) | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: state, ppid, process group, …, start time (field 22).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19]!, zombie: fields[0] === 'Z', command };
  } catch {
    return null; // gone
  }
}

/** `root` and every process below it, now. */
function processTree(root: number): Proc[] {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p) => p !== null);
  const tree: Proc[] = [];
  const parents = [root];
  while (parents.length > 0) {
    const parent = parents.pop()!;
    const self = all.find((p) => p.pid === parent);
    if (self) tree.push({ pid: self.pid, start: self.start, command: self.command });
    for (const p of all) if (p.ppid === parent) parents.push(p.pid);
  }
  return tree;
}

/** Still running: the same process (same start time), not a zombie waiting to be reaped. */
function alive(p: Proc): boolean {
  const now = readProc(p.pid);
  return now !== null && now.start === p.start && !now.zombie;
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

  // One start per signal case (a start is most of this file's time on two cores): the group case,
  // the one a terminal or `timeout` sends, is the full one; the SIGINT case covers a signal to the
  // npm process alone (npm passes it on).
  it('when started with nothing set, then it serves the demo data and the console (its printed login signs in) on its embedded servers, and SIGTERM to its whole process group (`timeout -s TERM`) ends every process it started', async () => {
    const started = Date.now();
    const dev = startNpmDev({ PORT: '0' });
    try {
      await untilReady(dev);
      const startup = Date.now() - started;
      // Quiet: a fallback from mongodb-memory-server is one line saying why, never a stack trace.
      expect(dev.err(), dev.err()).to.not.match(/^\s+at /m);
      if (/test database at/.test(dev.err())) {
        const why = dev
          .err()
          .split('\n')
          .filter((line) => line.includes('mongodb-memory-server'));
        expect(why, dev.err()).to.have.length(1);
        expect(why[0]).to.match(
          /^embedded servers: mongodb-memory-server cannot get mongod \(.+\): falling back to the offline test database$/,
        );
      }
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
      // Backtests are queued and run (docs/results.md): the dev server has the backtest queue and pool too.
      const admin = { authorization: `Bearer ${/admin: +Bearer (\S+)/.exec(dev.out())![1]!}` };
      const [app] = (await call(url, 'GET', '/admin/applications', { headers: admin })).body.applications;
      const [campaign] = (await call(url, 'GET', `/admin/applications/${app.id}/campaigns`, { headers: admin })).body.campaigns;
      const asked = await call(url, 'POST', `/admin/applications/${app.id}/backtests`, {
        headers: admin,
        body: { campaign_id: campaign.id },
      });
      expect(asked.status, asked.text).to.equal(202);
      let backtest = asked.body;
      while (backtest.status === 'queued' || backtest.status === 'running') {
        await new Promise((r) => setTimeout(r, 100));
        backtest = (await call(url, 'GET', `/admin/applications/${app.id}/backtests/${asked.body.id}`, { headers: admin })).body;
      }
      expect(backtest.status, backtest.error).to.equal('done');
      await expectSignalEndsAll(dev, 'SIGTERM', 'group', startup);
    } finally {
      await stopIfRunning(dev);
    }
  });

  it('when the `npm run dev` process alone receives SIGINT, then every process it started ends (the service, Redis and the database)', async () => {
    const started = Date.now();
    const dev = startNpmDev({ PORT: '0' });
    try {
      await untilReady(dev);
      await expectSignalEndsAll(dev, 'SIGINT', 'npm', Date.now() - started);
    } finally {
      await stopIfRunning(dev);
    }
  });
});

type NpmDev = ReturnType<typeof startNpmDev>;

/** The ready line: generous, it only waits for a line (the test database is built by the run). */
const untilReady = (dev: NpmDev) =>
  until(
    () => /coupon service \(dev\) on http:\/\/localhost:\d+/.test(dev.out()),
    240_000,
    'ready',
    () => dev.out() + dev.err(),
  );

/**
 * Every process `npm run dev` started, found while it runs: its process tree (npm, the service,
 * redis-server), and the offline test database's PostgreSQL (its postmaster and backends) and
 * FerretDB by the pids recorded in the database's directory — they are not in the tree
 * (pg_ctl detaches the postmaster; FerretDB outlives the start.sh that launched it).
 */
function everythingStarted(dev: NpmDev): { procs: Proc[]; databaseDir?: string } {
  const procs = processTree(dev.child.pid!);
  const databaseDir = /test database at \S+ \((\S+)\)/.exec(dev.err())?.[1];
  if (databaseDir) {
    const pidIn = (file: string) => Number(readFileSync(`${databaseDir}/${file}`, 'utf8').trim());
    procs.push(...processTree(pidIn('postgres.pid')), ...processTree(pidIn('ferretdb.pid')));
  }
  return { procs, databaseDir };
}

/**
 * Signals `npm run dev` — the npm process alone, or its whole process group — and expects every
 * process it started gone within 2 × its measured start-up (stopping is closing what starting
 * opened: start-up includes starting PostgreSQL, FerretDB and Redis and loading the demo data),
 * with a clean exit and no refused connection on the way: the service drained while its Redis and
 * database were still up.
 */
async function expectSignalEndsAll(dev: NpmDev, signal: NodeJS.Signals, to: 'npm' | 'group', startupMs: number): Promise<void> {
  const { procs, databaseDir } = everythingStarted(dev);
  const commands = procs.map((p) => p.command);
  // What the test watches is what it means to: the service, Redis and a database.
  expect(
    commands.some((c) => c.includes('scripts/dev.ts')),
    commands.join('\n'),
  ).to.equal(true);
  expect(
    commands.some((c) => c.startsWith('redis-server')),
    commands.join('\n'),
  ).to.equal(true);
  const database = databaseDir
    ? ['postgres', 'ferretdb'].every((name) => commands.some((c) => c.includes(name)))
    : commands.some((c) => c.includes('mongod'));
  expect(database, `a database among:\n${commands.join('\n')}`).to.equal(true);
  // Outside npm's process group (npm leads it): a signal to the group (Ctrl-C, `timeout`) would
  // otherwise stop them at once, under the service still draining through them (which then
  // retries its refused connections, and whether it does in time depends on the machine's load).
  const serversInGroup = procs
    .filter((p) => /redis-server|ferretdb|postgres|mongod/.test(p.command) && readProc(p.pid)?.pgrp === dev.child.pid)
    .map((p) => p.command);
  expect(serversInGroup, "embedded servers in npm's process group").to.deep.equal([]);

  const bound = 2 * startupMs;
  const sent = Date.now();
  if (to === 'group') process.kill(-dev.child.pid!, signal);
  else dev.child.kill(signal);
  while (procs.some(alive) && Date.now() - sent < bound) await new Promise((r) => setTimeout(r, 100));
  const took = Date.now() - sent;
  const left = procs.filter(alive).map((p) => `${p.pid} ${p.command}`);
  console.log(
    `      [dev] started in ${(startupMs / 1000).toFixed(1)} s; ${signal} to ${to === 'group' ? "npm's process group" : 'npm'}: ${procs.length - left.length} of ${procs.length} processes ended in ${(took / 1000).toFixed(1)} s (bound 2 × start-up = ${(bound / 1000).toFixed(1)} s)`,
  );
  expect(left, `still running ${(took / 1000).toFixed(1)} s after ${signal}`).to.deep.equal([]);
  expect(await dev.exited, dev.err()).to.deep.equal({ code: 0, signal: null });
  expect(dev.out() + dev.err()).to.not.match(/ECONNREFUSED/);
  if (databaseDir) expect(existsSync(databaseDir), `${databaseDir} removed`).to.equal(false);
}

/** A failed step: SIGTERM first, so it stops the embedded servers it started (SIGKILL would leave them running). */
async function stopIfRunning(dev: NpmDev): Promise<void> {
  if (dev.child.exitCode !== null || dev.child.signalCode !== null) return;
  dev.child.kill('SIGTERM');
  const stopped = await Promise.race([dev.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
  if (!stopped) dev.child.kill('SIGKILL');
}
