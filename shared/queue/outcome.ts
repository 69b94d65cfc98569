import { DomainError, isDomainError, type DomainErrorExtra, type ErrorKind } from '../errors.js';

/**
 * What a job returns. Domain refusals (limit exceeded, rule failed, insufficient points) are
 * results, not job failures, so BullMQ never retries them and the API answers them verbatim.
 */
export type Outcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      error: { kind: ErrorKind; message: string; details: string; extra: DomainErrorExtra };
    };

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

export function unwrapOutcome<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new DomainError(outcome.error.kind, outcome.error.message, outcome.error.details, outcome.error.extra);
}
