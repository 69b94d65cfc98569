/**
 * One chaos scenario's world: a private Redis, a database of its own (a private test database, or
 * its own database name on the run's MONGODB_URI), an application with customers, a wallet and a
 * limited coupon, and the API and worker processes — every one of them stopped by its own pid in
 * `stop()`, whatever the test left behind.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { withDbName } from '../../../scripts/embedded-servers.js';
import { connectDatabase, type Database } from '../../../shared/data/db.js';
import type { Budget, Campaign } from '../../../shared/domain/types.js';
import { jobIdOf } from '../../../shared/queue/gateway.js';
import { partitionQueueName } from '../../../shared/queue/names.js';
import { createServices, type Services } from '../../../shared/services.js';
import { createCampaign, createCustomers, createWallet } from '../../fixtures/records.js';
import { createTestApplication, testConfig, type TestApplication } from '../../support/context.js';
import { ensureInfra } from '../../support/hooks.js';
import { PrivateDatabase, PrivateRedis } from '../../support/private-servers.js';
import { startService, stopService, type ServiceProcess } from './processes.js';

/** Short timings so that a scenario runs in tens of seconds (README "Configuration"). */
export const CHAOS_ENV = {
  JOB_WAIT_TIMEOUT_MS: '3000',
  JOB_LOCK_MS: '5000',
  STALLED_INTERVAL_MS: '2000',
  QUEUE_PARTITIONS: '4',
  CACHE_CHECK_MS: '1000',
} as const;

export const COUPON_CODE = 'CHAOS';
export const WALLET_ID = 'loyalty';

export interface ScenarioOptions {
  /** Short name, used in tags, database and queue names (`redis-kill`). */
  name: string;
  /** A private test database (tools/testdb) instead of a database name on MONGODB_URI. */
  privateDatabase?: boolean;
  customers?: number;
  /** The coupon's total redemption limit. */
  limit: number;
  /** The coupon's money budget (shared/domain/budget.ts); absent: none. */
  budget?: Budget;
}

export class Scenario {
  readonly processes: ServiceProcess[] = [];
  services!: Services;
  app!: TestApplication;
  sourceIds!: string[];
  customerIds = new Map<string, string>();
  walletDbId!: string;
  campaign!: Campaign;
  readonly env: NodeJS.ProcessEnv;
  private db: Database | undefined;
  private apiCount = 0;
  private workerCount = 0;

  private constructor(
    public opts: ScenarioOptions,
    readonly dir: string,
    readonly redis: PrivateRedis,
    readonly database: PrivateDatabase | undefined,
    readonly mongodbUri: string,
  ) {
    this.env = { ...CHAOS_ENV, MONGODB_URI: mongodbUri, REDIS_URL: redis.url, QUEUE_PREFIX: `chaos-${opts.name}` };
  }

