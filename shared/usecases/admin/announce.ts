/**
 * How an admin change reaches the in-process caches of every API and worker process: the use case
 * that changed what they hold announces it (shared/cache/config-changes.ts) before it returns, so
 * the next request on any process sees the change — whoever called the use case (the admin API,
 * a tool). What the caches hold (shared/services.ts): an application and its credentials, its
 * campaigns (with its config version), its wallets, its webhook endpoints. Customers, operators,
 * tokens and sessions are held by none, so their changes announce nothing; neither do reads, dry
 * runs, nor a change refused before it writes.
 */
import type { Services } from '../../services.js';

/** What a use case that announces its changes needs. */
export type AnnounceDeps = Pick<Services, 'changes'>;

/**
 * Runs `writes` — a change's writes to what the caches hold of an application, from its first
 * write on — and then announces the change, also when `writes` throws: part of it may be written
 * (a campaign stored before its code was refused), and a process that loaded that part would keep
 * it until it next reloads. A conditional write that matched nothing (a race lost to another
 * change, which announces itself) is announced too: one more re-read, never a stale cache.
 */
export async function announcing<T>(deps: AnnounceDeps, applicationId: string, writes: () => Promise<T>): Promise<T> {
  try {
    return await writes();
  } finally {
    await deps.changes.announce(applicationId);
  }
}
