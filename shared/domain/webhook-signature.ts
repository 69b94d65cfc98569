/**
 * Signing of webhook bodies, Stripe-style: header
 * `Coupons-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, one `v1` per
 * valid secret (two while a rotated secret's overlap lasts). Receivers recompute the HMAC over
 * the raw body with their secret, compare in constant time, and reject a `t` outside their
 * tolerance (docs/events.md; {@link SIGNATURE_TOLERANCE_SECONDS}) to stop replays.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The headers every delivery carries (docs/events.md), by name: one place for their spelling. */
export const DELIVERY_HEADERS = {
  eventId: 'coupons-event-id',
  eventType: 'coupons-event-type',
  deliveryId: 'coupons-delivery-id',
  attempt: 'coupons-delivery-attempt',
  signature: 'coupons-signature',
} as const;
/** The replay window receivers should enforce (and {@link verifySignature} does by default). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** 256 random bits; shown to the operator once, stored to sign. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

const hmac = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');

/** The header value for `body` sent at `timestamp` (unix seconds), signed with each secret. */
export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmac(s, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does: true when one `v1` of `header` is the HMAC of `body` under `secret` and
 * `t` is within `toleranceSeconds` of `nowSeconds`.
 */
export function verifySignature(
  header: string | null | undefined,
  body: string,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  return parts
    .filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}
