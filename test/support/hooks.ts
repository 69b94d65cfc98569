/**
 * Test infrastructure, started lazily: the first test that needs a database or Redis calls
 * `ensureInfra()`. MONGODB_URI / REDIS_URL are used when set (CI sets them to the offline test
 * database and the machine's Redis); otherwise embedded servers are started. The URIs are written
 * back to process.env so that worker processes spawned by tests inherit them. Pure unit test runs
 * start nothing. At the end the run's own database is dropped, so a long-lived server does not
 * fill up with test data.
 */
import { startEmbeddedServers, type EmbeddedServers } from '../../scripts/embedded-servers.js';
// Every mocha timeout in a quiet machine's time, in every mocha process (this file is its root hooks).
import './machine-timeouts.js';

/**
 * Kept on `globalThis`, not in this module: mocha loads this file for its root hooks one way and a
 * spec file that can only be imported as an ES module (the cluster ones) loads it again the other
 * way — two instances of one file. With module state, the servers a spec started would not be the
 * ones the root hook stops: run alone, such a spec would leave its test database and redis-server
 * running. One state per process, whichever instance asks.
 */
const state: { servers?: Promise<EmbeddedServers>; cleanUp?: () => Promise<void> } = ((globalThis as { [key: symbol]: unknown })[
  Symbol.for('coupons.test.infra')
] ??= {});

export async function ensureInfra(): Promise<void> {
  state.servers ??= startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
  const s = await state.servers;
  process.env.MONGODB_URI = s.mongodbUri;
  process.env.REDIS_URL = s.redisUrl;
  // The test database's PostgreSQL log (crash watch, and test/support/db-faults.ts finds its socket beside it).
  if (s.databaseLog) process.env.TESTDB_LOG = s.databaseLog;
}

/** Runs at the very end (set by test/support/context.ts once it opened the run's database). */
export const atTheEnd = (run: () => Promise<void>) => void (state.cleanUp = run);

export const mochaHooks = {
  async afterAll() {
    await state.cleanUp?.().catch(() => undefined);
    if (state.servers) await (await state.servers).stop();
  },
};
