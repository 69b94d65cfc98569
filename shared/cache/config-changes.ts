/**
 * Configuration changes reach every process at once (issue 19): a change made through the admin
 * API is announced on a Redis channel, and every API and worker process drops what its caches
 * hold of that application before the admin API answers — so a campaign created, archived or
 * edited is what the very next request sees, on every replica. The caches' re-check timer
 * (`CACHE_CHECK_MS`) stays as the fallback for changes made elsewhere (the database edited by
 * hand) and for announcements a process missed while its Redis connection was down: a process
 * that reconnects drops everything it holds.
 *
 * Ordering: PUBLISH returns after Redis has written the message to every subscriber's socket;
 * only then does the admin API answer, and only then can a client send the request that must see
 * the change — so the announcement is in each process's socket before that request exists.
 */
import type { Logger } from '../logger.js';
import { redisConnection, type RedisClient } from '../queue/redis.js';

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
    await subscriber.subscribe(this.channel);
    connectedOnce = true;
    this.publisher = redisConnection(this.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2000 });
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
    } catch (err) {
      this.logger?.warn(
        { err: (err as Error).message, applicationId },
        'configuration change not announced; other processes see it within CACHE_CHECK_MS',
      );
    }
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
    await this.publisher?.quit().catch(() => undefined);
    this.subscriber = this.publisher = undefined;
  }
}
