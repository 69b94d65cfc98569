/**
 * The real processes of a chaos scenario, each started and stopped by its own pid: a private
 * `redis-server` (AOF, fsync on every write, so a restart keeps the queues), a private test
 * database (tools/testdb: PostgreSQL + FerretDB, whose FerretDB process can be killed and
 * relaunched on the same port), and API / worker processes (`tsx api/server.ts`,
 * `tsx worker/main.ts`) whose output goes to a log file of the scenario.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../../../scripts/embedded-servers.js';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves when `child` exits (immediately if it has already). */
function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Sends `signal` to a live child by its pid and waits for its exit; SIGKILL after `graceMs`. */
async function terminate(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  process.kill(child.pid, 'SIGCONT'); // a stopped process cannot act on SIGTERM
  process.kill(child.pid, signal);
  const exited = exitOf(child);
  if (await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)])) return;
  if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  await exited;
}

/** A `redis-server` of its own on a free loopback port, with its data (AOF) in `dir`. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(dir: string): Promise<PrivateRedis> {
    mkdirSync(dir, { recursive: true });
    const redis = new PrivateRedis(await freePort(), dir);
    await redis.launch();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child!.pid!;
  }

  /** (Re)starts the server on its port and directory; resolves when it accepts connections. */
  async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'yes'];
    const child = spawn('redis-server', [...args, '--appendfsync', 'always', '--logfile', ''], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let out = '';
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`redis-server on ${this.port} not ready in 20 s: ${out.slice(-500)}`)), 20_000);
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          ok();
        }
      });
      child.once('error', (err) => fail(err));
      child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
    });
    child.stdout!.resume();
    child.stderr!.resume();
  }

  /** SIGKILL: nothing flushed beyond what `appendfsync always` already wrote. */
  async kill(): Promise<void> {
    this.child!.kill('SIGKILL');
    await exitOf(this.child!);
  }

  pause(): void {
    process.kill(this.pid, 'SIGSTOP');
  }

  resume(): void {
    process.kill(this.pid, 'SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child) await terminate(this.child, 'SIGTERM', 5000);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? ok(out.trim()) : fail(new Error(`${cmd} ${args.join(' ')} exited with ${code}: ${err.slice(-800)}`)),
    );
  });
}

/**
 * A private test database (tools/testdb/start.sh DIR PORT): its own PostgreSQL cluster and the
 * FerretDB process in front of it. `killFrontEnd` SIGKILLs FerretDB by the pid start.sh recorded;
 * `relaunch` runs start.sh again, which reuses the running PostgreSQL and starts FerretDB on the
 * same port.
 */
export class PrivateDatabase {
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly uri: string,
  ) {}

  static async start(dir: string): Promise<PrivateDatabase> {
    const port = await freePort();
    try {
      const uri = await run('bash', ['tools/testdb/start.sh', dir, String(port)]);
      return new PrivateDatabase(dir, port, uri);
    } catch (err) {
      await run('bash', ['tools/testdb/stop.sh', dir, '--rm']).catch(() => undefined);
      throw err;
    }
  }

  get ferretPid(): number {
    return Number(readFileSync(join(this.dir, 'ferretdb.pid'), 'utf8').trim());
  }

  async killFrontEnd(): Promise<void> {
    const pid = this.ferretPid;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await sleep(50);
    }
    throw new Error(`FerretDB ${pid} survived SIGKILL`);
  }

  async relaunch(): Promise<void> {
    const uri = await run('bash', ['tools/testdb/start.sh', this.dir, String(this.port)]);
    if (uri !== this.uri) throw new Error(`the database came back at ${uri}, not ${this.uri}`);
  }

  async stop(): Promise<void> {
    await run('bash', ['tools/testdb/stop.sh', this.dir, '--rm']);
  }
}

/** An API or worker process of a scenario. */
export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** The API's base URL (APIs only). */
  readonly url: string | undefined;
  /** How and when it exited, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null; at: string } | undefined;
  /** Set once the test kills or stops it on purpose: only then may it be gone. */
  deliberatelyEnded: boolean;
  alive(): boolean;
  /** SIGKILL: a crash, nothing drained. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Forks `tsx api/server.ts` or `tsx worker/main.ts` with `env` over the test environment; its
 * output goes to `<logDir>/<name>.log`. Resolves once it reports ready over IPC.
 */
export async function startService(kind: 'api' | 'worker', name: string, logDir: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const port = kind === 'api' ? await freePort() : undefined;
  const log = openSync(join(logDir, `${name}.log`), 'a');
  const child = fork(kind === 'api' ? 'api/server.ts' : 'worker/main.ts', [], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx', ...(env.TEST_SLOW_DB_MS ? ['--import', './test/support/slow-db.ts'] : [])],
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      WORKER_PORT: '0',
      ...(port ? { PORT: String(port) } : {}),
      ...env,
    },
    stdio: ['ignore', log, log, 'ipc'],
  });
  closeSync(log);
  try {
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`${name} did not become ready in 60 s (log: ${logDir}/${name}.log)`)), 60_000);
      child.on('message', (m) => {
        if (m === 'ready') {
          clearTimeout(timer);
          ok();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`${name} exited early with ${code} (log: ${logDir}/${name}.log)`));
      });
    });
  } catch (err) {
    await terminate(child, 'SIGKILL', 1000);
    throw err;
  }
  child.once('exit', (code, signal) => {
    service.exit = { code, signal, at: new Date().toISOString() };
  });
  const service: ServiceProcess = {
    name,
    child,
    exit: undefined,
    url: port ? `http://127.0.0.1:${port}` : undefined,
    deliberatelyEnded: false,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: async () => {
      service.deliberatelyEnded = true;
      await terminate(child, 'SIGKILL', 5000);
    },
    stop: async () => {
      service.deliberatelyEnded = true;
      await terminate(child, 'SIGTERM', 30_000);
      return child.exitCode;
    },
  };
  return service;
}

/** Stops a process of a scenario in `after`, whatever state the test left it in. */
export async function stopService(service: ServiceProcess): Promise<void> {
  await terminate(service.child, 'SIGTERM', 10_000);
}
