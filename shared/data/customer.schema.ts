import { Schema, type Types } from 'mongoose';

export interface CustomerDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  /** The client application's own customer id. */
  sourceId: string;
  name?: string;
  email?: string;
  createdAt: Date;
  updatedAt: Date;
}

export const customerSchema = new Schema<CustomerDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    sourceId: { type: String, required: true },
    name: String,
    email: String,
  },
  { collection: 'customers', timestamps: true, versionKey: false },
);
// Serves resolving `source_id` within an application (list, validate, apply, wallets) and keeps it unique.
customerSchema.index({ application: 1, sourceId: 1 }, { unique: true });
