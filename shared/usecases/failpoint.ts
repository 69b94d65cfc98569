/**
 * The crash tests' failpoints: a worker kills itself at a named step when a test asks
 * (WORKER_FAILPOINT, shared/config.ts; refused in production).
 */
import type { Config, WorkerFailpoint } from '../config.js';

/** The worker kills itself here when a test asks. */
export function failpoint(deps: { config: Pick<Config, 'workerFailpoint'> }, at: WorkerFailpoint) {
  if (deps.config.workerFailpoint === at) process.kill(process.pid, 'SIGKILL');
}
