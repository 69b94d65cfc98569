/**
 * Configuration changes reach every process at once: the admin use case that changes what the
 * caches hold announces it on a Redis channel (shared/usecases/admin/announce.ts), and every API
 * and worker process drops what its caches hold of that application before the use case returns,
 * so before the admin API answers — a campaign created, archived or edited is what the very next
 * request sees, on every replica. The caches' re-check timer (`CACHE_CHECK_MS`) stays as the
 * fallback for changes made elsewhere (the database edited by hand) and for announcements a
 * process missed while its Redis connection was down: a process that reconnects drops everything
 * it holds.
 *
 * Ordering: Redis queues a PUBLISH's messages to the subscribers and its reply to the publisher
 * in one pass of its event loop, but writes them out in reverse (its pending-write list is
 * prepended), so the reply can reach the publisher before the messages reach the subscribers'
 * sockets, and a validate on another replica could still see an archived campaign. So the
 * announcer then sends a PING on the same connection and waits for it: Redis reads it only after
 * that pass, when every message is in its subscriber's socket. Only then does the admin API
 * answer, and only then can a client send the request that must see the change: the announcement
 * is in each process's socket before that request exists, and a process reads its sockets in the
 * order they became readable. (On a Redis Cluster the message reaches the other nodes over the
 * cluster bus: at once in practice, without that guarantee; the timer remains.)
 */
import type { Logger } from '../logger.js';
import { redisConnection, type RedisClient } from '../queue/redis.js';

/** How long an announcement may wait for Redis before the change is left to the caches' timer. */
const PUBLISH_TIMEOUT_MS = 5000;

/** Every application (a process that may have missed announcements). */
export const ALL_APPLICATIONS = '*';

export class ConfigChanges {
  private subscriber: RedisClient | undefined;
  private publisher: RedisClient | undefined;
  private readonly channel: string;

  /**
   * @param forget - drops this process's cached state of an application ({@link ALL_APPLICATIONS}: of all)
   * @param redisUrl - without it (tools that run alone) changes are only forgotten in this process
   */
  constructor(
    private readonly forget: (applicationId: string) => void,
    private readonly redisUrl: string | undefined,
    queuePrefix: string,
    private readonly logger?: Logger,
  ) {
    this.channel = `${queuePrefix}:config-changes`;
  }

  /** Subscribes: from now on this process hears every announcement. */
  async start(): Promise<void> {
    if (!this.redisUrl || this.subscriber) return;
    const subscriber = redisConnection(this.redisUrl, { maxRetriesPerRequest: null });
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, applicationId: string) => {
      if (channel === this.channel) this.forget(applicationId);
    });
    let connectedOnce = false;
    subscriber.on('ready', () => {
      // A reconnect: announcements made meanwhile were lost (ioredis subscribes again by itself).
      if (connectedOnce) this.forget(ALL_APPLICATIONS);
      connectedOnce = true;
    });
    // Start-up never hangs on it: while Redis (or a Cluster node) is not reachable the subscription
    // waits in the connection's queue and is sent once it is; the caches' timer covers the gap.
    const subscribed = subscriber.subscribe(this.channel).then(
      () => true,
      (err: Error) => (this.logger?.warn({ err: err.message }, 'configuration changes: not subscribed yet'), false),
    );
    await Promise.race([subscribed, new Promise((r) => setTimeout(r, PUBLISH_TIMEOUT_MS).unref())]);
    // Commands wait for a (re)connection, each at most PUBLISH_TIMEOUT_MS.
    this.publisher = redisConnection(this.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: PUBLISH_TIMEOUT_MS });
  }

  /**
   * Tells every process (this one at once) that an application's configuration changed. Never
   * fails the change itself: while Redis is away the other processes see it within `CACHE_CHECK_MS`.
   */
  async announce(applicationId: string): Promise<void> {
    this.forget(applicationId);
    if (!this.publisher) return;
    try {
      await this.publisher.publish(this.channel, applicationId);
      await this.publisher.ping(); // after the subscribers' copies are written (see the header)
    } catch (err) {
      this.logger?.error(
        { err: (err as Error).message, applicationId },
        'configuration change not announced: other processes see it within CACHE_CHECK_MS',
      );
    }
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
    await this.publisher?.quit().catch(() => undefined);
    this.subscriber = this.publisher = undefined;
  }
}
