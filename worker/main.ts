/**
 * Worker process: connects, consumes every partition queue, runs the periodic cleanup of
 * idempotency records, and drains on SIGTERM (finishes the current jobs, exits 0).
 */
import { loadConfig } from '../shared/config.js';
import { connectDatabase } from '../shared/data/db.js';
import { createLogger } from '../shared/logger.js';
import { createServices } from '../shared/services.js';
import { createProcessor } from './processors/index.js';
import { WorkerPool } from './worker-pool.js';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config, 'worker');
  if (!config.mongodbUri || !config.redisUrl) {
    logger.fatal('MONGODB_URI and REDIS_URL are required');
    process.exit(1);
  }
  const db = await connectDatabase(config.mongodbUri);
  const services = createServices(config, db);
  const pool = new WorkerPool(config, logger, createProcessor(services));
  await pool.start();
  logger.info({ partitions: config.queuePartitions }, 'worker ready');
  process.send?.('ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    await pool.close();
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`worker failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
