/** What archive and unarchive share, whatever the resource (docs/admin-api.md "Archive and delete"). */
import type { Services } from '../../services.js';

/** What an archive use case needs: the repositories and the clock. */
export type ArchiveDeps = Pick<Services, 'repos' | 'now'>;

/**
 * Archives (`archive` true, at `now`) or unarchives a resource, idempotently: archiving an
 * archived one keeps its first archive time, unarchiving a live one changes nothing. `save`
 * writes the new `archivedAt` and returns the resource as stored.
 */
export async function toggleArchived<R extends { archivedAt?: Date | null }>(
  current: R,
  archive: boolean,
  now: () => Date,
  save: (archivedAt: Date | null) => Promise<R | null>,
): Promise<{ resource: R; changed: boolean }> {
  if (Boolean(current.archivedAt) === archive) return { resource: current, changed: false };
  return { resource: (await save(archive ? now() : null)) ?? current, changed: true };
}
