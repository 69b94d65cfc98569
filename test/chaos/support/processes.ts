/**
 * The real processes of a chaos scenario, each started and stopped by its own pid: a private
 * `redis-server` (AOF, fsync on every write, so a restart keeps the queues), a private test
 * database (tools/testdb: PostgreSQL + FerretDB, whose FerretDB process can be killed and
 * relaunched on the same port), and API / worker processes (`tsx api/server.ts`,
 * `tsx worker/main.ts`) whose output goes to a log file of the scenario.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startRedisServer } from '../../../scripts/embedded-servers.js';
import { startServiceProcess, terminate, type ServiceProcess } from '../../support/service-process.js';

export type { ServiceProcess };
const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REDIS_ARGS = ['--appendonly', 'yes', '--appendfsync', 'always'];

/**
 * A `redis-server` of its own on a free loopback port, with its data (AOF, fsync on every write)
 * in `dir`: a kill loses nothing written, and a launch on the same port and directory comes back
 * with the queues.
 */
export class PrivateRedis {
  private server: Awaited<ReturnType<typeof startRedisServer>>;
  private constructor(
    first: Awaited<ReturnType<typeof startRedisServer>>,
    private readonly dir: string,
  ) {
    this.server = first;
  }

  static async start(dir: string): Promise<PrivateRedis> {
    mkdirSync(dir, { recursive: true });
    return new PrivateRedis(await startRedisServer({ dir, args: REDIS_ARGS }), dir);
  }

  get port(): number {
    return this.server.port;
  }

  get url(): string {
    return this.server.url;
  }

  get pid(): number {
    return this.server.child.pid!;
  }

  /** Starts the server again on its port and directory (after a kill); resolves when it accepts connections. */
  async launch(): Promise<void> {
    this.server = await startRedisServer({ dir: this.dir, port: this.port, args: REDIS_ARGS });
  }

  /** SIGKILL: nothing flushed beyond what `appendfsync always` already wrote. */
  async kill(): Promise<void> {
    await this.server.kill();
  }

  pause(): void {
    process.kill(this.pid, 'SIGSTOP');
  }

  resume(): void {
    process.kill(this.pid, 'SIGCONT');
  }

  async stop(): Promise<void> {
    await terminate(this.server.child, 'SIGTERM', 5000);
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
    try {
      // FerretDB listens on port 0; relaunches come back on the port it got.
      const uri = await run('bash', ['tools/testdb/start.sh', dir]);
      return new PrivateDatabase(dir, Number(new URL(uri).port), uri);
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

/**
 * Forks `tsx api/server.ts` or `tsx worker/main.ts` with `env` over the test environment; its
 * output goes to `<logDir>/<name>.log`. Resolves once it reports ready.
 */
export const startService = (kind: 'api' | 'worker', name: string, logDir: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> =>
  startServiceProcess(
    kind,
    { NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn', ...env },
    { name, output: join(logDir, `${name}.log`) },
  );

/** Stops a process of a scenario in `after`, whatever state the test left it in. */
export async function stopService(service: ServiceProcess): Promise<void> {
  await terminate(service.child, 'SIGTERM', 10_000);
}
