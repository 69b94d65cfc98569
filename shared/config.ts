/**
 * The one place that reads `process.env`, and the one declaration of every setting: its
 * variable, its validation and default (joi), its documentation — from which README.md's table
 * and `.env.example` are generated (`npm run config:docs`; test/unit/config.spec.ts fails when
 * they differ) — and the typed key the code reads. Validated once at start-up; an invalid value
 * stops the process with a message naming the variable.
 */
import { BlockList } from 'node:net';
import Joi from 'joi';
import { clusterSeeds } from './redis-url.js';

/** One setting: its variable, its validation (with its default), and how README and `.env.example` describe it. */
interface Setting<T> {
  env: string;
  schema: Joi.Schema;
  /** What it does, for operators: README's table and the comment in `.env.example`. */
  doc: string;
  /** README's "default" column when the schema's default is not the whole story (`dev only`, `—`). */
  shown?: string;
  /** Its line in `.env.example`: the value (default: the schema's default), or commented out. */
  example?: { value?: string; commented?: boolean };
  section: 'service' | 'webhooks';
  /** The typed value from the validated environment (default: the variable's value as joi converted it). */
  read?: (value: Record<string, unknown>) => T;
}

const setting = <T>(s: Setting<T>): Setting<T> => s;

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

const ms = (min: number, dflt: number) => Joi.number().integer().min(min).default(dflt);

/**
 * The points where a worker kills itself for a test (`WORKER_FAILPOINT`; never in production):
 * after a job is marked completed (worker/worker-pool.ts), between the steps of a stacked redeem
 * and revert, of an order report, and between a redeem or revert and the order's earning
 * (shared/usecases/failpoint.ts).
 */
export const WORKER_FAILPOINTS = [
  'after-complete',
  'stack-after-reserve',
  'stack-after-commit',
  'stack-after-cycles',
  'stack-revert-after-reserve',
  'stack-revert-after-commit',
  'stack-revert-after-cycles',
  'order-after-void',
  'order-after-post',
  'gift-card-after-entry',
  'gift-card-after-move',
  'ledger-after-entry',
  'ledger-after-move',
  'return-after-record',
  'redeem-before-earning',
  'revert-before-taking-back',
] as const;
export type WorkerFailpoint = (typeof WORKER_FAILPOINTS)[number];

/**
 * The worker's database socket timeout when DB_SOCKET_TIMEOUT_MS is unset: a third of the job's
 * retry budget, so a job that meets a dead connection gives it up with two thirds of its budget
 * left for the retry over a fresh one (60 s budget: 20 s).
 */
export const defaultSocketTimeoutMs = (jobRetryBudgetMs: number) => Math.max(1000, Math.floor(jobRetryBudgetMs / 3));

