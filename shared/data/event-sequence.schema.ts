import { Schema } from 'mongoose';

/**
 * The event counter of one customer: events take increasing numbers in the order their changes
 * were applied (the per-customer queue applies them one at a time), which orders deliveries.
 */
export interface EventSequenceDoc {
  /** `<application>:<customer>`: read and incremented by `_id` only. */
  _id: string;
  value: number;
  /**
   * Who took the last numbers (`<job id>/<count>`) and when: a re-run of that job gets the same
   * numbers and instant back, so it writes the same events (absent on counters of earlier releases).
   */
  holder?: string;
  at?: Date;
}

export const eventSequenceSchema = new Schema<EventSequenceDoc>(
  {
    _id: { type: String, required: true },
    value: { type: Number, default: 0 },
    holder: { type: String },
    at: { type: Date },
  },
  { collection: 'event_sequences', versionKey: false },
);
