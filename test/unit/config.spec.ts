import { expect } from 'chai';
import { parseConfig } from '../../shared/config.js';

describe('configuration', () => {
  it('when nothing is set, then the documented defaults apply and the object is frozen', () => {
    const c = parseConfig({});
    expect(c).to.include({
      port: 3000,
      workerPort: 9464,
      bodyLimit: '1mb',
      queuePrefix: 'coupons',
      queuePartitions: 16,
      jobWaitTimeoutMs: 10000,
      logLevel: 'info',
    });
    expect(c.adminToken).to.equal(undefined);
    expect(Object.isFrozen(c)).to.equal(true);
  });

  const bad: [string, NodeJS.ProcessEnv][] = [
    ['PORT', { PORT: 'eighty' }],
    ['MONGODB_URI', { MONGODB_URI: 'http://example.com' }],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }],
    ['QUEUE_PARTITIONS', { QUEUE_PARTITIONS: '0' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['BODY_LIMIT', { BODY_LIMIT: 'huge' }],
  ];
  for (const [variable, env] of bad) {
    it(`when ${variable} is invalid, then start-up fails naming ${variable}`, () => {
      expect(() => parseConfig(env)).to.throw(new RegExp(`^Invalid configuration: ${variable}:`));
    });
  }

  it('when production is given the .env.example placeholder or a short admin token, then start-up fails naming ADMIN_TOKEN', () => {
    for (const token of ['change-me-to-a-long-random-token', 'x'.repeat(20), 'an-example-token-of-sufficient-length-0123']) {
      expect(() => parseConfig({ NODE_ENV: 'production', ADMIN_TOKEN: token })).to.throw(
        /^Invalid configuration: ADMIN_TOKEN: in production/,
      );
    }
    // Outside production the minimum is 16, and a random 64-character token is fine everywhere.
    expect(parseConfig({ NODE_ENV: 'development', ADMIN_TOKEN: 'change-me-to-a-long-random-token' }).adminToken).to.be.a('string');
    const random = 'f3a9c1d27be84e0a9d5c6b7a8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1';
    expect(parseConfig({ NODE_ENV: 'production', ADMIN_TOKEN: random }).adminToken).to.equal(random);
  });
});
