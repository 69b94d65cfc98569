/** The admin API's verifier run (`GET /admin/applications/:app/verify`): one application, read-only. */
import type { Services } from '../../services.js';
import { adminInvalid } from '../../admin-errors.js';
import { verifyApplication, type VerifyOptions, type VerifyReport } from '../verify-exactness.usecase.js';
import { requireApplication } from './applications.usecase.js';

type Deps = Pick<Services, 'repos' | 'now' | 'config'>;

/** The query parameters it takes, each a whole number of milliseconds (their defaults: VerifyOptions). */
const QUERY = { recheck_ms: 'recheckMs', event_grace_ms: 'eventGraceMs' } as const;

/** Verifies one application's counters, limits, orders, events and balances (docs/operations.md, "Verifying exactness"). */
export async function verifyApplicationFromAdmin(deps: Deps, applicationId: string, query: Record<string, unknown> = {}) {
  await requireApplication(deps, applicationId);
  const options: VerifyOptions = { eventRetentionDays: deps.config.webhookRetentionDays };
  for (const [name, value] of Object.entries(query)) {
    const key = QUERY[name as keyof typeof QUERY];
    if (!key) throw adminInvalid(`unknown query parameter "${name}" (verify takes ${Object.keys(QUERY).join(', ')})`);
    const n = Number(value);
    if (typeof value !== 'string' || !/^\d+$/.test(value) || n > 600_000)
      throw adminInvalid(`"${name}" must be a whole number of milliseconds up to 600000`);
    options[key] = n;
  }
  return verifyReportBody(await verifyApplication(deps, applicationId, options));
}

/** A report as the admin API answers it and `npm run verify` prints it. */
export function verifyReportBody(r: VerifyReport) {
  return {
    application_id: r.applicationId,
    ok: r.discrepancyCount === 0,
    started_at: r.startedAt.toISOString(),
    finished_at: r.finishedAt.toISOString(),
    checked: r.checked,
    events_skipped: r.eventsSkipped,
    rechecked: r.rechecked,
    discrepancy_count: r.discrepancyCount,
    discrepancies: r.discrepancies,
    in_flight_count: r.inFlightCount,
    in_flight: r.inFlight,
  };
}
export type VerifyReportBody = ReturnType<typeof verifyReportBody>;
