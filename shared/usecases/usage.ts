/**
 * Limit counters: which scopes a campaign counts in, and reading them for many campaigns in one
 * query (list/validate hot path). Limits count redemptions whose state is `completed`
 * (decision 16); periods are the application's calendar day, ISO week and month.
 */
import type { Campaign, UsageCounts } from '../domain/types.js';
import type { Services } from '../services.js';

export interface PeriodKeys {
  day: string;
  week: string;
  month: string;
}

export type ScopeKind = 'total' | 'customer' | 'day' | 'week' | 'month' | 'code';

export const scopeKind = (scope: string): ScopeKind =>
  scope.slice(0, scope.indexOf(':') < 0 ? scope.length : scope.indexOf(':')) as ScopeKind;

/** The counters a redemption takes: only the scopes whose limit is configured. */
export function scopesToTake(
  campaign: Campaign,
  customerId: string,
  periods: PeriodKeys,
  bulkCodeId: string | null,
): { scope: string; limit: number }[] {
  const l = campaign.limits;
  const out: { scope: string; limit: number }[] = [];
  if (l.total) out.push({ scope: 'total', limit: l.total });
  if (l.perCustomer) out.push({ scope: `customer:${customerId}`, limit: l.perCustomer });
  if (l.perDay) out.push({ scope: `day:${periods.day}`, limit: l.perDay });
  if (l.perWeek) out.push({ scope: `week:${periods.week}`, limit: l.perWeek });
  if (l.perMonth) out.push({ scope: `month:${periods.month}`, limit: l.perMonth });
  if (bulkCodeId) out.push({ scope: `code:${bulkCodeId}`, limit: campaign.bulkCodeUsageLimit ?? 1 });
  return out;
}

/** Usage of each campaign as seen by `customerId` now, in one database round trip. */
export async function readUsage(
  deps: Pick<Services, 'repos'>,
  applicationId: string,
  campaigns: Campaign[],
  customerId: string | null,
  periods: PeriodKeys,
  bulkCodeId: string | null = null,
): Promise<Map<string, UsageCounts>> {
  const limited = campaigns.filter((c) => Object.values(c.limits).some((v) => v) || bulkCodeId);
  const scopes = ['total', `day:${periods.day}`, `week:${periods.week}`, `month:${periods.month}`];
  if (customerId) scopes.push(`customer:${customerId}`);
  if (bulkCodeId) scopes.push(`code:${bulkCodeId}`);
  const counts = await deps.repos.usageCounters.read(
    applicationId,
    limited.map((c) => c.id),
    scopes,
  );
  const get = (c: Campaign, scope: string) => counts.get(`${c.id}|${scope}`) ?? 0;
  return new Map(
    campaigns.map((c) => [
      c.id,
      {
        total: get(c, 'total'),
        perCustomer: customerId ? get(c, `customer:${customerId}`) : 0,
        perDay: get(c, `day:${periods.day}`),
        perWeek: get(c, `week:${periods.week}`),
        perMonth: get(c, `month:${periods.month}`),
        ...(bulkCodeId ? { bulkCode: get(c, `code:${bulkCodeId}`) } : {}),
      },
    ]),
  );
}
