/**
 * Test infrastructure, started lazily: the first test that needs a database or Redis calls
 * `ensureInfra()`. MONGODB_URI / REDIS_URL are used when set (CI sets them to FerretDB behind its
 * write proxy and to the machine's Redis); otherwise embedded servers are started. The URIs are
 * written back to process.env so that worker processes spawned by tests inherit them. Pure unit
 * test runs start nothing.
 */
import { startEmbeddedServers, type EmbeddedServers } from '../../scripts/embedded-servers.js';

let servers: Promise<EmbeddedServers> | undefined;

export async function ensureInfra(): Promise<void> {
  servers ??= startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
  const s = await servers;
  process.env.MONGODB_URI = s.mongodbUri;
  process.env.REDIS_URL = s.redisUrl;
}

export const mochaHooks = {
  async afterAll() {
    if (servers) await (await servers).stop();
  },
};
