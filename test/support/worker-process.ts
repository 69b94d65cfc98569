/**
 * Real service processes for tests of replicas, crashes and shutdown: `tsx worker/main.ts` or
 * `tsx api/server.ts` with the test's database, Redis and queue prefix. Resolves once the process
 * reports ready over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { TEST_QUEUE_PREFIX, testMongoUri } from './context.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing drained. */
  kill(): Promise<void>;
}
export type WorkerProcess = ServiceProcess;

/** Where a process's stdout and stderr go: inherited (default), or appended to a file (its logs, kept for grepping). */
export interface ProcessOptions {
  output?: string;
}

async function startProcess(script: string, env: NodeJS.ProcessEnv, opts: ProcessOptions = {}): Promise<ServiceProcess> {
  const fd = opts.output ? openSync(opts.output, 'a') : undefined;
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx', ...(env.TEST_SLOW_DB_MS ? ['--import', './test/support/slow-db.ts'] : [])],
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
      MONGODB_URI: testMongoUri(),
      QUEUE_PREFIX: TEST_QUEUE_PREFIX,
      QUEUE_PARTITIONS: '4',
      WORKER_PORT: '0',
      ...env,
    },
    stdio: fd === undefined ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', fd, fd, 'ipc'],
  });
  if (fd !== undefined) closeSync(fd); // the child holds its own copy
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started process behind
      reject(new Error(`${script} did not become ready in 60 s`));
    }, 60_000);
    child.on('message', (m) => {
      if (m === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited early with ${code}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export const startWorkerProcess = (env: NodeJS.ProcessEnv = {}, opts: ProcessOptions = {}) => startProcess('worker/main.ts', env, opts);
export const startApiProcess = (env: NodeJS.ProcessEnv = {}, opts: ProcessOptions = {}) => startProcess('api/server.ts', env, opts);
