/**
 * Operators' passwords and personal tokens. Passwords: scrypt (node:crypto, memory-hard), with
 * its parameters stored beside the hash so they can be raised later. Tokens: 32 random bytes,
 * shown once; only their SHA-256 is stored (a high-entropy secret needs no slow hash), looked up
 * by that digest.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost: N = 2^cost (14 by default: 16 MB and tens of ms a check), r = 8, p = 1. */
export const DEFAULT_HASH_COST = 14;
const paramsOf = (cost: number) => ({ N: 2 ** cost, r: 8, p: 1 }) as const;
const KEY_LENGTH = 32;

const derive = (password: string, salt: Buffer, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );

/** `scrypt$N$r$p$<salt base64>$<hash base64>`, at `cost` (PASSWORD_HASH_COST). */
export async function hashPassword(password: string, cost = DEFAULT_HASH_COST): Promise<string> {
  const params = paramsOf(cost);
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/**
 * A stored hash for comparisons when there is no account (or no password): verifying against it
 * costs what checking a password hashed at `cost` does, so the answer's time does not tell.
 */
export const decoyHash = (cost = DEFAULT_HASH_COST): string => {
  const params = paramsOf(cost);
  return `scrypt$${params.N}$${params.r}$${params.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;
};

/** True when `stored` was hashed at another cost than `cost` (re-hashed at the next successful sign-in). */
export const hashedAtOtherCost = (stored: string, cost: number): boolean => stored.split('$')[1] !== String(2 ** cost);

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Personal tokens start with this, so they are recognised (and found by secret scanners). */
export const TOKEN_PREFIX = 'cop_';

export function newToken(): { token: string; digest: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, digest: tokenDigest(token) };
}

export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');
