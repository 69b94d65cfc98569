import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const PRINTABLE = /^[\x21-\x7e]{1,128}$/;

/** docs/decisions.md#3: honour a client `X-Request-Id` (max 128 printable chars) or generate a UUID. */
export function requestIdFrom(header: unknown): string {
  return typeof header === 'string' && PRINTABLE.test(header) ? header : randomUUID();
}

/** Echoes the request id in the response header; pino-http's genReqId already chose it. */
export const echoRequestId: RequestHandler = (req, res, next) => {
  res.setHeader('X-Request-Id', String(req.id));
  next();
};