  static async start(opts: ScenarioOptions): Promise<Scenario> {
    const dir = join(tmpdir(), `chaos-${opts.name}-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let redis: PrivateRedis | undefined;
    let database: PrivateDatabase | undefined;
    try {
      redis = await PrivateRedis.start(join(dir, 'redis'));
      if (opts.privateDatabase) {
        // Directly under the temp dir: PostgreSQL runs as `postgres`, who must traverse the path.
        database = await PrivateDatabase.start(join(tmpdir(), `chaos-db-${process.pid}`));
      } else {
        await ensureInfra();
      }
      const uri = database
        ? withDbName(database.uri, 'coupons_chaos')
        : withDbName(process.env.MONGODB_URI!, `coupons_chaos_${opts.name.replace(/-/g, '_')}_${process.pid}`);
      const scenario = new Scenario(opts, dir, redis, database, uri);
      await scenario.seed();
      return scenario;
    } catch (err) {
      await database?.stop().catch(() => undefined);
      await redis?.stop().catch(() => undefined);
      throw err;
    }
  }

  /** The application, its customers, a wallet and the limited coupon (indexes created here, once). */
  private async seed(): Promise<void> {
    this.db = await connectDatabase(this.mongodbUri);
    this.services = createServices(testConfig({ ...this.env }), this.db);
    await this.reseed();
  }

  /**
   * A new application with its own customers, wallet and coupon: the next run of a burst on the
   * same processes starts from a clean slate (its audit sees only its own records).
   */
  async reseed(changes: Partial<Pick<ScenarioOptions, 'name' | 'limit'>> = {}): Promise<void> {
    this.opts = { ...this.opts, ...changes };
    this.customerIds = new Map();
    this.app = await createTestApplication(this.services);
    this.sourceIds = Array.from({ length: this.opts.customers ?? 24 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    const customers = await createCustomers(this.services, this.app.id, this.sourceIds);
    for (const c of customers) this.customerIds.set(c.sourceId, c.id);
    this.walletDbId = (await createWallet(this.services, this.app.id, WALLET_ID)).id;
    this.campaign = await createCampaign(this.services, this.app.id, {
      code: COUPON_CODE,
      limits: { total: this.opts.limit },
      ...(this.opts.budget ? { budget: this.opts.budget } : {}),
    });
  }

  async startApi(env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const api = await startService('api', `api-${++this.apiCount}`, this.dir, { ...this.env, ...env });
    this.processes.push(api);
    return api;
  }

  async startWorker(env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const worker = await startService('worker', `worker-${++this.workerCount}`, this.dir, { ...this.env, ...env });
    this.processes.push(worker);
    return worker;
  }

  /** Log lines of the scenario's processes whose message is `msg` (pino JSON lines). */
  logged(msg: string): number {
    let n = 0;
    for (const p of this.processes) {
      const file = join(this.dir, `${p.name}.log`);
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) if (line.includes(`"msg":${JSON.stringify(msg)}`)) n++;
    }
    return n;
  }

  /** Queued or running jobs left on the partitions, and jobs that failed. */
  async queueCounts(): Promise<{ unfinished: number; active: number; failed: number }> {
    const connection = new Redis(this.redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
    await connection.connect();
    try {
      let unfinished = 0;
      let active = 0;
      let failed = 0;
      for (let p = 0; p < Number(CHAOS_ENV.QUEUE_PARTITIONS); p++) {
        const queue = new Queue(partitionQueueName(p), { connection, prefix: this.env.QUEUE_PREFIX });
        const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed');
        unfinished += counts.wait! + counts.active! + counts.delayed! + counts.prioritized! + counts['waiting-children']!;
        active += counts.active!;
        failed += counts.failed!;
        await queue.close();
      }
      return { unfinished, active, failed };
    } finally {
      connection.disconnect();
    }
  }

  /**
   * For a post-mortem: each partition queue's counts, active list and global concurrency, and the
   * state of the jobs of `operationKeys` (their ids derive from the key: shared/queue/gateway.ts).
   */
  async queueDump(operationKeys: string[]): Promise<unknown> {
    const connection = new Redis(this.redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
    await connection.connect();
    try {
      const partitions = [];
      for (let p = 0; p < Number(CHAOS_ENV.QUEUE_PARTITIONS); p++) {
        const queue = new Queue(partitionQueueName(p), { connection, prefix: this.env.QUEUE_PREFIX });
        partitions.push({
          queue: queue.name,
          counts: await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'),
          active: await connection.lrange(queue.keys.active!, 0, -1),
          wait: await connection.lrange(queue.keys.wait!, 0, 20),
          stalled: await connection.smembers(queue.keys.stalled!),
          meta: await connection.hgetall(queue.keys.meta!),
          jobs: await Promise.all(
            operationKeys.map(async (key) => {
              const id = jobIdOf(this.app.id, key);
              const job = await Job.fromId(queue, id);
              return job
                ? {
                    key,
                    id,
                    state: await job.getState(),
                    ...job.toJSON(),
                    data: undefined,
                    lock: await connection.get(`${queue.toKey(id)}:lock`),
                  }
                : null;
            }),
          ).then((jobs) => jobs.filter((j) => j !== null)),
        });
        await queue.close();
      }
      return partitions;
    } finally {
      connection.disconnect();
    }
  }

  /** Waits until no job is queued or running (jobs of requests nobody retries run too), up to `ms`. */
  async drained(ms: number): Promise<{ unfinished: number; active: number; failed: number }> {
    const until = Date.now() + ms;
    for (;;) {
      const counts = await this.queueCounts();
      if (counts.unfinished === 0 || Date.now() > until) return counts;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Stops every process of the scenario by its pid (Redis resumed first if paused), then the stores. */
  async stop(keepLogs: boolean): Promise<void> {
    await Promise.all(this.processes.map((p) => stopService(p).catch(() => undefined)));
    const keep = keepLogs || !!process.env.CHAOS_KEEP;
    // A database name of its own on the run's server: dropped unless kept for a post-mortem.
    if (!this.database && !keep) await this.db?.connection.dropDatabase().catch(() => undefined);
    await this.db?.close().catch(() => undefined);
    await this.redis.stop().catch(() => undefined);
    // A kept scenario keeps its database's own logs too (FerretDB's, PostgreSQL's) for the post-mortem.
    if (this.database && keep) this.database.copyLogs(this.dir);
    if (this.database) await this.database.stop().catch(() => undefined);
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
