/**
 * The contract's error strings, verbatim (the contract's error bodies (openapi.yaml), docs/decisions.md#6-14, #20a-22), quirks
 * included: clients written against the original service match on them. Built here, in the API
 * layer, from domain error kinds; use cases throw `DomainError`s created by these helpers.
 */
import { DomainError } from '../shared/errors.js';

/** The unauthorized body differs per endpoint in the original; docs/decisions.md#6 keeps each. */
export const unauthorizedFor = {
  list: () => new DomainError('unauthorized', 'unauthorized', 'appId or app secret invalid', { code: 401 }),
  validate: () => new DomainError('unauthorized', 'Unathourized', 'appId or app secret invalid', { code: 401 }),
  apply: () => new DomainError('unauthorized', 'Unathourized', 'app id or app secret invalid', { code: 401 }),
  wallet: () => new DomainError('unauthorized', 'Unathourized', 'app id or app secret invalid', { code: 401 }),
  // Beyond the contract (PUT /customers/:source_id): spelled correctly.
  customers: () => new DomainError('unauthorized', 'Unauthorized', 'app id or app secret invalid', { code: 401 }),
} as const;
export type ClientRoute = keyof typeof unauthorizedFor;

export const invalidJson = (parseError: string) =>
  new DomainError('invalid', 'Invalid payload', `invalid JSON: ${parseError}`, { code: 400 });
export const bodyTooLarge = (limit: string) =>
  new DomainError('too_large', 'Invalid payload', `request body is larger than ${limit}`, { code: 413 });
export const bodyTooDeep = (max: number) =>
  new DomainError('invalid', 'Invalid payload', `request body is nested deeper than ${max} levels`, { code: 400 });
/** A dependency (database, Redis) did not answer: nothing of the request was applied. */
export const dependencyUnavailable = (errorId: string) =>
  new DomainError('unavailable', 'Service Unavailable', `a dependency is unavailable; retry later (error id ${errorId})`, { code: 503 });
