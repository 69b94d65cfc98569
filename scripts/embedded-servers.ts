/**
 * Embedded servers for `npm run dev`, `npm test` and `npm run bench` when MONGODB_URI / REDIS_URL
 * are unset. Not used in production.
 *
 * MongoDB, first that works:
 *  1. mongodb-memory-server, when `mongod` can be had (installed, cached, or downloadable);
 *  2. the offline test database of `tools/testdb/` (FerretDB 2 on PostgreSQL 15 + DocumentDB),
 *     when its prerequisites are here (Go, PostgreSQL 15 or apt, the vendored DocumentDB sources);
 *  3. otherwise one error naming what to set or install.
 * Redis: a `redis-server` from PATH. Each says on stderr which one it uses.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EmbeddedServers {
  mongodbUri: string;
  redisUrl: string;
  /** The offline test database's PostgreSQL log, when it was started here. */
  databaseLog?: string;
  stop(): Promise<void>;
}

interface Started {
  url: string;
  log?: string;
  stop: () => Promise<void>;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const testdbDir = join(repoRoot, 'tools', 'testdb');
const say = (line: string) => process.stderr.write(`embedded servers: ${line}\n`);

/**
 * A port that was free a moment ago (the system's pick for a listener on port 0, closed at once),
 * for servers that cannot listen on port 0 and say which port they got (redis-server). Only ever
 * used through {@link onFreePort}: another process may bind it in between, so the start is retried.
 */
async function candidatePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A server that could not bind its port because another process had taken it. */
export class PortTaken extends Error {}

/**
 * Starts a server on candidate ports until one is not taken by another process in the meantime
 * (its start rejects with {@link PortTaken}): the server itself binds, and a lost race costs a
 * retry, never a failure. `ports` candidates per attempt (a Redis Cluster node needs two).
 */
export async function onFreePort<T>(start: (...ports: number[]) => Promise<T>, ports = 1, attempts = 10): Promise<T> {
  for (let i = 1; ; i++) {
    const chosen: number[] = [];
    while (chosen.length < ports) {
      const p = await candidatePort();
      if (!chosen.includes(p)) chosen.push(p);
    }
    try {
      return await start(...chosen);
    } catch (err) {
      if (!(err instanceof PortTaken) || i >= attempts) throw err;
    }
  }
}

/** redis-server's words when its port is taken (it then exits). */
export const REDIS_PORT_TAKEN = /Address already in use/;

/**
 * Runs a command to its end; resolves with its trimmed stdout, rejects with the end of its stderr.
 * `echoStderr` passes its stderr on as it comes (the test database's build progress); `env` is
 * added to this process's environment.
 */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd?: string; echoStderr?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = opts.env && { ...process.env, ...opts.env };
    const child = spawn(cmd, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (opts.echoStderr) process.stderr.write(c);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}: ${err.slice(-800)}`)),
    );
  });
}

/**
 * A private `redis-server` on a free loopback port, with extra arguments (tests add AOF, maxmemory).
 * A restart behind an address clients already know goes through a relay (test/support/relay.ts):
 * never onto the old port, which another process may have taken since. `detached`: in a process
 * group of its own ({@link EmbeddedServersOptions}).
 */
export async function startRedisServer(opts: { args?: string[]; dir?: string; detached?: boolean } = {}) {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'coupons-redis-'));
  mkdirSync(dir, { recursive: true });
  const launch = async (port: number) => {
    const child: ChildProcess = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...(opts.args ?? [])],
      // Detached or not, its pipes are read to the end and its exit is awaited by `stop`: nothing
      // here outlives it, and a caller that exits without `stop` (SIGKILL) leaves a detached one running.
      { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false },
    );
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.once('error', (err) => reject(new Error(`redis-server not found on PATH (${err.message}): install it or set REDIS_URL`)));
      const read = (chunk: Buffer) => {
        out = (out + chunk.toString()).slice(-4000);
        if (out.includes('Ready to accept connections')) resolve();
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => {
        const why = `redis-server on port ${port} exited with ${code}: ${out.trim().split('\n').slice(-3).join(' / ')}`;
        reject(REDIS_PORT_TAKEN.test(out) ? new PortTaken(why) : new Error(why));
      });
    });
    child.stdout!.resume();
    child.stderr!.resume();
    return { port, child };
  };
  const { port, child } = await onFreePort(launch);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    child,
    /** SIGKILL, and wait for the exit (the directory stays, for a restart with the same data). */
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startRedis(opts: EmbeddedServersOptions): Promise<Started> {
  const redis = await startRedisServer({ detached: opts.detached });
  say(`redis-server on 127.0.0.1:${redis.port}`);
  return { url: redis.url, stop: redis.stop };
}

async function startMemoryServer(opts: EmbeddedServersOptions): Promise<Started> {
  // One download attempt (unless set): offline, its retries cost some 20 s before the fallback.
  process.env.MONGOMS_MAX_RETRIES ??= '1';
  const { MongoBinary, MongoMemoryServer } = await import('mongodb-memory-server');
  // The binary first, on its own: `MongoMemoryServer.create()` prints a failed download's whole
  // stack trace (console.warn) before it rejects; this rejects with the error alone, which the
  // fallback sums up in one line. The full error: DEBUG=MongoMS:* (docs/operations.md).
  await MongoBinary.getPath();
  const mongod = await MongoMemoryServer.create({ spawn: { detached: opts.detached ?? false } });
  say(`mongodb-memory-server (mongod) at ${mongod.getUri()}`);
  return { url: mongod.getUri(), stop: async () => void (await mongod.stop()) };
}

/** What tools/testdb needs before it can build and start; empty when all is here. */
export function testDatabaseMissing(): string[] {
  const missing: string[] = [];
  const hasGo = ['/usr/local/go/bin/go', ...(process.env.PATH ?? '').split(':').map((p) => join(p, 'go'))].some((p) => existsSync(p));
  if (!hasGo) missing.push('Go (to build FerretDB)');
  if (!existsSync('/usr/lib/postgresql/15/bin/pg_ctl') && !existsSync('/usr/bin/apt-get')) missing.push('PostgreSQL 15 (or apt-get)');
  const vendor = process.env.DOCUMENTDB_VENDOR ?? join(testdbDir, 'vendor');
  if (!existsSync(vendor)) missing.push(`the DocumentDB sources (${vendor})`);
  return missing;
}

/**
 * The offline test database (tools/testdb): a fresh private cluster in a temporary directory.
 * PostgreSQL is always in a session of its own (pg_ctl); FerretDB too when `detached`.
 */
export async function startTestDatabase(opts: EmbeddedServersOptions = {}): Promise<Started> {
  // Under the system temp dir itself: PostgreSQL runs as `postgres`, who must traverse the path.
  const dir = join(tmpdir(), `coupons-testdb-${process.pid}-${Date.now()}`);
  say('starting the offline test database (tools/testdb: FerretDB 2.7 on PostgreSQL 15 + DocumentDB)');
  const env = opts.detached ? { TESTDB_SETSID: '1' } : undefined;
  const url = await runCommand('bash', [join(testdbDir, 'start.sh'), dir], { echoStderr: true, env }).catch(async (err) => {
    await stopTestDatabase(dir, { rm: true }).catch(() => undefined);
    throw err;
  });
  say(`test database at ${url} (${dir})`);
  const log = join(dir, 'run', 'postgresql.log');
  return { url, log, stop: () => stopTestDatabase(dir, { rm: true }) };
}

/** Stops what `tools/testdb/start.sh DIR` started (and deletes DIR with `rm`). */
export async function stopTestDatabase(dir: string, opts: { rm?: boolean } = {}): Promise<void> {
  await runCommand('bash', [join(testdbDir, 'stop.sh'), dir, ...(opts.rm ? ['--rm'] : [])], { echoStderr: true });
}

/**
 * mongodb-memory-server's failure in one line: a DownloadError's message is the URL, "Details:"
 * and the cause on the next line; its `msg` is the cause alone (`getaddrinfo ENOTFOUND …`), its
 * `url` the address.
 */
export function shortReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { msg, url } = err as Error & { msg?: unknown; url?: unknown };
  if (typeof msg === 'string' && typeof url === 'string') return `its download failed: ${msg}`;
  return err.message.split('\n').find((line) => line.trim() !== '') ?? err.name;
}

async function startMongo(opts: EmbeddedServersOptions): Promise<Started> {
  let memoryServerError: string;
  try {
    return await startMemoryServer(opts);
  } catch (err) {
    memoryServerError = shortReason(err);
  }
  const missing = testDatabaseMissing();
  if (missing.length === 0) {
    say(`mongodb-memory-server cannot get mongod (${memoryServerError}): falling back to the offline test database`);
    return startTestDatabase(opts);
  }
  throw new Error(
    [
      'No MongoDB to use. Set MONGODB_URI to a MongoDB 7 server (mongodb://host:27017/), or',
      `  - let mongodb-memory-server get mongod (it failed: ${memoryServerError}; it needs internet once, or MONGOMS_SYSTEM_BINARY), or`,
      `  - install what the offline test database needs (tools/testdb, docs/testing.md): ${missing.join(', ')}.`,
    ].join('\n'),
  );
}

export interface EmbeddedServersOptions {
  /**
   * Each server started here runs in a process group (and session) of its own, so a signal to the
   * caller's group — a terminal's Ctrl-C, `timeout` — reaches the caller alone, which stops the
   * servers itself after what uses them (`npm run dev`). The caller must then stop them: a SIGKILL
   * to it leaves them running.
   * @defaultValue false — they share the caller's group and get its signals (the test runner)
   */
  detached?: boolean;
}

/** Starts what is missing; returns the URIs to use (given ones are passed through). */
export async function startEmbeddedServers(
  given: { mongodbUri?: string; redisUrl?: string },
  opts: EmbeddedServersOptions = {},
): Promise<EmbeddedServers> {
  const stops: (() => Promise<void>)[] = [];
  try {
    let mongodbUri = given.mongodbUri;
    let databaseLog: string | undefined;
    if (!mongodbUri) {
      const mongo = await startMongo(opts);
      mongodbUri = mongo.url;
      databaseLog = mongo.log;
      stops.push(mongo.stop);
    }
    let redisUrl = given.redisUrl;
    if (!redisUrl) {
      const redis = await startRedis(opts);
      redisUrl = redis.url;
      stops.push(redis.stop);
    }
    return { mongodbUri, redisUrl, databaseLog, stop: async () => void (await Promise.all(stops.map((s) => s()))) };
  } catch (err) {
    await Promise.all(stops.map((s) => s().catch(() => undefined)));
    throw err;
  }
}

/** `mongodb://host[,host]/<name>?opts` for the given database name. */
export function withDbName(uri: string, name: string): string {
  const [base, query] = uri.split('?') as [string, string | undefined];
  const scheme = base.indexOf('://') + 3;
  const slash = base.indexOf('/', scheme);
  const hosts = slash < 0 ? base : base.slice(0, slash);
  return `${hosts}/${name}${query ? `?${query}` : ''}`;
}
