import { Schema } from 'mongoose';
import { EVENT_TYPES, type EventData } from '../domain/events.js';
import { typed, type DocOf } from './stored.js';

const fields = {
  /** `evt_…`, derived from application, type and change (shared/domain/events.ts). */
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  customer: { type: Schema.Types.ObjectId, required: true },
  type: { type: String, enum: EVENT_TYPES, required: true },
  /** Per application and customer, increasing in change order (`event_sequences`). */
  sequence: { type: Number, required: true },
  requestId: { type: String, default: '' },
  data: typed<EventData>()({ type: Schema.Types.Mixed, required: true }),
} as const;
const options = { collection: 'events', timestamps: true, versionKey: false, minimize: false } as const;

/**
 * The outbox: one document per event (docs/events.md). Written by the job that applied the change
 * (its `_id` derives from the change, so a re-run writes nothing new), right after its deliveries
 * (`webhook_deliveries`, one per active endpoint that subscribes to its type).
 */
export type EventDoc = DocOf<typeof fields, typeof options>;

export const eventSchema = new Schema<EventDoc>(fields, options);
// Serves the retention cleanup (events written before a day).
eventSchema.index({ createdAt: 1 });
// Serves the admin event listing (newest first then by `_id`, read backwards; also filtered by
// `?type=`, one of four, read along it) and the redelivery of a time range (oldest first).
eventSchema.index({ application: 1, createdAt: 1, _id: 1 });
// Serves the admin event listing of one customer (`?customer=`), newest first then by `_id`.
eventSchema.index({ application: 1, customer: 1, createdAt: -1, _id: -1 });
