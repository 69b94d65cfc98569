/** Start-up of the tools that work on the database directly (`npm run seed`): configuration, database, services. */
import { loadConfig } from '../shared/config.js';
import { connectDatabase } from '../shared/data/db.js';
import { ALL_APPLICATIONS } from '../shared/cache/config-changes.js';
import { createServices, type Services } from '../shared/services.js';

export async function withServices<T>(run: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  if (!config.mongodbUri) {
    process.stderr.write('MONGODB_URI is required (e.g. mongodb://127.0.0.1:27017/coupons)\n');
    process.exit(1);
  }
  const db = await connectDatabase(config.mongodbUri);
  const services = createServices(config, db);
  await services.changes.start();
  try {
    return await run(services);
  } finally {
    // What the command changed reaches every running process at once (with REDIS_URL set).
    await services.changes.announce(ALL_APPLICATIONS);
    await services.changes.close();
    await db.close();
  }
}
