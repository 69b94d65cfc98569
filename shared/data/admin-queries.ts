/**
 * The admin's queries that every archivable collection scoped by application shares — a page by
 * `_id`, archive state, delete, existence — built once over a model and spread into its
 * repository, so each reads the same way.
 */
import { Types, type Model } from 'mongoose';

/** A page by `_id`: up to `limit` documents after the id `after` (then `skip` more). */
export interface IdPageQuery {
  limit: number;
  after?: string;
  skip?: number;
  /** Archived documents too; false leaves them out (collections that archive). */
  includeArchived?: boolean;
}

/** `scope`'s documents of the page `q`, ascending `_id`, as plain objects. */
export function findIdPage<D>(model: Model<D>, scope: Record<string, unknown>, q: IdPageQuery): Promise<D[]> {
  return model
    .find({
      ...scope,
      ...(q.includeArchived === false ? { archivedAt: null } : {}),
      ...(q.after ? { _id: { $gt: new Types.ObjectId(q.after) } } : {}),
    })
    .sort({ _id: 1 })
    .skip(q.skip ?? 0)
    .limit(q.limit)
    .lean<D[]>()
    .exec();
}

/**
 * The admin methods of a collection whose documents belong to an application (`application`)
 * and can be archived (`archivedAt`); every query is scoped by the application.
 */
export function applicationScopedAdmin<D, R>(model: Model<D>, toRecord: (d: D) => R) {
  return {
    /** A page of the application's documents, by `_id`. */
    async page(applicationId: string, q: IdPageQuery): Promise<R[]> {
      return (await findIdPage(model, { application: applicationId }, q)).map(toRecord);
    },
    /** Sets (a date) or clears (null) `archivedAt`; null when the document is not this application's. */
    async setArchived(applicationId: string, id: string, archivedAt: Date | null): Promise<R | null> {
      const d = await model
        .findOneAndUpdate({ _id: id, application: applicationId }, { $set: { archivedAt } }, { returnDocument: 'after' })
        .lean<D>()
        .exec();
      return d ? toRecord(d) : null;
    },
    async delete(applicationId: string, id: string): Promise<boolean> {
      return (await model.deleteOne({ _id: id, application: applicationId }).exec()).deletedCount === 1;
    },
    async existsInApplication(applicationId: string): Promise<boolean> {
      return (await model.exists({ application: applicationId }).exec()) !== null;
    },
  };
}
