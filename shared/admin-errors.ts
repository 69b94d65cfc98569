/**
 * Every error body of the admin API (outside the client contract; docs/admin-api.md#errors), one
 * constructor per message. The HTTP status is chosen from the error's kind where the answer is
 * made (api/answers.ts).
 */
import { DomainError } from './errors.js';

/** Bad input: `details` says what is wrong; `fields` names each bad input by its path, for a form to show beside it. */
export const adminInvalid = (details: string, fields?: Record<string, string>) =>
  new DomainError('invalid', 'Invalid payload', details, fields ? { fields } : {});

export type AdminResource =
  'application' | 'campaign' | 'customer' | 'wallet' | 'gift card' | 'webhook' | 'event' | 'operator' | 'token' | 'session' | 'backtest';
export const adminNotFound = (what: AdminResource) => new DomainError('not_found', 'resource not found', `${what} not found`);

/** Good credentials that may not do this: an operator's role, or an application it is not given (docs/admin-api.md#operators). */
export const adminForbidden = (details: string) => new DomainError('forbidden', 'Forbidden', details);

/** A duplicate id or code, or a delete or archive that what depends on the resource refuses. */
export const adminConflict = (details: string, field?: string) =>
  new DomainError('conflict', 'conflict', details, field ? { fields: { [field]: details } } : {});

/** No admin token, operator token or session the API knows. */
export const adminTokenInvalid = () => new DomainError('unauthorized', 'unauthorized', 'admin token invalid');

/** The same for every refused sign-in, whatever was wrong. */
export const wrongCredentials = () => new DomainError('unauthorized', 'unauthorized', 'wrong e-mail or password');

/** Too many failed sign-ins for an e-mail or from an address: `retryAfter` seconds until the next is taken (a `Retry-After` header). */
export const tooManySignIns = (retryAfter: number) =>
  Object.assign(new DomainError('rate_limited', 'Too Many Requests', `too many failed sign-ins: retry in ${retryAfter} s`), {
    retryAfter,
  });

/** Sign-in failures cannot be counted (Redis does not answer): sign-in is refused rather than let through uncounted. */
export const signInUnavailable = () => new DomainError('unavailable', 'Service Unavailable', 'sign-in is unavailable; retry later');

/** The API process has no job queues (a points adjustment cannot be queued). */
export const queuesNotConnected = () => new DomainError('unavailable', 'Service Unavailable', 'the queues are not connected');

/** The API process has no webhook queue (redelivery and ping cannot be queued). */
export const webhookQueueNotConnected = () => new DomainError('unavailable', 'Service Unavailable', 'the webhook queue is not connected');
