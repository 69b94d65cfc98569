import { Schema } from 'mongoose';

/**
 * The event counter of one customer: events take increasing numbers in the order their changes
 * were applied (the per-customer queue applies them one at a time), which orders deliveries.
 */
export interface EventSequenceDoc {
  /** `<application>:<customer>`: read and incremented by `_id` only. */
  _id: string;
  value: number;
}

export const eventSequenceSchema = new Schema<EventSequenceDoc>(
  {
    _id: { type: String, required: true },
    value: { type: Number, default: 0 },
  },
  { collection: 'event_sequences', versionKey: false },
);
