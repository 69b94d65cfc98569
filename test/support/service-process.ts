/**
 * Real service processes for tests of replicas, crashes, outages and shutdown: `api/server.ts` or
 * `worker/main.ts` (transpiled by `npm test`, scripts/service-build.ts; else under tsx), each
 * started and stopped by its own pid. An API listens on port 0 and reports the port it got (shared/process.ts `reportReady`): no port is picked first and bound
 * later, so no other process can take it in between. Output goes to a log file; a process that
 * does not become ready is killed and the error quotes what it printed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeArgsFor } from '../../scripts/service-build.js';
import { isReadyMessage } from '../../shared/process.js';
import { TEST_QUEUE_PREFIX, testMongoUri } from './context.js';
import { ensureInfra } from './hooks.js';
import { PACE_MARGIN } from './pace.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * How long a process may take to become ready: the first start of a test process may take 90 s (a
 * cold compile and connections on a busy machine); after that, {@link PACE_MARGIN} times the slowest
 * start this test process measured, when that is longer — a machine that is slow today (other lanes
 * running their fault scenarios) gives its later starts the room its earlier ones needed.
 */
const FIRST_READY_MS = 90_000;
let slowestStartMs = 0;
const readyWithinMs = () => Math.max(FIRST_READY_MS, PACE_MARGIN * slowestStartMs);

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** The API's base URL (APIs only). */
  readonly url: string | undefined;
  /** The port it reported: the API's, or the worker's operations port. */
  readonly port: number;
  /** Its stdout and stderr. */
  readonly log: string;
  /** How and when it exited, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null; at: string } | undefined;
  /** Set once the test kills or stops it on purpose: only then may it be gone. */
  deliberatelyEnded: boolean;
  alive(): boolean;
  /** SIGKILL: a crash, nothing drained. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain), SIGKILL after `graceMs` (default: never: the drain is what the test watches); resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}
export type WorkerProcess = ServiceProcess;

export interface ProcessOptions {
  /** Its name in errors and logs (default: the kind and a number). */
  name?: string;
  /** Where its output goes (appended); default: a file in a temporary directory of this test process. */
  output?: string;
}

/** Resolves when `child` exits (immediately if it has already). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Sends `signal` to a live child by its pid and waits for its exit; SIGKILL after `graceMs`. */
export async function terminate(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  process.kill(child.pid, 'SIGCONT'); // a stopped process cannot act on SIGTERM
  process.kill(child.pid, signal);
  const exited = exitOf(child);
  if (!Number.isFinite(graceMs) || (await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]))) return exited;
  if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
  await exited;
}

/** The last lines a process wrote, for an error message. */
export function tailOf(file: string, lines = 30): string {
  if (!existsSync(file)) return '(no output)';
  const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return text || '(no output)';
}

let logDir: string | undefined;
let seq = 0;

/**
 * Every service process this test process started and that still runs. When the test process
 * exits (mocha ends a run with `process.exit`), those still running are killed: a test whose hook
 * failed half-way — one start of several refused — must not leave the others running after it.
 */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Forks an API or a worker with `env` over this process's environment (nothing else is added:
 * see {@link startApiProcess} / {@link startWorkerProcess} for the test defaults). Resolves once it
 * reports ready.
 */
export async function startServiceProcess(
  kind: 'api' | 'worker',
  env: NodeJS.ProcessEnv,
  opts: ProcessOptions = {},
): Promise<ServiceProcess> {
  const name = opts.name ?? `${kind}-${++seq}`;
  logDir ??= mkdtempSync(join(tmpdir(), 'coupons-processes-'));
  const log = opts.output ?? join(logDir, `${name}.log`);
  const fd = openSync(log, 'a');
  const command = nodeArgsFor(kind === 'api' ? 'api/server.ts' : 'worker/main.ts');
  // slow-db.ts is TypeScript: tsx loads it (the service itself may still be the transpiled file).
  const slowDb = env.TEST_SLOW_DB_MS ? ['--import', 'tsx', '--import', './test/support/slow-db.ts'] : [];
  const child = fork(command.at(-1)!, [], {
    cwd: repoRoot,
    execArgv: [...command.slice(0, -1), ...slowDb],
    env: { ...process.env, WORKER_PORT: '0', ...env, ...(kind === 'api' ? { PORT: '0' } : {}) },
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd); // the child holds its own copy
  running.add(child);
  child.once('exit', () => running.delete(child));
  let port: number;
  const startedAt = Date.now();
  const readyMs = readyWithinMs();
  try {
    port = await new Promise<number>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`did not become ready in ${Math.round(readyMs / 1000)} s`)), readyMs);
      child.on('message', (m) => {
        if (!isReadyMessage(m)) return;
        clearTimeout(timer);
        slowestStartMs = Math.max(slowestStartMs, Date.now() - startedAt);
        ok(m.port);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`exited early with ${code ?? signal}`));
      });
    });
  } catch (err) {
    await terminate(child, 'SIGKILL', 1000); // never leave a half-started process behind
    throw new Error(
      `${name} (${kind === 'api' ? 'api/server.ts' : 'worker/main.ts'}) ${(err as Error).message}; its output (${log}):\n${tailOf(log)}`,
      {
        cause: err,
      },
    );
  }
  const service: ServiceProcess = {
    name,
    child,
    port,
    log,
    exit: undefined,
    url: kind === 'api' ? `http://127.0.0.1:${port}` : undefined,
    deliberatelyEnded: false,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: async () => {
      service.deliberatelyEnded = true;
      await terminate(child, 'SIGKILL', 5000);
    },
    stop: async (graceMs = Number.POSITIVE_INFINITY) => {
      service.deliberatelyEnded = true;
      await terminate(child, 'SIGTERM', graceMs);
      return child.exitCode;
    },
  };
  child.once('exit', (code, signal) => {
    service.exit = { code, signal, at: new Date().toISOString() };
  });
  return service;
}

/**
 * The environment of a service process of this test process: its database, queue prefix, 4
 * partitions. The servers are started first: a spec file run alone may start a process before
 * anything else needed them.
 */
async function testEnv(env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  await ensureInfra();
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    MONGODB_URI: testMongoUri(),
    QUEUE_PREFIX: TEST_QUEUE_PREFIX,
    QUEUE_PARTITIONS: '4',
    ...env,
  };
}

export const startWorkerProcess = async (env: NodeJS.ProcessEnv = {}, opts: ProcessOptions = {}) =>
  startServiceProcess('worker', await testEnv(env), opts);
export const startApiProcess = async (env: NodeJS.ProcessEnv = {}, opts: ProcessOptions = {}) =>
  startServiceProcess('api', await testEnv(env), opts);
