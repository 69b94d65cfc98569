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
});
