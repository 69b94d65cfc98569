import { Types } from 'mongoose';
import { findIdPage, type IdPageQuery } from './admin-queries.js';
import type { Models } from './db.js';
import type { RecordOf } from './stored.js';
import type { WebhookEndpointDoc } from './webhook-endpoint.schema.js';

/** An endpoint as the use cases see it: the document with string ids. */
export type WebhookEndpointRecord = RecordOf<WebhookEndpointDoc, 'application'>;

const toRecord = (d: WebhookEndpointDoc): WebhookEndpointRecord => ({
  id: String(d._id),
  applicationId: String(d.application),
  url: d.url,
  eventTypes: d.eventTypes,
  description: d.description ?? '',
  secret: d.secret,
  previousSecret: d.previousSecret ?? null,
  previousSecretExpiresAt: d.previousSecretExpiresAt ?? null,
  status: d.status,
  disabledReason: d.disabledReason ?? null,
  disabledAt: d.disabledAt ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** The secrets that sign a delivery at `now`: the current one, and the previous one during its overlap. */
export const signingSecretsOf = (e: WebhookEndpointRecord, now: Date): string[] =>
  e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt > now ? [e.secret, e.previousSecret] : [e.secret];

const isObjectId = (id: string) => /^[0-9a-f]{24}$/.test(id);

export type EndpointChanges = Partial<Pick<WebhookEndpointRecord, 'url' | 'eventTypes' | 'description' | 'status' | 'disabledReason'>>;

export function webhookEndpointRepository({ WebhookEndpoint }: Models) {
  return {
    async create(
      applicationId: string,
      input: Pick<WebhookEndpointRecord, 'url' | 'eventTypes' | 'description' | 'secret'>,
    ): Promise<WebhookEndpointRecord> {
      const doc = await WebhookEndpoint.create({ ...input, application: new Types.ObjectId(applicationId), status: 'active' });
      return toRecord(doc.toObject());
    },
    /** Every endpoint of an application (active and disabled), oldest first. */
    async listByApplication(applicationId: string): Promise<WebhookEndpointRecord[]> {
      const ds = await WebhookEndpoint.find({ application: applicationId }).sort({ _id: 1 }).lean<WebhookEndpointDoc[]>();
      return ds.map(toRecord);
    },
    /** A page of an application's endpoints (active and disabled), by `_id` (admin listing; endpoints do not archive). */
    async page(applicationId: string, q: Pick<IdPageQuery, 'limit' | 'after'>): Promise<WebhookEndpointRecord[]> {
      const ds = await findIdPage(
        WebhookEndpoint,
        { application: applicationId },
        { limit: q.limit, ...(q.after ? { after: q.after } : {}) },
      );
      return ds.map(toRecord);
    },
    async findById(applicationId: string, id: string): Promise<WebhookEndpointRecord | null> {
      if (!isObjectId(id)) return null;
      const d = await WebhookEndpoint.findOne({ application: applicationId, _id: id }).lean<WebhookEndpointDoc>();
      return d ? toRecord(d) : null;
    },
    async update(applicationId: string, id: string, changes: EndpointChanges, now: Date): Promise<WebhookEndpointRecord | null> {
      const set: Record<string, unknown> = { ...changes };
      if (changes.status === 'active') Object.assign(set, { disabledReason: null, disabledAt: null });
      if (changes.status === 'disabled') Object.assign(set, { disabledReason: changes.disabledReason ?? 'admin', disabledAt: now });
      const d = await WebhookEndpoint.findOneAndUpdate(
        { application: applicationId, _id: id },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<WebhookEndpointDoc>();
      return d ? toRecord(d) : null;
    },
    /** Replaces the secret; the one it replaces keeps signing until `previousExpiresAt`. */
    async rotateSecret(endpoint: WebhookEndpointRecord, secret: string, previousExpiresAt: Date): Promise<WebhookEndpointRecord | null> {
      // Guarded by the secret read: two rotations at once cannot both keep "the previous" one.
      const d = await WebhookEndpoint.findOneAndUpdate(
        { application: endpoint.applicationId, _id: endpoint.id, secret: endpoint.secret },
        { $set: { secret, previousSecret: endpoint.secret, previousSecretExpiresAt: previousExpiresAt } },
        { returnDocument: 'after' },
      ).lean<WebhookEndpointDoc>();
      return d ? toRecord(d) : null;
    },
    /** The receiver answered 410 Gone: disable it (once; an operator may re-enable it). */
    async disableGone(applicationId: string, id: string, now: Date): Promise<boolean> {
      const res = await WebhookEndpoint.updateOne(
        { application: applicationId, _id: id, status: 'active' },
        { $set: { status: 'disabled', disabledReason: 'gone', disabledAt: now } },
      );
      return res.modifiedCount === 1;
    },
  };
}
