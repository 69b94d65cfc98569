/**
 * Test infrastructure, started lazily: the first test that needs a database or Redis calls
 * `ensureInfra()`. MONGODB_URI / REDIS_URL are used when set (CI sets them to the offline test
 * database and the machine's Redis); otherwise embedded servers are started. The URIs are written
 * back to process.env so that worker processes spawned by tests inherit them. Pure unit test runs
 * start nothing. At the end the run's own database is dropped, so a long-lived server does not
 * fill up with test data.
 */
import { startEmbeddedServers, type EmbeddedServers } from '../../scripts/embedded-servers.js';

let servers: Promise<EmbeddedServers> | undefined;

export async function ensureInfra(): Promise<void> {
  servers ??= startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
  const s = await servers;
  process.env.MONGODB_URI = s.mongodbUri;
  process.env.REDIS_URL = s.redisUrl;
  // The test database's PostgreSQL log (crash watch, and test/support/db-faults.ts finds its socket beside it).
  if (s.databaseLog) process.env.TESTDB_LOG = s.databaseLog;
}

/** Runs at the very end (set by test/support/context.ts once it opened the run's database). */
let cleanUp: (() => Promise<void>) | undefined;
export const atTheEnd = (run: () => Promise<void>) => void (cleanUp = run);

export const mochaHooks = {
  async afterAll() {
    await cleanUp?.().catch(() => undefined);
    if (servers) await (await servers).stop();
  },
};
