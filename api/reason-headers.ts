/**
 * Machine-readable reasons beside the contract's bodies (docs/reasons.md): the bodies stay byte
 * for byte the contract's, the reasons travel in headers.
 * - `Coupon-Reason: <reason>` on every refused answer and on a validate of a coupon that is not
 *   applicable;
 * - `Coupon-Reasons: <coupon_code_id>=<reason>, …` on a list, one entry per coupon that is not
 *   applicable, in the body's order; kept under LIST_HEADER_BUDGET bytes (proxies and clients
 *   refuse headers of 8-16 KB): entries past it are left out and `Coupon-Reasons-Truncated: ?1`
 *   says so (the body's `message` still says why).
 */
import type { Response } from 'express';
import type { Reason } from '../shared/reasons.js';

export const REASON_HEADER = 'Coupon-Reason';
export const LIST_REASONS_HEADER = 'Coupon-Reasons';
export const LIST_REASONS_TRUNCATED_HEADER = 'Coupon-Reasons-Truncated';
export const LIST_HEADER_BUDGET = 4096;

export function setReason(res: Response, reason: Reason | null): void {
  if (reason) res.setHeader(REASON_HEADER, reason);
}

export function setListReasons(res: Response, entries: readonly { id: string; reason: Reason | null }[]): void {
  const parts: string[] = [];
  let bytes = 0;
  for (const { id, reason } of entries) {
    if (!reason) continue;
    const part = `${id}=${reason}`;
    if (bytes + part.length + 2 > LIST_HEADER_BUDGET) {
      res.setHeader(LIST_REASONS_TRUNCATED_HEADER, '?1');
      break;
    }
    parts.push(part);
    bytes += part.length + 2;
  }
  if (parts.length) res.setHeader(LIST_REASONS_HEADER, parts.join(', '));
}
