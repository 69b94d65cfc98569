/**
 * Real service processes for tests of replicas, crashes and shutdown: `tsx worker/main.ts` or
 * `tsx api/server.ts` with the test's database, Redis and queue prefix. Resolves once the process
 * reports ready over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { TEST_QUEUE_PREFIX, testMongoUri } from './context.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing drained. */
  kill(): Promise<void>;
}
export type WorkerProcess = ServiceProcess;

async function startProcess(script: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
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
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not become ready in 60 s`)), 60_000);
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

export const startWorkerProcess = (env: NodeJS.ProcessEnv = {}) => startProcess('worker/main.ts', env);
export const startApiProcess = (env: NodeJS.ProcessEnv = {}) => startProcess('api/server.ts', env);
