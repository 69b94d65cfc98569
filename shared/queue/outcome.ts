import { isDomainError, type DomainError, type DomainErrorExtra, type ErrorKind } from '../errors.js';

/**
 * A refusal as data: a domain error's fields, as a job returns them, an idempotency record stores
 * them and the API answers them (api/answers.ts).
 */
export interface Refusal {
  kind: ErrorKind;
  message: string;
  details: string;
  extra: DomainErrorExtra;
}

/**
 * What an operation comes to. Domain refusals (limit exceeded, rule failed, insufficient points)
 * are results, not job failures, so BullMQ never retries them and the API answers them verbatim.
 * PERSISTED SHAPE: jobs return it (Redis) and idempotency records keep it (MongoDB).
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Refusal };

/** A refusal as an outcome. */
export const refusalOutcome = (err: DomainError): Outcome<never> => ({
  ok: false,
  error: { kind: err.kind, message: err.message, details: err.details, extra: err.extra },
});

/** Runs a use case, turning a DomainError into a refusal outcome; anything else propagates. */
export async function toOutcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    if (isDomainError(err)) return refusalOutcome(err);
    throw err;
  }
}
