/**
 * The one place that reads `process.env`. Validated once with joi at start-up; an invalid value
 * stops the process with a message naming the variable. Every key, with its default, is listed
 * in README.md ("Configuration").
 */
import { BlockList } from 'node:net';
import Joi from 'joi';
import { clusterSeeds } from './redis-url.js';

export interface Config {
  /** `development` enables pretty logs and the embedded servers of `npm run dev`. */
  readonly nodeEnv: 'development' | 'production' | 'test';
  /** HTTP port of the API. Default 3000. */
  readonly port: number;
  /** Port of the worker's health and metrics endpoint. Default 9464. */
  readonly workerPort: number;
  /** MongoDB connection string. Unset: `npm run dev` and the tests start embedded servers. */
  readonly mongodbUri: string | undefined;
  /**
   * Redis connection string: `redis://…` for one Redis, `redis+cluster://host:port,host:port` for
   * the seed nodes of a Redis Cluster (docs/scaling.md). Unset: as above.
   */
  readonly redisUrl: string | undefined;
  /** Bearer token of the admin API and Bull Board. Unset: both are off. */
  readonly adminToken: string | undefined;
  /**
   * Bearer token for `/metrics`. Unset: the API's `/metrics` is off (404) — business counters never
   * sit open on the public port — and the worker's (an internal port) is open.
   */
  readonly metricsToken: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Pretty logs (development only). Default: true when NODE_ENV=development. */
  readonly logPretty: boolean;
  /** Largest accepted JSON body, in bytes-with-unit as `express.json` takes it. Default `1mb`. */
  readonly bodyLimit: string;
  /** Prefix of every BullMQ key. Default `coupons`. */
  readonly queuePrefix: string;
  /**
   * Number of per-customer partition queues. Change it only with the procedure of docs/scaling.md
   * ("Changing the partition count": workers first, with QUEUE_PARTITIONS_PREVIOUS). Default 16.
   */
  readonly queuePartitions: number;
  /**
   * Workers only: the partition count before a change of QUEUE_PARTITIONS; they also consume its
   * queues until those are drained (docs/scaling.md, "Changing the partition count"). Unset: none.
   */
  readonly queuePartitionsPrevious: number | undefined;
  /** How long the API waits for a queued job before answering 503. Default 10000 ms. */
  readonly jobWaitTimeoutMs: number;
  /** BullMQ lock duration of a running job. Default 15000 ms. */
  readonly jobLockMs: number;
  /** How often workers look for stalled jobs. Default 5000 ms. */
  readonly stalledIntervalMs: number;
  /**
   * Partition owners (opt-in, shared/queue/partition-owners.ts): above 0, how often a worker renews
   * its heartbeat, and each partition is consumed by one live worker (a replica silent for 3 beats
   * loses its partitions to the others). 0 (default): every worker consumes every partition.
   */
  readonly workerHeartbeatMs: number;
  /** Seconds finished jobs are kept (for replies and Bull Board). Default 3600. */
  readonly keepFinishedSeconds: number;
  /** At most this many finished jobs are kept per partition queue (bounds Redis memory). Default 200. */
  readonly keepFinishedJobs: number;
  /** Approximate length of each partition queue's event stream. Default 2000. */
  readonly queueEventsMaxLen: number;
  /** How long a worker retries a job in place through database errors before failing it. Default 60000 ms. */
  readonly jobRetryBudgetMs: number;
  /** Time to receive a whole request (headers and body); slower or truncated requests get 408. Default 10000 ms. */
  readonly requestTimeoutMs: number;
  /** How long an Idempotency-Key is kept. Default 86400 (docs/decisions.md#24: at least 24 h). */
  readonly idempotencyTtlSeconds: number;
  /** How long in-process caches (credentials, campaigns) trust themselves before re-checking. Default 1000 ms. */
  readonly cacheCheckMs: number;
  /**
   * Webhook deliveries in flight per worker process. 0: this process delivers nothing (run
   * dedicated delivery replicas) — it still records events. Default 10.
   */
  readonly webhookConcurrency: number;
  /**
   * Whether this worker process takes operations from the partition queues. false: a dedicated
   * delivery replica (it delivers webhooks only; WEBHOOK_CONCURRENCY must be above 0). Default true.
   */
  readonly workerOperations: boolean;
  /** Budget of one webhook POST (connect, send, answer). Default 10000 ms. */
  readonly webhookTimeoutMs: number;
  /** Attempts of one delivery before it is dead-lettered. Default 14 (see docs/events.md). */
  readonly webhookMaxAttempts: number;
  /** First retry delay; doubled per failed attempt, ±10 % jitter. Default 60000 ms. */
  readonly webhookRetryBaseMs: number;
  /** Longest retry delay. Default 21600000 ms (6 h). */
  readonly webhookRetryMaxMs: number;
  /**
   * CIDRs a webhook may reach although they are private, loopback, link-local or otherwise
   * reserved (SSRF guard). Default none.
   */
  readonly webhookAllowedCidrs: readonly string[];
  /** How often workers look for events never dispatched and deliveries whose job was lost. Default 60000 ms. */
  readonly webhookSweepMs: number;
  /** How late an undispatched event or a pending delivery must be before the sweep re-queues it. Default 300000 ms. */
  readonly webhookOverdueMs: number;
  /** Days events and finished deliveries are kept. Default 30. */
  readonly webhookRetentionDays: number;
}

