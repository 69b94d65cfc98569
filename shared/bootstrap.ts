/**
 * Start-up shared by the API and the worker: validated configuration, the logger, MongoDB. Exits
 * with a clear message when the required connections are not configured.
 */
import { loadConfig, type Config } from './config.js';
import { connectDatabase } from './data/db.js';
import { createLogger, type Logger } from './logger.js';
import { createServices, type Services } from './services.js';

export async function bootstrap(
  name: 'api' | 'worker',
): Promise<{ config: Config & { redisUrl: string }; logger: Logger; services: Services }> {
  const config = loadConfig();
  const logger = createLogger(config, name);
  if (!config.mongodbUri || !config.redisUrl) {
    logger.fatal('MONGODB_URI and REDIS_URL are required (npm run dev starts embedded servers)');
    process.exit(1);
  }
  // The worker gives a silent connection up within its retry budget; the API keeps the default
  // for its long admin reads (the verifier's pages), which only an operator waits for.
  const db = await connectDatabase(config.mongodbUri, { socketTimeoutMS: name === 'worker' ? config.dbSocketTimeoutMs : undefined });
  const services = createServices(config, db, logger);
  // Admin changes made through any replica reach this process at once (shared/cache/config-changes.ts).
  await services.changes.start();
  return { config: config as Config & { redisUrl: string }, logger, services };
}
