/**
 * Mocha root hooks: make sure a MongoDB-wire server and a Redis are reachable before any test.
 * MONGODB_URI / REDIS_URL are used when set (CI sets them to FerretDB behind its write proxy and
 * to the machine's Redis); otherwise embedded servers are started. The URIs are written back to
 * process.env so that worker processes spawned by tests inherit them.
 */
import { startEmbeddedServers, type EmbeddedServers } from '../../scripts/embedded-servers.js';

let servers: EmbeddedServers | undefined;

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    servers = await startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
    process.env.MONGODB_URI = servers.mongodbUri;
    process.env.REDIS_URL = servers.redisUrl;
  },
  async afterAll() {
    await servers?.stop();
  },
};