/** A comma-separated list of CIDRs (`10.0.0.0/8,::1/128`), each checked by node:net. */
const cidrList = Joi.string()
  .allow('')
  .custom((v: string) => {
    const list = v
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    for (const cidr of list) {
      const [address = '', prefix = ''] = cidr.split('/');
      if (!/^\d{1,3}$/.test(prefix)) throw new Error('bad prefix');
      // Throws on a malformed address or an out-of-range prefix.
      new BlockList().addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
    }
    return list;
  })
  .messages({ 'any.custom': '{{#label}} must be a comma-separated list of CIDRs (e.g. 127.0.0.0/8,::1/128)' });

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('production'),
  PORT: Joi.number().port().default(3000),
  WORKER_PORT: Joi.number().port().default(9464),
  MONGODB_URI: Joi.string().pattern(/^mongodb(\+srv)?:\/\/\S+$/, 'mongodb:// URI'),
  REDIS_URL: Joi.string()
    .pattern(/^rediss?(\+cluster)?:\/\/\S+$/, 'redis:// or redis+cluster:// URI')
    .custom((v: string) => {
      clusterSeeds(v); // throws on a cluster URL it cannot read
      return v;
    })
    .messages({ 'any.custom': '{{#label}} is not a valid cluster URL: {{#error.message}}' }),
  ADMIN_TOKEN: Joi.string().min(16),
  METRICS_TOKEN: Joi.string().min(16),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  LOG_PRETTY: Joi.boolean(),
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('1mb'),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9_-]+$/)
    .default('coupons'),
  QUEUE_PARTITIONS: Joi.number().integer().min(1).max(1024).default(64),
  QUEUE_PARTITIONS_PREVIOUS: Joi.number().integer().min(1).max(1024),
  JOB_WAIT_TIMEOUT_MS: Joi.number().integer().min(100).default(10000),
  JOB_LOCK_MS: Joi.number().integer().min(1000).default(15000),
  STALLED_INTERVAL_MS: Joi.number().integer().min(500).default(5000),
  WORKER_HEARTBEAT_MS: Joi.alternatives(Joi.number().valid(0), Joi.number().integer().min(100).max(60_000)).default(0),
  KEEP_FINISHED_SECONDS: Joi.number().integer().min(60).default(3600),
  KEEP_FINISHED_JOBS: Joi.number().integer().min(10).max(100_000).default(200),
  QUEUE_EVENTS_MAX_LEN: Joi.number().integer().min(100).default(2000),
  JOB_RETRY_BUDGET_MS: Joi.number().integer().min(1000).default(60_000),
  REQUEST_TIMEOUT_MS: Joi.number().integer().min(1000).default(10_000),
  IDEMPOTENCY_TTL_SECONDS: Joi.number().integer().min(86400).default(86400),
  CACHE_CHECK_MS: Joi.number().integer().min(50).max(60000).default(1000),
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(0).max(500).default(10),
  WORKER_OPERATIONS: Joi.boolean().default(true),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(120000).default(10000),
  WEBHOOK_MAX_ATTEMPTS: Joi.number().integer().min(1).max(100).default(14),
  WEBHOOK_RETRY_BASE_MS: Joi.number().integer().min(10).default(60000),
  WEBHOOK_RETRY_MAX_MS: Joi.number().integer().min(10).default(21600000),
  WEBHOOK_ALLOWED_CIDRS: cidrList.default([]),
  WEBHOOK_SWEEP_MS: Joi.number().integer().min(100).default(60000),
  WEBHOOK_OVERDUE_MS: Joi.number().integer().min(100).default(300000),
  WEBHOOK_RETENTION_DAYS: Joi.number().integer().min(1).max(3650).default(30),
}).unknown(true);

