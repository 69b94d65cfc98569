import { Schema, type Types } from 'mongoose';
import { EVENT_TYPES, type EventData, type EventType } from '../domain/events.js';

/**
 * The outbox: one document per event (docs/events.md). Written by the job that applied the change
 * (its `_id` derives from the change, so a re-run writes nothing new), right after its deliveries
 * (`webhook_deliveries`, one per active endpoint that subscribes to its type).
 */
export interface EventDoc {
  /** `evt_…`, derived from application, type and change (shared/domain/events.ts). */
  _id: string;
  application: Types.ObjectId;
  customer: Types.ObjectId;
  type: EventType;
  /** Per application and customer, increasing in change order (`event_sequences`). */
  sequence: number;
  requestId: string;
  data: EventData;
  createdAt: Date;
  updatedAt: Date;
}

export const eventSchema = new Schema<EventDoc>(
  {
    _id: { type: String, required: true },
    application: { type: Schema.Types.ObjectId, required: true },
    customer: { type: Schema.Types.ObjectId, required: true },
    type: { type: String, enum: EVENT_TYPES, required: true },
    sequence: { type: Number, required: true },
    requestId: { type: String, default: '' },
    data: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'events', timestamps: true, versionKey: false, minimize: false },
);
// Serves the retention cleanup (events written before a day).
eventSchema.index({ createdAt: 1 });
// Serves the admin event listing (newest first then by `_id`, read backwards; also filtered by
// `?type=`, one of four, read along it) and the redelivery of a time range (oldest first).
eventSchema.index({ application: 1, createdAt: 1, _id: 1 });
// Serves the admin event listing of one customer (`?customer=`), newest first then by `_id`.
eventSchema.index({ application: 1, customer: 1, createdAt: -1, _id: -1 });
