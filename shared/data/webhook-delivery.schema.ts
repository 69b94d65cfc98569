import { Schema } from 'mongoose';
import type { DocOf } from './stored.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'dead', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const fields = {
  /** `<event id>-<endpoint id>`: one delivery per event and endpoint. */
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  endpoint: { type: Schema.Types.ObjectId, required: true },
  customer: { type: Schema.Types.ObjectId, required: true },
  event: { type: String, required: true },
  eventType: { type: String, required: true },
  /** The event's per-customer sequence number. */
  sequence: { type: Number, required: true },
  status: { type: String, enum: DELIVERY_STATUSES, default: 'pending' },
  /** Which queued job owns it: a redelivery or a re-queue by the sweep bumps it, and older jobs stop. */
  generation: { type: Number, default: 0 },
  attempts: { type: Number, default: 0 },
  /**
   * When its next attempt is due: its creation, then each retry's time; null once finished. The
   * sweep takes over a delivery whose attempt is long overdue and whose job is gone.
   */
  nextAttemptAt: { type: Date, default: null },
  lastAttemptAt: { type: Date, default: null },
  lastStatusCode: { type: Number, default: null },
  lastError: { type: String, default: null },
  deliveredAt: { type: Date, default: null },
  /**
   * The event as sent, rendered once when the delivery is created: every attempt and redelivery
   * sends these bytes, and a delivery whose event never reached the outbox (its recording job
   * failed between the two writes) can still be sent.
   */
  body: { type: String, required: true },
  /**
   * The job created with it — the run of the deliveries one operation made for this endpoint —
   * while that job owns it (generation 0); the sweep checks it before taking the delivery over.
   */
  job: { type: String },
} as const;
const options = { collection: 'webhook_deliveries', timestamps: true, versionKey: false } as const;

/**
 * One event for one endpoint (docs/events.md). `pending` while it is queued, waiting for an
 * earlier delivery of its stream, in flight or between retries; then `succeeded`, `dead` (gave
 * up after the last attempt, or the receiver answered 410) or `cancelled` (its endpoint was
 * disabled or stopped subscribing before it was sent). A stream is (endpoint, customer): its
 * deliveries are sent in `sequence` order, each once the earlier ones are finished.
 */
export type WebhookDeliveryDoc = DocOf<typeof fields, typeof options>;

export const webhookDeliverySchema = new Schema<WebhookDeliveryDoc>(fields, options);
// Serves the ordering of a stream: its pending deliveries up to a sequence number, lowest first (the
// blocker of a run, and the run's own state). Equality on `status` keeps finished history out.
webhookDeliverySchema.index({ endpoint: 1, customer: 1, status: 1, sequence: 1 });
// Serves the sweep: pending deliveries whose job should have run long ago.
webhookDeliverySchema.index({ status: 1, nextAttemptAt: 1 });
// Serves the admin listing of an endpoint's deliveries, newest first then by `_id` (the page order;
// a page starts after the cursor's (createdAt, _id)). `?event=` reads the `_id` index instead.
webhookDeliverySchema.index({ application: 1, endpoint: 1, createdAt: -1, _id: -1 });
// Serves the same listing filtered by status (`?status=dead`): equality on `status` before the page
// order, so a page of dead deliveries does not read the endpoint's successful history.
webhookDeliverySchema.index({ application: 1, endpoint: 1, status: 1, createdAt: -1, _id: -1 });
// Serves the retention cleanup (finished deliveries older than the retention).
webhookDeliverySchema.index({ createdAt: 1 });