/** The placeholder of .env.example and anything like it: never a production admin token. */
const PLACEHOLDER = /change[-_ ]?me|placeholder|example/i;
/** Shortest admin token production accepts (the admin API moves money and points). */
export const MIN_PRODUCTION_ADMIN_TOKEN = 32;

/** Validates an environment; throws an Error naming the bad variable. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const { value, error } = schema.validate(env, { abortEarly: true, convert: true });
  if (error) {
    const variable = error.details[0]?.path.join('.') ?? 'environment';
    throw new Error(`Invalid configuration: ${variable}: ${error.message}`);
  }
  if (!value.WORKER_OPERATIONS && value.WEBHOOK_CONCURRENCY === 0)
    throw new Error(
      'Invalid configuration: WORKER_OPERATIONS: a worker without operations delivers webhooks only: set WEBHOOK_CONCURRENCY above 0',
    );
  if (value.NODE_ENV === 'production' && value.ADMIN_TOKEN !== undefined) {
    const token: string = value.ADMIN_TOKEN;
    if (token.length < MIN_PRODUCTION_ADMIN_TOKEN || PLACEHOLDER.test(token))
      throw new Error(
        `Invalid configuration: ADMIN_TOKEN: in production it must be a random value of at least ${MIN_PRODUCTION_ADMIN_TOKEN} characters, not a placeholder (e.g. openssl rand -hex 32); unset it to turn the admin API off`,
      );
  }
  return Object.freeze({
    nodeEnv: value.NODE_ENV,
    port: value.PORT,
    workerPort: value.WORKER_PORT,
    mongodbUri: value.MONGODB_URI,
    redisUrl: value.REDIS_URL,
    adminToken: value.ADMIN_TOKEN,
    metricsToken: value.METRICS_TOKEN,
    logLevel: value.LOG_LEVEL,
    logPretty: value.LOG_PRETTY ?? value.NODE_ENV === 'development',
    bodyLimit: value.BODY_LIMIT,
    queuePrefix: value.QUEUE_PREFIX,
    queuePartitions: value.QUEUE_PARTITIONS,
    queuePartitionsPrevious: value.QUEUE_PARTITIONS_PREVIOUS,
    jobWaitTimeoutMs: value.JOB_WAIT_TIMEOUT_MS,
    jobLockMs: value.JOB_LOCK_MS,
    stalledIntervalMs: value.STALLED_INTERVAL_MS,
    workerHeartbeatMs: value.WORKER_HEARTBEAT_MS,
    keepFinishedSeconds: value.KEEP_FINISHED_SECONDS,
    keepFinishedJobs: value.KEEP_FINISHED_JOBS,
    queueEventsMaxLen: value.QUEUE_EVENTS_MAX_LEN,
    jobRetryBudgetMs: value.JOB_RETRY_BUDGET_MS,
    requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
    idempotencyTtlSeconds: value.IDEMPOTENCY_TTL_SECONDS,
    cacheCheckMs: value.CACHE_CHECK_MS,
    webhookConcurrency: value.WEBHOOK_CONCURRENCY,
    workerOperations: value.WORKER_OPERATIONS,
    webhookTimeoutMs: value.WEBHOOK_TIMEOUT_MS,
    webhookMaxAttempts: value.WEBHOOK_MAX_ATTEMPTS,
    webhookRetryBaseMs: value.WEBHOOK_RETRY_BASE_MS,
    webhookRetryMaxMs: value.WEBHOOK_RETRY_MAX_MS,
    webhookAllowedCidrs: Object.freeze([...value.WEBHOOK_ALLOWED_CIDRS]),
    webhookSweepMs: value.WEBHOOK_SWEEP_MS,
    webhookOverdueMs: value.WEBHOOK_OVERDUE_MS,
    webhookRetentionDays: value.WEBHOOK_RETENTION_DAYS,
  });
}

/** Loads the process configuration or exits with the reason (start-up only). */
export function loadConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  try {
    return parseConfig({ ...process.env, ...overrides });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
