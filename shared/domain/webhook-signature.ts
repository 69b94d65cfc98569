/**
 * Signing of webhook bodies, in two schemes over the same secrets (docs/events.md):
 * - ours, Stripe-style: `Coupons-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`;
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the event id),
 *   `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<t>.<body>")>`, the
 *   key being the base64 after `whsec_`, so receivers can verify with that scheme's libraries.
 * One signature per valid secret (two while a rotated secret's overlap lasts). Receivers verify
 * with the client's `verifyWebhook` (`@coupons/client/webhooks`) and reject a timestamp outside
 * their tolerance ({@link SIGNATURE_TOLERANCE_SECONDS}) to stop replays.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** The headers every delivery carries (docs/events.md), by name: one place for their spelling. */
export const DELIVERY_HEADERS = {
  eventId: 'coupons-event-id',
  eventType: 'coupons-event-type',
  deliveryId: 'coupons-delivery-id',
  attempt: 'coupons-delivery-attempt',
  signature: 'coupons-signature',
  standardId: 'webhook-id',
  standardTimestamp: 'webhook-timestamp',
  standardSignature: 'webhook-signature',
} as const;
/** The replay window receivers should enforce (the client's `verifyWebhook` does by default). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * 256 random bits; shown to the operator once, stored to sign. Standard base64 after `whsec_`:
 * what Standard Webhooks libraries decode (a stored secret may be base64url, which some of them
 * refuse: rotating the secret gives one they accept).
 */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const hmac = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');

/** The header value for `body` sent at `timestamp` (unix seconds), signed with each secret. */
export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmac(s, timestamp, body)}`)].join(',');
}

/** The Standard Webhooks key of a secret: the bytes its base64 (or base64url) after `whsec_` encodes. */
const standardKey = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

/** Every signing header of one attempt: both schemes, each signed with every secret. */
export function signatureHeaders(body: string, eventId: string, secrets: readonly string[], timestamp: number): Record<string, string> {
  return {
    [DELIVERY_HEADERS.signature]: signatureHeader(body, secrets, timestamp),
    [DELIVERY_HEADERS.standardId]: eventId,
    [DELIVERY_HEADERS.standardTimestamp]: String(timestamp),
    [DELIVERY_HEADERS.standardSignature]: secrets
      .map((s) => `v1,${createHmac('sha256', standardKey(s)).update(`${eventId}.${timestamp}.${body}`, 'utf8').digest('base64')}`)
      .join(' '),
  };
}
