import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';

const tallyFields = {
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  campaign: { type: Schema.Types.ObjectId, required: true },
  /** Refusals by reason (docs/reasons.md): validates and redeems of the campaign refused in the day. */
  ref: typed<Record<string, number> | undefined>()({ type: Schema.Types.Mixed }),
  /** Customers whose first redemption of the campaign was in the day. */
  nc: { type: Number },
  // `h00` … `h23`: the same for each local hour of the day ({ref, nc}), written beside the day's.
} as const;
const tallyOptions = { collection: 'campaign_tallies', versionKey: false } as const;

/**
 * What a campaign's results count outside the redemption protocol (docs/results.md), per local
 * day, with each hour's figures inside (`h14`): `_id` `<campaign>:<YYYY-MM-DD>`. Written in batches by each process every few seconds
 * (shared/cache/results-tally.ts): a process killed loses what it had not written yet.
 */
export type CampaignTallyDoc = DocOf<typeof tallyFields, typeof tallyOptions>;
export const campaignTallySchema = new Schema<CampaignTallyDoc>(tallyFields, tallyOptions);
// No secondary index: read by `_id` ranges (a campaign's hours), written by `_id`.

const customerFields = {
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  campaign: { type: Schema.Types.ObjectId, required: true },
  customer: { type: Schema.Types.ObjectId, required: true },
  /** The local hour of the customer's first redemption of the campaign (`YYYY-MM-DDTHH`). */
  hour: { type: String, required: true },
} as const;
const customerOptions = { collection: 'campaign_customers', versionKey: false } as const;

/**
 * A customer who redeemed a campaign at least once: `_id` `<campaign>:<customer>`, inserted once
 * (a repeat collides), so a campaign's unique customers are counted when they first come (the
 * tallies' `nc`). It names the customer by the service's id, as the journal does, so an erasure
 * (docs/admin-api.md#erasing-a-person) leaves it as it is.
 */
export type CampaignCustomerDoc = DocOf<typeof customerFields, typeof customerOptions>;
export const campaignCustomerSchema = new Schema<CampaignCustomerDoc>(customerFields, customerOptions);
// No secondary index: inserted by `_id`, never read by customer.
