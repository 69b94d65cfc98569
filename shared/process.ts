import type { Server } from 'node:http';
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

/**
 * The one graceful shutdown of every process (API, worker, `npm run dev`): on the first SIGTERM or
 * SIGINT it runs `drain` — stop taking work, finish what is in hand, close connections, in the
 * order given — then exits 0 (1 if the drain failed). A second signal is ignored: the drain is
 * already under way (an orchestrator that wants it over sends SIGKILL).
 */
export function drainOnSignal(logger: Logger, drain: () => Promise<void>): void {
  let draining = false;
  const stop = (signal: NodeJS.Signals) => {
    if (draining) return;
    draining = true;
    logger.info({ signal }, 'draining');
    drain().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'drain failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Stops an HTTP server taking connections and resolves once every request in hand is answered. */
export function closeHttpServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections with no request in hand are closed now; busy ones after their answer.
    server.closeIdleConnections();
  });
}
