/**
 * The one place a refusal or an operation's answer becomes HTTP: the status from the error's
 * kind, the contract's Error object as the body (`code`, `message`, `details`, then what the case
 * adds), and the `Coupon-Reason` header on the client routes (docs/reasons.md).
 */
import type { Request, Response } from 'express';
import { operationUnavailable } from '../shared/client-errors.js';
import { reasonOf, type ErrorKind } from '../shared/errors.js';
import type { JobAnswer } from '../shared/queue/gateway.js';
import type { Refusal } from '../shared/queue/outcome.js';
import { setReason } from './reason-headers.js';
import { fromCents } from '../shared/domain/money.js';

export const GRANTED_DISCOUNT_HEADER = 'Coupon-Discount';
export const GRANTED_CASHBACK_HEADER = 'Coupon-Cashback';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

/** Answers a refusal (a DomainError, or one an outcome carries). */
export function sendRefusal(req: Request, res: Response, refusal: Refusal): void {
  const status = STATUS[refusal.kind];
  const { extra } = refusal;
  if (status === 503) res.setHeader('Retry-After', '1');
  // The reasons are the client routes' (docs/reasons.md); the admin API's bodies say their own.
  if (!req.originalUrl.startsWith('/admin')) setReason(res, reasonOf(refusal));
  res.status(status).json({
    code: extra.code ?? status,
    message: refusal.message,
    details: refusal.details,
    ...(extra.key !== undefined ? { key: extra.key } : {}),
    ...(extra.operationKey !== undefined ? { idempotency_key: extra.operationKey } : {}),
    ...(extra.applied === false ? { applied: false } : {}),
    ...(extra.fields !== undefined ? { fields: extra.fields } : {}),
    request_id: extra.requestId ?? String(req.id ?? ''),
  });
}

/**
 * Answers a queued operation: its outcome (the value with `status`, or the refusal), or — not
 * answered in time, or the job failed — the 503 that names the operation's key and says whether
 * it was applied.
 */
export function sendJobAnswer(req: Request, res: Response, answer: JobAnswer, operationKey: string, status = 200): void {
  if (!answer.answered) return sendRefusal(req, res, operationUnavailable(answer.standing, operationKey, answer.errorId));
  if (!answer.outcome.ok) return sendRefusal(req, res, answer.outcome.error);
  res.status(status).json(withGrantedHeaders(res, answer.outcome.value));
}

/**
 * A budgeted campaign's redeem (docs/budgets.md): the amounts granted go out as the
 * `Coupon-Discount` and `Coupon-Cashback` headers (currency units, 2 decimals), never in the body,
 * which stays the contract's.
 */
function withGrantedHeaders(res: Response, value: unknown): unknown {
  if (!value || typeof value !== 'object' || !('granted' in value)) return value;
  const { granted, ...body } = value as { granted: { discountCents: number; cashbackCents: number } };
  res.setHeader(GRANTED_DISCOUNT_HEADER, fromCents(granted.discountCents).toFixed(2));
  res.setHeader(GRANTED_CASHBACK_HEADER, fromCents(granted.cashbackCents).toFixed(2));
  return body;
}
