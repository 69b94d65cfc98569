/**
 * Verifying webhook deliveries on the receiving side (`@coupons/client/webhooks`, Node only: it
 * uses node:crypto). Every delivery is signed twice over the same secrets (docs/events.md):
 * `Coupons-Signature: t=<unix s>,v1=<hex>` and the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`); {@link verifyWebhook} checks ours, and falls back to
 * the standard one when only that is present (a proxy that keeps only those). Any library of the
 * Standard Webhooks scheme verifies the standard headers as well.
 *
 * ```ts
 * app.post('/coupons-events', express.raw({ type: 'application/json' }), (req, res) => {
 *   try {
 *     const event = verifyWebhook(req.body, req.headers, { secrets: [process.env.COUPONS_WEBHOOK_SECRET!] });
 *     // deduplicate by event.id, then handle event.type …
 *     res.sendStatus(200);
 *   } catch (err) {
 *     if (err instanceof WebhookVerificationError) return res.status(400).send(err.reason);
 *     throw err;
 *   }
 * });
 * ```
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './schema.js';

/** The event a verified delivery carries. */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** The replay window: a delivery signed longer ago (or further ahead) than this is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerificationFailure = 'no_signature' | 'bad_timestamp' | 'timestamp_outside_tolerance' | 'signature_mismatch' | 'bad_body';

/** A delivery that is not proven to come from the service: answer it 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: VerificationFailure) {
    super(`webhook verification failed: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** The endpoint's secret; during a rotation, the new and the old one (either may match). */
  secrets: string | readonly string[];
  /** Seconds a delivery's timestamp may differ from now (default 300). */
  toleranceSeconds?: number;
  /** Now, for tests (default the clock). */
  now?: Date;
}

/** Headers as Node's `req.headers`, a fetch `Headers`, or a plain object. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** Constant-time comparison of two digests (different lengths never match). */
function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function checkTimestamp(t: number, options: VerifyOptions): void {
  if (!Number.isSafeInteger(t)) throw new WebhookVerificationError('bad_timestamp');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    throw new WebhookVerificationError('timestamp_outside_tolerance');
}

const secretsOf = (options: VerifyOptions): readonly string[] =>
  typeof options.secrets === 'string' ? [options.secrets] : options.secrets;

/** `Coupons-Signature`: true when a `v1` is the HMAC of `<t>.<body>` under one of the secrets and `t` is fresh. */
function verifyCoupons(value: string, body: string, options: VerifyOptions): void {
  const fields = value.split(',').map((p) => {
    const at = p.indexOf('=');
    return [p.slice(0, at).trim(), p.slice(at + 1).trim()] as const;
  });
  const tField = fields.find(([k]) => k === 't')?.[1];
  const t = tField !== undefined && /^\d+$/.test(tField) ? Number(tField) : NaN;
  checkTimestamp(t, options);
  const given = fields.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => Buffer.from(v, 'hex'));
  const ok = secretsOf(options).some((secret) => {
    const expected = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest();
    return given.some((g) => sameDigest(g, expected));
  });
  if (!ok) throw new WebhookVerificationError('signature_mismatch');
}

/** Standard Webhooks: `v1,<base64 HMAC(key, "<id>.<t>.<body>")>` entries, space-separated; key = base64 after `whsec_`. */
function verifyStandard(id: string, timestamp: string, value: string, body: string, options: VerifyOptions): void {
  checkTimestamp(/^\d+$/.test(timestamp) ? Number(timestamp) : NaN, options);
  const given = value
    .split(' ')
    .filter((e) => e.startsWith('v1,'))
    .map((e) => Buffer.from(e.slice(3), 'base64'));
  const ok = secretsOf(options).some((secret) => {
    const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
    return given.some((g) => sameDigest(g, expected));
  });
  if (!ok) throw new WebhookVerificationError('signature_mismatch');
}

/**
 * Verifies a delivery and returns its event. `rawBody` must be the bytes as received (parse
 * JSON only after verifying: a re-serialized body does not match). Throws
 * {@link WebhookVerificationError} when the signature is missing or wrong or the timestamp is
 * outside the tolerance (a replayed old delivery). Deduplicate by `event.id`: a delivery may
 * come more than once.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderSource, options: VerifyOptions): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  const ours = header(headers, 'coupons-signature');
  const [id, timestamp, standard] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((n) => header(headers, n));
  if (ours) verifyCoupons(ours, body, options);
  else if (id && timestamp && standard) verifyStandard(id, timestamp, standard, body, options);
  else throw new WebhookVerificationError('no_signature');
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('bad_body');
  }
}
