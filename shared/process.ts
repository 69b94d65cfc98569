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

/**
 * What a service process tells the parent that forked it (tests, the benchmark) once it is ready:
 * over IPC, with the port it listens on (it may have been started with port 0). Nothing is sent
 * without a parent.
 */
export interface ReadyMessage {
  ready: true;
  /** The API's HTTP port, or the worker's operations port. */
  port: number;
}

export const reportReady = (port: number): void => void process.send?.({ ready: true, port } satisfies ReadyMessage);

export const isReadyMessage = (m: unknown): m is ReadyMessage => typeof m === 'object' && m !== null && (m as ReadyMessage).ready === true;
