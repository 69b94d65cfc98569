import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

/** JSON logs (pino); pretty only when LOG_PRETTY (default in development). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logPretty'>, name: string): Logger {
  return pino({
    name,
    level: config.logLevel,
    ...(config.logPretty ? { transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true } } } : {}),
  });
}
export type { Logger };