/** Every setting, in the order README and `.env.example` list them. */
export const SETTINGS = {
  nodeEnv: setting<'development' | 'production' | 'test'>({
    env: 'NODE_ENV',
    schema: Joi.string().valid('development', 'production', 'test').default('production'),
    doc: '`development` / `production` / `test`; `development` turns on pretty logs',
    section: 'service',
  }),
  port: setting<number>({ env: 'PORT', schema: Joi.number().port().default(3000), doc: 'API port', section: 'service' }),
  workerPort: setting<number>({
    env: 'WORKER_PORT',
    schema: Joi.number().port().default(9464),
    doc: "port of the worker's `/healthz`, `/readyz` and `/metrics`",
    section: 'service',
  }),
  mongodbUri: setting<string | undefined>({
    env: 'MONGODB_URI',
    schema: Joi.string().pattern(/^mongodb(\+srv)?:\/\/\S+$/, 'mongodb:// URI'),
    doc: 'MongoDB connection string (`mongodb://` or `mongodb+srv://`); required outside dev/test, where unset starts embedded servers. Compose sets it',
    shown: '—',
    example: { value: 'mongodb://127.0.0.1:27017/coupons', commented: true },
    section: 'service',
  }),
  redisUrl: setting<string | undefined>({
    env: 'REDIS_URL',
    schema: Joi.string()
      .pattern(/^rediss?(\+cluster)?:\/\/\S+$/, 'redis:// or redis+cluster:// URI')
      .custom((v: string) => {
        clusterSeeds(v); // throws on a cluster URL it cannot read
        return v;
      })
      .messages({ 'any.custom': '{{#label}} is not a valid cluster URL: {{#error.message}}' }),
    doc: 'Redis connection string (`redis://`, `rediss://`), or `redis+cluster://host:port,host:port` for the seed nodes of a Redis Cluster (docs/scaling.md); required outside dev/test. Compose sets it',
    shown: '—',
    example: { value: 'redis://127.0.0.1:6379', commented: true },
    section: 'service',
  }),
  adminToken: setting<string | undefined>({
    env: 'ADMIN_TOKEN',
    schema: Joi.string().min(16),
    doc: 'bearer token of the admin API (`/admin`) and of Bull Board (`/admin/queues`; browsers: any user name, this token as password); unset turns both off (404). Production refuses a placeholder or fewer than 32 characters (`openssl rand -hex 32`)',
    shown: '—',
    example: { value: 'change-me-to-a-long-random-token' },
    section: 'service',
  }),
  passwordHashCost: setting<number>({
    env: 'PASSWORD_HASH_COST',
    schema: Joi.number().integer().min(10).max(20).default(14),
    doc: "operators' passwords: scrypt's cost as a power of two (N = 2^cost, r 8, p 1; 14 takes tens of ms a check). Raising it slows guessing; a password hashed at another cost is hashed again at its owner's next sign-in",
    section: 'service',
  }),
  sessionMaxAgeMs: setting<number>({
    env: 'SESSION_MAX_AGE_MS',
    schema: ms(1000, 12 * 3600_000),
    doc: "how long an operator's browser session lasts at most (docs/admin-api.md#sessions)",
    section: 'service',
  }),
  sessionIdleMs: setting<number>({
    env: 'SESSION_IDLE_MS',
    schema: ms(1000, 2 * 3600_000),
    doc: 'a browser session unused this long ends',
    section: 'service',
  }),
  loginFailuresPerAccount: setting<number>({
    env: 'LOGIN_FAILURES_PER_ACCOUNT',
    schema: Joi.number().integer().min(1).default(5),
    doc: 'failed sign-ins to one e-mail (known or not) within LOGIN_LOCK_SECONDS before it is refused (429) for LOGIN_LOCK_SECONDS; counted in Redis, across replicas',
    section: 'service',
  }),
  loginFailuresPerAddress: setting<number>({
    env: 'LOGIN_FAILURES_PER_ADDRESS',
    schema: Joi.number().integer().min(1).default(50),
    doc: 'failed sign-ins from one client address within LOGIN_LOCK_SECONDS before it is refused (429) for LOGIN_LOCK_SECONDS',
    section: 'service',
  }),
  loginLockSeconds: setting<number>({
    env: 'LOGIN_LOCK_SECONDS',
    schema: Joi.number().integer().min(1).default(900),
    doc: 'the window of the sign-in failure counts, and how long a sign-in stays refused once one is reached',
    section: 'service',
  }),
  trustProxy: setting<string | undefined>({
    env: 'TRUST_PROXY',
    schema: Joi.string().max(500),
    doc: "the proxies in front of the API whose X-Forwarded-For / X-Forwarded-Proto are believed (Express's `trust proxy`: `loopback`, a CIDR list, or a hop count): the client address sign-in throttling counts and whether a session cookie is `Secure`; unset: none",
    shown: '—',
    example: { value: '', commented: true },
    section: 'service',
  }),
  auditFailpoint: setting<string | undefined>({
    env: 'AUDIT_FAILPOINT',
    schema: Joi.string().valid('before-change', 'after-change'),
    doc: 'tests only, refused in production: the process SIGKILLs itself at this point of an audited admin change (after its pending entry, or after the change), to prove that a change and its audit entry are visible together or not at all',
    shown: '—',
    example: { value: '', commented: true },
    section: 'service',
  }),
  workerFailpoint: setting<WorkerFailpoint | undefined>({
    env: 'WORKER_FAILPOINT',
    schema: Joi.string().valid(...WORKER_FAILPOINTS),
    doc: "tests only, refused in production: a worker SIGKILLs itself at this point — `after-complete`: right after its first job is marked completed, to prove that the API still gets the outcome at once (docs/reliability.md); `stack-after-reserve`, `stack-after-commit`, `stack-after-cycles`: in a redeem of several coupons, once every counter is taken, once the stack record is committed, once the cycles are written; `stack-revert-after-reserve`, `stack-revert-after-commit`, `stack-revert-after-cycles`: the same steps of its revert — to prove that such an order ends with all its coupons or none (docs/stacking.md); `gift-card-after-entry`, `gift-card-after-move`: in a gift card's spend or refund at checkout, once its ledger entry is written, once the card's balance moved — to prove that a re-run applies it once (docs/gift-cards.md); `ledger-after-entry`, `ledger-after-move`: in a wallet credit or debit written on what the worker remembered of the balance (no read), once its entry is written, once the balance moved — to prove that another worker's re-run applies it once (docs/wallets.md)",
    shown: '—',
    example: { value: '', commented: true },
    section: 'service',
  }),
  testClockFile: setting<string | undefined>({
    env: 'TEST_CLOCK_FILE',
    schema: Joi.string().min(1),
    doc: 'tests only, refused in production: a file holding a number of milliseconds added to the clock the service decides by (expiry and pending points, validity, limits periods), so tests can move time; read at every reading of the clock (docs/wallets.md)',
    shown: '—',
    example: { value: '', commented: true },
    section: 'service',
  }),
  metricsToken: setting<string | undefined>({
    env: 'METRICS_TOKEN',
    schema: Joi.string().min(16),
    doc: "bearer token for `/metrics` (at least 16 characters); unset: the API's `/metrics` is off (404), the worker's (internal port) open",
    shown: '—',
    example: { value: '', commented: true },
    section: 'service',
  }),
  logLevel: setting<'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'>({
    env: 'LOG_LEVEL',
    schema: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
    doc: 'pino level: `fatal` `error` `warn` `info` `debug` `trace` `silent`',
    section: 'service',
  }),
  logPretty: setting<boolean>({
    env: 'LOG_PRETTY',
    schema: Joi.boolean(),
    doc: 'human-readable logs instead of JSON lines (needs the dev dependency pino-pretty; not in the image)',
    shown: 'dev only',
    example: { value: 'false' },
    section: 'service',
    read: (v) => (v.LOG_PRETTY as boolean | undefined) ?? v.NODE_ENV === 'development',
  }),
  bodyLimit: setting<string>({
    env: 'BODY_LIMIT',
    schema: Joi.string()
      .pattern(/^\d+(b|kb|mb)$/i)
      .default('1mb'),
    doc: 'largest JSON body (`b`, `kb` or `mb`); larger ones get 413',
    section: 'service',
  }),
  queuePrefix: setting<string>({
    env: 'QUEUE_PREFIX',
    schema: Joi.string()
      .pattern(/^[A-Za-z0-9_-]+$/)
      .default('coupons'),
    doc: 'prefix of every BullMQ key in Redis',
    section: 'service',
  }),
  queuePartitions: setting<number>({
    env: 'QUEUE_PARTITIONS',
    schema: Joi.number().integer().min(1).max(1024).default(64),
    doc: 'per-customer partition queues: how many operations run at once. Change it only with the procedure of docs/scaling.md ("Changing the partition count")',
    section: 'service',
  }),
  queuePartitionsPrevious: setting<number | undefined>({
    env: 'QUEUE_PARTITIONS_PREVIOUS',
    schema: Joi.number().integer().min(1).max(1024),
    doc: 'workers only, while the partition count changes: the previous count, whose queues they also drain',
    shown: '—',
    example: { value: '', commented: true },
    section: 'service',
  }),
  jobWaitTimeoutMs: setting<number>({
    env: 'JOB_WAIT_TIMEOUT_MS',
    schema: ms(100, 10_000),
    doc: 'how long the API waits for a queued redeem, revert or wallet job before answering 503 (docs/reliability.md)',
    section: 'service',
  }),
  jobLockMs: setting<number>({
    env: 'JOB_LOCK_MS',
    schema: ms(1000, 15_000),
    doc: "lock of a running job: a dead worker's job is re-queued after about this plus the stall check",
    section: 'service',
  }),
  stalledIntervalMs: setting<number>({
    env: 'STALLED_INTERVAL_MS',
    schema: ms(500, 5000),
    doc: 'how often workers look for stalled jobs',
    section: 'service',
  }),
  workerHeartbeatMs: setting<number>({
    env: 'WORKER_HEARTBEAT_MS',
    schema: Joi.alternatives(Joi.number().valid(0), Joi.number().integer().min(100).max(60_000)).default(0),
    doc: 'workers only, opt-in: above 0, each partition is consumed by one live worker, chosen through heartbeats at this interval (a worker silent for 3 beats loses its partitions); 0: every worker consumes every partition',
    section: 'service',
  }),
  keepFinishedSeconds: setting<number>({
    env: 'KEEP_FINISHED_SECONDS',
    schema: Joi.number().integer().min(60).default(3600),
    doc: 'how long finished jobs stay in Redis (Bull Board, late retries); failed ones 24 times longer',
    section: 'service',
  }),
  keepFinishedJobs: setting<number>({
    env: 'KEEP_FINISHED_JOBS',
    schema: Joi.number().integer().min(10).max(100_000).default(200),
    doc: 'at most this many finished jobs kept per partition queue (failed: 10 times more): bounds Redis memory',
    section: 'service',
  }),
  queueEventsMaxLen: setting<number>({
    env: 'QUEUE_EVENTS_MAX_LEN',
    schema: Joi.number().integer().min(100).default(2000),
    doc: "approximate length of each partition queue's BullMQ event stream (Bull Board, tooling)",
    section: 'service',
  }),
  jobRetryBudgetMs: setting<number>({
    env: 'JOB_RETRY_BUDGET_MS',
    schema: ms(1000, 60_000),
    doc: 'how long a worker retries a job in place through database errors before failing it',
    section: 'service',
  }),
  dbSocketTimeoutMs: setting<number>({
    env: 'DB_SOCKET_TIMEOUT_MS',
    schema: Joi.number().integer().min(1000),
    doc: "how long the worker's database connections wait for the next byte of a reply before the connection is given up and the command retried on another (a connection that died without a FIN or reset). At most half of `JOB_RETRY_BUDGET_MS`, so that a job has room to retry; the API and the CLI keep 60 s for long admin reads (docs/reliability.md)",
    shown: '`JOB_RETRY_BUDGET_MS` / 3, at least 1000',
    example: { value: '20000', commented: true },
    section: 'service',
    read: (v) => (v.DB_SOCKET_TIMEOUT_MS as number | undefined) ?? defaultSocketTimeoutMs(v.JOB_RETRY_BUDGET_MS as number),
  }),
  shedLatenessMs: setting<number>({
    env: 'SHED_LATENESS_MS',
    schema: ms(0, 5000),
    doc: "while the API's event loop is later than this (a process starved of CPU), client requests are answered at once with the dependency 503, nothing done, instead of being answered at their deadline after their database work; 0 turns it off (docs/reliability.md)",
    section: 'service',
  }),
  requestTimeoutMs: setting<number>({
    env: 'REQUEST_TIMEOUT_MS',
    schema: ms(1000, 10_000),
    doc: 'time to receive a whole request (headers and body); slower or truncated ones get 408',
    section: 'service',
  }),
  keepAliveTimeoutMs: setting<number>({
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    schema: Joi.number().integer().min(1000).max(600_000).default(65_000),
    doc: 'how long the API keeps an idle keep-alive connection open; clients are told half of it (`Keep-Alive: timeout=`), so that they close first even when slow. Keep it above the idle timeout of a load balancer or client pool in front (60 s for most)',
    section: 'service',
  }),
  idempotencyTtlSeconds: setting<number>({
    env: 'IDEMPOTENCY_TTL_SECONDS',
    schema: Joi.number().integer().min(86_400).default(86_400),
    doc: 'how long an `Idempotency-Key` is kept (at least 24 h: docs/decisions.md#24)',
    section: 'service',
  }),
  rateLimitRequests: setting<number>({
    env: 'RATE_LIMIT_REQUESTS',
    schema: Joi.number().integer().min(0).max(1_000_000).default(0),
    doc: 'requests each application may send to the client routes per window, unless the application sets its own `rate_limit` (admin API); 0 = no limit (docs/rate-limits.md)',
    section: 'service',
  }),
  rateLimitWindowSeconds: setting<number>({
    env: 'RATE_LIMIT_WINDOW_SECONDS',
    schema: Joi.number().integer().min(1).max(3600).default(1),
    doc: 'the window of RATE_LIMIT_REQUESTS, in seconds',
    section: 'service',
  }),
  cacheCheckMs: setting<number>({
    env: 'CACHE_CHECK_MS',
    schema: Joi.number().integer().min(50).max(60_000).default(1000),
    doc: 'how often in-process caches re-check credentials and campaigns: the fallback, since admin API changes reach every process at once (docs/admin-api.md)',
    section: 'service',
  }),
  resultsCounters: setting<boolean>({
    env: 'RESULTS_COUNTERS',
    schema: Joi.boolean().default(true),
    doc: "false: this worker's redeems are not counted in campaign results (docs/results.md), for a redeem's last few percent of CPU; a revert still gives back what its redeem counted",
    section: 'service',
  }),
  resultsTallyMs: setting<number>({
    env: 'RESULTS_TALLY_MS',
    schema: Joi.number().integer().min(50).max(60_000).default(2000),
    doc: "how often each process writes the refusals and first-time customers it counted for campaign results (docs/results.md); a process killed loses at most this long's",
    section: 'service',
  }),
  cartRecordMs: setting<number>({
    env: 'CART_RECORD_MS',
    schema: Joi.number().integer().min(50).max(60_000).default(1000),
    doc: 'how often each process appends the carts it saw for the applications that record them (docs/results.md "Recorded carts"); a process killed loses at most this long\'s',
    section: 'service',
  }),
  backtestConcurrency: setting<number>({
    env: 'BACKTEST_CONCURRENCY',
    schema: Joi.number().integer().min(0).max(8).default(1),
    doc: 'backtests a worker runs at once (docs/results.md "Backtests"); 0: this worker runs none (run them on a replica of their own)',
    section: 'service',
  }),
  webhookConcurrency: setting<number>({
    env: 'WEBHOOK_CONCURRENCY',
    schema: Joi.number().integer().min(0).max(500).default(10),
    doc: 'webhook deliveries in flight per worker; 0: this worker delivers none (it still records events)',
    section: 'webhooks',
  }),
  workerOperations: setting<boolean>({
    env: 'WORKER_OPERATIONS',
    schema: Joi.boolean().default(true),
    doc: 'false: a dedicated delivery worker (webhooks only, no partition queue)',
    section: 'webhooks',
  }),
  webhookTimeoutMs: setting<number>({
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: Joi.number().integer().min(100).max(120_000).default(10_000),
    doc: 'budget of one webhook POST (connect, send, status line); no answer in time is retried',
    section: 'webhooks',
  }),
  webhookMaxAttempts: setting<number>({
    env: 'WEBHOOK_MAX_ATTEMPTS',
    schema: Joi.number().integer().min(1).max(100).default(14),
    doc: 'attempts of one delivery before it is dead-lettered (with the delays below: over 29 h in all; a worker warns when a schedule covers less than 24 h)',
    section: 'webhooks',
  }),
  webhookRetryBaseMs: setting<number>({
    env: 'WEBHOOK_RETRY_BASE_MS',
    schema: ms(10, 60_000),
    doc: 'first retry delay, doubled per failed attempt, ±10 % jitter',
    section: 'webhooks',
  }),
  webhookRetryMaxMs: setting<number>({
    env: 'WEBHOOK_RETRY_MAX_MS',
    schema: ms(10, 21_600_000),
    doc: 'longest retry delay (6 h)',
    section: 'webhooks',
  }),
  webhookAllowedCidrs: setting<readonly string[]>({
    env: 'WEBHOOK_ALLOWED_CIDRS',
    schema: cidrList.default([]),
    doc: 'comma-separated reserved ranges (private, loopback, link-local, …) webhooks may reach anyway, e.g. `10.20.0.0/16` or `127.0.0.0/8` for a receiver on this machine',
    shown: '—',
    example: { value: '' },
    section: 'webhooks',
    read: (v) => Object.freeze([...(v.WEBHOOK_ALLOWED_CIDRS as string[])]),
  }),
  webhookSweepMs: setting<number>({
    env: 'WEBHOOK_SWEEP_MS',
    schema: ms(100, 60_000),
    doc: 'how often each worker re-queues deliveries a crash left unqueued',
    section: 'webhooks',
  }),
  expirySweepMs: setting<number>({
    env: 'EXPIRY_SWEEP_MS',
    schema: ms(50, 5000).max(600_000),
    doc: 'how often each worker looks for wallet balances with points due to expire or to become available, and queues their settle jobs (docs/wallets.md); operations settle what is due first in any case',
    section: 'service',
  }),
  webhookOverdueMs: setting<number>({
    env: 'WEBHOOK_OVERDUE_MS',
    schema: ms(100, 300_000),
    doc: 'how late a lost delivery job must be before the sweep re-queues it',
    section: 'webhooks',
  }),
  webhookRetentionDays: setting<number>({
    env: 'WEBHOOK_RETENTION_DAYS',
    schema: Joi.number().integer().min(1).max(3650).default(30),
    doc: 'days events and finished deliveries are kept (redelivery needs them)',
    section: 'webhooks',
  }),
};

