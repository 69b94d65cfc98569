/**
 * Replies: how a worker tells the API process that queued an operation how it ended. Each API
 * process reads a stream of its own (`<prefix>:replies:{<api id>}`), named in every job it queues
 * (`replyTo`); a worker appends the job's outcome there once the job is finished. So an API reads
 * only its own operations' outcomes — one blocking read brings many — whatever the number of API
 * replicas and partitions (BullMQ's queue event streams carry every event of every job, and each
 * API would read them all).
 *
 * A reply can be missed (the stream lost with the Redis node holding it, a reply a worker gave up
 * on while that node failed over, a job queued by another API): the gateway then reads the finished
 * job (shared/queue/gateway.ts). The stream is capped, expires unless its API keeps it alive, and a
 * worker never creates a stream that is gone (`NOMKSTREAM`): a dead API's stream disappears, and a
 * live API's stream lost with its node stays lost until the API makes it again — after a failed
 * read (its node went away), when the gateway finds a reply overdue ({@link ReplyReader.ensureStream}),
 * at each renewal.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { redisConnection } from './redis.js';

/** The reply stream of one API process; the braces give it a Redis Cluster slot of its own. */
export const replyStreamOf = (prefix: string, apiId: string): string => `${prefix}:replies:{${apiId}}`;

/** About as many replies as a stream keeps (a reader takes them within milliseconds). */
const MAX_LEN = 10_000;
/** A stream outlives its API by at most this long; a live API renews it four times as often. */
const TTL_MS = 600_000;
const BLOCK_MS = 5_000;
const BATCH = 1_000;

/** What a reply says: the job's outcome (its return value as JSON), or why it failed. */
export type ReplyBody = { outcome: string } | { failed: string };

/** Worker side: appends a finished job's reply to the stream its API named (nothing if it is gone). */
export async function sendReply(redis: RedisClient, stream: string, jobId: string, body: ReplyBody): Promise<void> {
  const fields = 'outcome' in body ? ['o', body.outcome] : ['f', body.failed];
  await redis.xadd(stream, 'NOMKSTREAM', 'MAXLEN', '~', String(MAX_LEN), '*', 'j', jobId, ...fields);
}

/** API side: reads this process's reply stream and hands each reply to `onReply`. */
export class ReplyReader {
  readonly stream: string;
  /** Blocked in XREAD most of the time: the stream's upkeep goes through `commands`. */
  private readonly connection: RedisClient;
  /** The last entry read: the next read starts after it, so a reconnect misses nothing still kept. */
  private lastId = '0-0';
  private closed = false;
  private loop: Promise<void> | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private ensuring: Promise<boolean> | undefined;

  constructor(
    private readonly commands: RedisClient,
    redisUrl: string,
    prefix: string,
    private readonly onReply: (jobId: string, body: ReplyBody) => void,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {
    this.stream = replyStreamOf(prefix, randomUUID());
    this.connection = redisConnection(redisUrl);
    // After a reconnect the stream may be gone (Redis restarted without persistence): make it again.
    // A Redis Cluster says 'ready' only once it is connected as a whole, not when the node holding
    // the stream fails over: that case is the failed read's (`read`).
    this.connection.on('ready', () => void this.ensureStream());
  }

  /** Creates the stream and starts reading; resolves once replies can be written to it. */
  async start(): Promise<void> {
    await this.keepAlive();
    this.renewal = setInterval(() => void this.keepAlive().catch((err: Error) => this.onError(err)), TTL_MS / 4);
    this.renewal.unref();
    this.loop = this.read();
  }

  /**
   * Makes sure the stream exists (creating it again when it is gone); resolves false when Redis
   * could not be asked (reported to `onError`). Calls made meanwhile share the one in flight.
   */
  ensureStream(): Promise<boolean> {
    this.ensuring ??= this.keepAlive()
      .then(
        () => true,
        (err: Error) => {
          this.onError(err);
          return false;
        },
      )
      .finally(() => (this.ensuring = undefined));
    return this.ensuring;
  }

  /** Renews the stream's expiry, creating it (with a first entry nobody reads as a reply) when it is gone. */
  private async keepAlive(): Promise<void> {
    if (this.closed) return;
    if ((await this.commands.pexpire(this.stream, TTL_MS)) === 1) return;
    const id = await this.commands.xadd(this.stream, 'MAXLEN', '~', String(MAX_LEN), '*', 'open', '1');
    await this.commands.pexpire(this.stream, TTL_MS);
    // A new stream: nothing before its first entry is to be read.
    if (this.lastId === '0-0' && id) this.lastId = id;
  }

  private async read(): Promise<void> {
    // After a failed read the node holding the stream may have failed over to a replica that never
    // got it: workers' replies would be dropped (NOMKSTREAM) while the read blocks on a missing key.
    let check = false;
    while (!this.closed) {
      if (check) check = !(await this.ensureStream());
      try {
        const res = (await this.connection.xread('COUNT', BATCH, 'BLOCK', BLOCK_MS, 'STREAMS', this.stream, this.lastId)) as
          [string, [string, string[]][]][] | null;
        for (const [, entries] of res ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            const f: Record<string, string> = {};
            for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
            if (f.j === undefined) continue; // the stream's first entry
            this.onReply(f.j, f.o !== undefined ? { outcome: f.o } : { failed: f.f ?? 'failed' });
          }
        }
      } catch (err) {
        if (this.closed) return;
        this.onError(err as Error);
        check = true;
        await new Promise((r) => setTimeout(r, 200)); // Redis away: ioredis reconnects meanwhile
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.renewal);
    // Nobody will read it any more: workers' replies to it are dropped (NOMKSTREAM).
    await this.commands.del(this.stream).catch(() => undefined);
    this.connection.disconnect();
    await this.loop;
  }
}
