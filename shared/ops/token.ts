/**
 * Operator token check shared by the admin API, Bull Board, the API's `/metrics` and the worker's `/metrics`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * True when `header` carries `token`: `Bearer <token>` for scripts and scrapers, or HTTP Basic
 * with any user name and the token as password, so a browser can log in through its native
 * prompt. Digests are compared, so the check takes the same time whatever the lengths.
 */
export function presentsToken(header: string | undefined, token: string): boolean {
  if (!header || header.length > 4096) return false;
  let presented: string | undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) presented = bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) presented = decoded.slice(colon + 1);
  }
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}
