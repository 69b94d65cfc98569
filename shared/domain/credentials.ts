/**
 * Application credentials. Secrets are 256-bit random values shown once; only a keyed hash is
 * stored. A fast keyed hash (HMAC-SHA256, keyed by the API key) is enough for random 256-bit
 * secrets: there is nothing to brute-force that a slow hash would protect.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const generateApiKey = (): string => `ak_${randomBytes(12).toString('hex')}`;
export const generateSecret = (): string => `sk_${randomBytes(32).toString('base64url')}`;

export const hashSecret = (apiKey: string, secret: string): string => createHmac('sha256', apiKey).update(secret, 'utf8').digest('hex');

/** Constant-time comparison of a presented secret with the stored hash. */
export function verifySecret(apiKey: string, secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(apiKey, secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
