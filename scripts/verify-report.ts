/**
 * How `npm run verify` and `npm run admin -- verify` print a verifier report (the admin API's
 * body, shared/usecases/admin/verify.usecase.ts): one line per application, then one per
 * discrepancy naming its documents as `<collection>/<_id>`.
 */
import type { VerifyReportBody } from '../shared/usecases/admin/verify.usecase.js';

/** Exit status when a report lists a discrepancy (1 is a refused request, 2 a usage error). */
export const DISCREPANCIES_EXIT = 3;

export function reportLines(r: VerifyReportBody): string[] {
  const c = r.checked;
  const ms = Date.parse(r.finished_at) - Date.parse(r.started_at);
  const head =
    `${r.application_id}: ${r.ok ? 'ok' : `${r.discrepancy_count} discrepanc${r.discrepancy_count === 1 ? 'y' : 'ies'}`} — ` +
    `${c.campaigns} campaigns, ${c.cycles} cycles, ${c.counters} counters, ${c.balances} balances, ${c.entries} ledger entries, ` +
    `${c.gift_cards ? `${c.gift_cards} gift cards (${c.gift_card_entries} entries), ` : ''}` +
    `${c.events} events checked${r.events_skipped ? ` (events not checked: ${r.events_skipped})` : ''}; ` +
    `${r.in_flight_count} in flight, ${r.rechecked} rechecked; ${(ms / 1000).toFixed(1)} s`;
  const lines = [head];
  for (const d of r.discrepancies) {
    const figures = d.expected !== undefined || d.found !== undefined ? ` (expected ${d.expected ?? '-'}, found ${d.found ?? '-'})` : '';
    lines.push(`  ${d.kind}: ${d.message}${figures} — ${d.documents.map((x) => `${x.collection}/${x.id}`).join(' ')}`);
  }
  if (r.discrepancy_count > r.discrepancies.length) lines.push(`  … and ${r.discrepancy_count - r.discrepancies.length} more`);
  for (const f of r.in_flight) lines.push(`  in flight: ${f.document.collection}/${f.document.id}: ${f.detail}`);
  if (r.in_flight_count > r.in_flight.length) lines.push(`  … and ${r.in_flight_count - r.in_flight.length} more in flight`);
  return lines;
}
