import type { Logger } from './logger.js';

/**
 * A last line of defence for long-running processes: a promise rejected with no handler (a bug,
 * or a library failing during an outage) is logged with an error id instead of ending the
 * process — one request may fail, every other in-flight request and the process survive.
 * Known sources are handled where they arise; this only keeps an unknown one from becoming an
 * outage.
 */
export function keepRunningOnStrayErrors(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason, errorId: crypto.randomUUID() }, 'unhandled rejection (process kept running)');
  });
}
