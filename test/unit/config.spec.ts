import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { envExample, parseConfig, SETTINGS } from '../../shared/config.js';
import { readmeWithTable } from '../../scripts/config-docs.js';
import { clusterSeeds } from '../../shared/redis-url.js';

describe('configuration', () => {
  it('when nothing is set, then the documented defaults apply and the object is frozen', () => {
    const c = parseConfig({});
    expect(c).to.include({
      port: 3000,
      workerPort: 9464,
      bodyLimit: '1mb',
      queuePrefix: 'coupons',
      queuePartitions: 64,
      jobWaitTimeoutMs: 10000,
      logLevel: 'info',
      workerOperations: true,
      jobRetryBudgetMs: 60000,
      // A third of the budget: a job that meets a dead connection has two thirds left to retry.
      dbSocketTimeoutMs: 20000,
    });
    expect(c.adminToken).to.equal(undefined);
    expect(Object.isFrozen(c)).to.equal(true);
  });

  const bad: [string, NodeJS.ProcessEnv][] = [
    ['PORT', { PORT: 'eighty' }],
    ['MONGODB_URI', { MONGODB_URI: 'http://example.com' }],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    // A cluster URL it cannot read must stop the process, never connect somewhere else.
    ['REDIS_URL', { REDIS_URL: 'redis+cluster://10.0.0.1' }],
    ['REDIS_URL', { REDIS_URL: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7000?timeout=5' }],
    ['REDIS_URL', { REDIS_URL: 'redis+cluster://10.0.0.1:7000,,10.0.0.2:7000' }],
    ['REDIS_URL', { REDIS_URL: 'rediss+cluster://redis-1:70000' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short' }],
    ['QUEUE_PARTITIONS', { QUEUE_PARTITIONS: '0' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['BODY_LIMIT', { BODY_LIMIT: 'huge' }],
    ['WORKER_OPERATIONS', { WORKER_OPERATIONS: 'sometimes' }],
    // A misspelt failpoint would never fire: the test that set it would pass without its fault.
    ['WORKER_FAILPOINT', { NODE_ENV: 'test', WORKER_FAILPOINT: 'stack-after-commmit' }],
    // A worker that takes no operations and delivers no webhooks would do nothing.
    ['WORKER_OPERATIONS', { WORKER_OPERATIONS: 'false', WEBHOOK_CONCURRENCY: '0' }],
    // A socket timeout over half the retry budget leaves a job no room to retry a dead connection.
    ['DB_SOCKET_TIMEOUT_MS', { DB_SOCKET_TIMEOUT_MS: '30001' }],
    ['DB_SOCKET_TIMEOUT_MS', { JOB_RETRY_BUDGET_MS: '6000', DB_SOCKET_TIMEOUT_MS: '4000' }],
  ];
  for (const [variable, env] of bad) {
    it(`when ${variable} is invalid (${env[variable]}), then start-up fails naming ${variable}`, () => {
      expect(() => parseConfig(env)).to.throw(new RegExp(`^Invalid configuration: ${variable}:`));
    });
  }

  it('when only JOB_RETRY_BUDGET_MS is set, then the worker socket timeout is a third of it, at least 1 s', () => {
    expect(parseConfig({ JOB_RETRY_BUDGET_MS: '9000' }).dbSocketTimeoutMs).to.equal(3000);
    expect(parseConfig({ JOB_RETRY_BUDGET_MS: '2000' }).dbSocketTimeoutMs).to.equal(1000);
    expect(parseConfig({ JOB_RETRY_BUDGET_MS: '9000', DB_SOCKET_TIMEOUT_MS: '4500' }).dbSocketTimeoutMs).to.equal(4500);
  });

  it('when REDIS_URL names cluster seeds, then each seed, TLS and credentials are read from it; a plain URL has none', () => {
    expect(clusterSeeds('redis+cluster://redis-1:6379,redis-2:6380/')).to.deep.equal({
      nodes: [
        { host: 'redis-1', port: 6379 },
        { host: 'redis-2', port: 6380 },
      ],
      tls: false,
    });
    expect(clusterSeeds('rediss+cluster://app:p%40ss@[::1]:7000')).to.deep.equal({
      nodes: [{ host: '::1', port: 7000 }],
      tls: true,
      username: 'app',
      password: 'p@ss',
    });
    expect(clusterSeeds('redis://localhost:6379')).to.equal(null);
    expect(parseConfig({ REDIS_URL: 'redis+cluster://redis-1:6379,redis-2:6379' }).redisUrl).to.equal(
      'redis+cluster://redis-1:6379,redis-2:6379',
    );
  });

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

  it('when production is given a test clock or a fault injection, then start-up fails naming it; tests may set them', () => {
    for (const [name, value] of [
      ['TEST_CLOCK_FILE', '/tmp/clock'],
      ['WORKER_FAILPOINT', 'after-complete'],
      ['WORKER_FAILPOINT', 'stack-after-commit'],
      ['WORKER_FAILPOINT', 'stack-revert-after-reserve'],
    ] as const) {
      expect(() => parseConfig({ NODE_ENV: 'production', [name]: value })).to.throw(
        new RegExp(`^Invalid configuration: ${name}: .* never set in production`),
      );
      expect(() => parseConfig({ NODE_ENV: 'test', [name]: value })).not.to.throw();
    }
    expect(parseConfig({ NODE_ENV: 'test', TEST_CLOCK_FILE: '/tmp/clock' }).testClockFile).to.equal('/tmp/clock');
  });
});

describe('settings: one declaration, the docs generated from it', () => {
  const root = new URL('../../', import.meta.url);
  it('when README.md is read, then its configuration table is the one shared/config.ts generates (npm run config:docs)', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    expect(readme).to.equal(readmeWithTable(readme));
  });

  it('when .env.example is read, then it is the one shared/config.ts generates (npm run config:docs)', () => {
    expect(readFileSync(new URL('.env.example', root), 'utf8')).to.equal(envExample());
  });

  it('when .env.example is loaded as the environment, then it is a valid configuration of every setting', () => {
    const env = Object.fromEntries(
      envExample()
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const config = parseConfig({ ...env, NODE_ENV: 'test' });
    expect(Object.keys(config).sort()).to.deep.equal(Object.keys(SETTINGS).sort());
  });
});
