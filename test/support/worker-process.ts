/**
 * Real worker processes for tests of replicas and crashes: `tsx worker/main.ts` with the test's
 * database, Redis and queue prefix. Resolves once the worker reports ready over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { TEST_QUEUE_PREFIX, testMongoUri } from './context.js';

export interface WorkerProcess {
  child: ChildProcess;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing drained. */
  kill(): Promise<void>;
}

export async function startWorkerProcess(env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
  const child = fork('worker/main.ts', [], {
    execArgv: ['--import', 'tsx'],
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
    const timer = setTimeout(() => reject(new Error('worker did not become ready in 60 s')), 60_000);
    child.on('message', (m) => {
      if (m === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited early with ${code}`));
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
