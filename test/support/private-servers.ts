/**
 * Servers of a test's own that the test kills and starts again: a `redis-server` (AOF, fsync on
 * every write, so a restart keeps the queues) and a test database (tools/testdb: PostgreSQL +
 * FerretDB, whose FerretDB process can be killed and relaunched). Each is reached through a
 * {@link Relay}, so clients keep one address across restarts while every launch listens on a port
 * of its own. Used by the chaos scenarios and by the outage and rate-limit tests.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCommand, startRedisServer } from '../../scripts/embedded-servers.js';
import { Relay } from './relay.js';
import { terminate } from './service-process.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REDIS_ARGS = ['--appendonly', 'yes', '--appendfsync', 'always'];

/**
 * A `redis-server` of its own on a free loopback port, with its data (AOF, fsync on every write)
 * in `dir`: a kill loses nothing written, and a launch on the same directory comes back with the
 * queues. Clients are given the address of a {@link Relay} that stays the same across launches
 * (each launch takes a new port of its own: see relay.ts for why not the same one).
 */
export class PrivateRedis {
  private server: Awaited<ReturnType<typeof startRedisServer>>;
  private constructor(
    first: Awaited<ReturnType<typeof startRedisServer>>,
    private readonly dir: string,
    private readonly relay: Relay,
  ) {
    this.server = first;
  }

  static async start(dir: string): Promise<PrivateRedis> {
    mkdirSync(dir, { recursive: true });
    const server = await startRedisServer({ dir, args: REDIS_ARGS });
    try {
      return new PrivateRedis(server, dir, await Relay.start(server.port));
    } catch (err) {
      await terminate(server.child, 'SIGKILL', 1000);
      throw err;
    }
  }

  /** The address clients use (the relay's), the same across launches. */
  get url(): string {
    return `redis://127.0.0.1:${this.relay.port}`;
  }

  get pid(): number {
    return this.server.child.pid!;
  }

  /** Starts the server again on its directory (after a kill); resolves when it accepts connections through the relay. */
  async launch(): Promise<void> {
    this.server = await startRedisServer({ dir: this.dir, args: REDIS_ARGS });
    await this.relay.up(this.server.port);
  }

  /** SIGKILL: nothing flushed beyond what `appendfsync always` already wrote; new connections are refused until `launch`. */
  async kill(): Promise<void> {
    await this.relay.down();
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
    await this.relay.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A private test database (tools/testdb/start.sh DIR): its own PostgreSQL cluster and the FerretDB
 * process in front of it, reached through a {@link Relay}. `killFrontEnd` SIGKILLs FerretDB by the
 * pid start.sh recorded; `relaunch` runs start.sh again, which reuses the running PostgreSQL and
 * starts FerretDB on a new port of its own (port 0), and points the relay at it: clients keep the
 * address they were given (see relay.ts for why not the same port).
 */
export class PrivateDatabase {
  private constructor(
    readonly dir: string,
    private readonly relay: Relay,
    /** The address clients use (the relay's), the same across relaunches. */
    readonly uri: string,
  ) {}

  static async start(dir: string): Promise<PrivateDatabase> {
    try {
      const direct = new URL(await runCommand('bash', ['tools/testdb/start.sh', dir], { cwd: repoRoot }));
      const relay = await Relay.start(Number(direct.port));
      direct.port = String(relay.port);
      return new PrivateDatabase(dir, relay, direct.toString());
    } catch (err) {
      await runCommand('bash', ['tools/testdb/stop.sh', dir, '--rm'], { cwd: repoRoot }).catch(() => undefined);
      throw err;
    }
  }

  get ferretPid(): number {
    return Number(readFileSync(join(this.dir, 'ferretdb.pid'), 'utf8').trim());
  }

  /** SIGKILL; new connections are refused until `relaunch`. */
  async killFrontEnd(): Promise<void> {
    const pid = this.ferretPid;
    await this.relay.down();
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
    const direct = new URL(await runCommand('bash', ['tools/testdb/start.sh', this.dir], { cwd: repoRoot }));
    await this.relay.up(Number(direct.port));
  }

  /** Copies FerretDB's and PostgreSQL's logs into `to` (those that exist). */
  copyLogs(to: string): void {
    for (const [from, name] of [
      ['ferretdb.err', 'ferretdb.err'],
      ['ferretdb.out', 'ferretdb.out'],
      ['run/postgresql.log', 'postgresql.log'],
    ] as const) {
      if (existsSync(join(this.dir, from))) copyFileSync(join(this.dir, from), join(to, name));
    }
  }

  async stop(): Promise<void> {
    await this.relay.stop();
    await runCommand('bash', ['tools/testdb/stop.sh', this.dir, '--rm'], { cwd: repoRoot });
  }
}