type Settings = typeof SETTINGS;
/** The validated configuration: one read-only key per setting of {@link SETTINGS}. */
export type Config = { readonly [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never };

const schema = Joi.object(Object.fromEntries(Object.values(SETTINGS).map((s) => [s.env, s.schema]))).unknown(true);

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
  if (value.DB_SOCKET_TIMEOUT_MS !== undefined && value.DB_SOCKET_TIMEOUT_MS * 2 > value.JOB_RETRY_BUDGET_MS)
    throw new Error(
      `Invalid configuration: DB_SOCKET_TIMEOUT_MS: at most half of JOB_RETRY_BUDGET_MS (${value.JOB_RETRY_BUDGET_MS}), so that a job that meets a dead connection has room to retry`,
    );
  for (const failpoint of ['AUDIT_FAILPOINT', 'WORKER_FAILPOINT', 'TEST_CLOCK_FILE'] as const)
    if (value.NODE_ENV === 'production' && value[failpoint] !== undefined)
      throw new Error(
        `Invalid configuration: ${failpoint}: ${failpoint === 'TEST_CLOCK_FILE' ? 'a test clock' : 'a fault injection'} for tests; never set in production`,
      );
  const config = Object.fromEntries(
    Object.entries(SETTINGS).map(([key, s]) => [key, (s as Setting<unknown>).read ? (s as Setting<unknown>).read!(value) : value[s.env]]),
  );
  return Object.freeze(config) as Config;
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

/** A setting's default as joi gives it (undefined: none). */
const defaultOf = (s: Setting<unknown>): unknown => (s.schema.describe().flags as { default?: unknown } | undefined)?.default;

/** README.md's configuration table (between its `settings` markers), from {@link SETTINGS}. */
export function settingsTable(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown>) => {
    const dflt = defaultOf(s);
    const shown = s.shown ?? (Array.isArray(dflt) ? '—' : String(dflt));
    return `| \`${s.env}\` | ${shown} | ${s.doc} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `.env.example`, from {@link SETTINGS}: every variable with its default, or commented out. */
export function envExample(): string {
  const wrap = (text: string) => {
    const lines: string[] = [];
    let line = '#';
    for (const word of text.split(' ')) {
      if (line.length + word.length + 1 > 100) {
        lines.push(line);
        line = '#';
      }
      line += ` ${word}`;
    }
    return [...lines, line].join('\n');
  };
  const out = [
    '# Generated from shared/config.ts by `npm run config:docs` (test/unit/config.spec.ts checks it): edit there.',
    '# Copy to .env for `docker compose up` (or export the variables for `npm start`). Every variable is',
    '# read and validated once at start-up; the values shown are the defaults. docker-compose.yml sets',
    '# MONGODB_URI, REDIS_URL, PORT and WORKER_PORT itself.',
    '',
    '# --- docker compose only ---',
    '# Host port published for the API (the container always listens on 3000).',
    'API_PORT=3000',
  ];
  let section = '';
  for (const s of Object.values(SETTINGS) as Setting<unknown>[]) {
    if (s.section !== section) {
      section = s.section;
      out.push('', `# --- ${section === 'service' ? 'the service' : 'webhooks (docs/events.md)'} ---`);
    }
    const dflt = defaultOf(s);
    const value = s.example?.value ?? (Array.isArray(dflt) ? '' : String(dflt ?? ''));
    out.push(wrap(s.doc.replace(/`/g, '')), `${s.example?.commented ? '# ' : ''}${s.env}=${value}`);
  }
  return `${out.join('\n')}\n`;
}
