/**
 * The service processes of a chaos scenario, each started and stopped by its own pid: API and
 * worker processes (`tsx api/server.ts`, `tsx worker/main.ts`) whose output goes to a log file of
 * the scenario. Its own Redis and database are in test/support/private-servers.ts.
 */
import { join } from 'node:path';
import { startServiceProcess, terminate, type ServiceProcess } from '../../support/service-process.js';

export type { ServiceProcess };

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
