/**
 * Converts the limit counters of earlier releases (`usage_counters`, a document per scope with a
 * `holders` array) into limit counters (`limit_counters`, constant size). Idempotent and safe to
 * repeat after a crash: a counter already converted is never written twice, and legacy documents
 * are deleted only once converted. Run by every worker at start-up before it takes jobs
 * (worker/main.ts) and by `npm run admin -- migrate-counters`; run it with the queues drained
 * of jobs from the earlier release (docs/operations.md, "Upgrading").
 *
 * A legacy cycle left `pending` or `reverting` by a crash is settled first, as its re-run would
 * have: `pending` completes when every counter holds it (else it is refused and counts nowhere),
 * `reverting` is reverted (it counts nowhere).
 */
import { Types } from 'mongoose';
import { legacyUsageCounterRepository, type LegacyUsageCounterDoc } from '../data/legacy-usage-counter.repository.js';
import { campaignCounterId, codeCounterId, customerCounterId } from '../data/limit-counter.repository.js';
import type { LimitCounterDoc, PeriodCount } from '../data/limit-counter.schema.js';
import type { Services } from '../services.js';

export async function migrateCounters(deps: Pick<Services, 'repos' | 'db'>): Promise<{ counters: number; legacyDocuments: number }> {
  const legacy = legacyUsageCounterRepository(deps.db);
  const unsettled = await deps.repos.redemptions.unsettledLegacy();
  if (unsettled.length === 0 && !(await legacy.any())) return { counters: 0, legacyDocuments: 0 };

  // Settle a campaign's unsettled legacy cycles against its legacy holders; their keys, unless
  // they complete, must not be counted.
  const notCounted = new Set<string>();
  const settle = async (campaignId: string, held: (scope: string, key: string) => boolean) => {
    for (const r of unsettled.filter((u) => u.campaignId === campaignId)) {
      const complete = r.state === 'pending' && (r.legacyScopes ?? []).every((scope) => held(scope, r.key));
      if (!complete) notCounted.add(r.key);
      await deps.repos.redemptions.setLegacyState(r.key, r.state, complete ? 'completed' : r.state === 'pending' ? 'refused' : 'reverted');
    }
  };
  const seen = new Set<string>();
  let counters = 0;
  let legacyDocuments = 0;
  for await (const docs of legacy.byCampaign()) {
    const campaignId = String(docs[0]!.campaign);
    seen.add(campaignId);
    const byScope = new Map(docs.map((d) => [d.scope, new Set(d.holders)]));
    await settle(campaignId, (scope, key) => !!byScope.get(scope)?.has(key));
    for (const doc of convert(docs, notCounted)) if (await deps.repos.limitCounters.create(doc)) counters++;
    await legacy.deleteMany(docs.map((d) => d._id));
    legacyDocuments += docs.length;
  }
  // Campaigns without legacy counters: a pending cycle completes only if it had nothing to take.
  for (const campaignId of new Set(unsettled.map((u) => u.campaignId))) {
    if (!seen.has(campaignId)) await settle(campaignId, () => false);
  }
  return { counters, legacyDocuments };
}

/** The limit counters equivalent to one campaign's legacy counters. */
function convert(docs: LegacyUsageCounterDoc[], notCounted: Set<string>): LimitCounterDoc[] {
  const first = docs[0]!;
  const base = { application: new Types.ObjectId(String(first.application)), campaign: new Types.ObjectId(String(first.campaign)) };
  const campaignId = String(first.campaign);
  const count = (d: LegacyUsageCounterDoc) => d.holders.filter((h) => !notCounted.has(h)).length;
  const latest = (kind: string): PeriodCount | undefined => {
    const ofKind = docs.filter((d) => d.scope.startsWith(`${kind}:`)).sort((a, b) => (a.scope < b.scope ? 1 : -1));
    return ofKind[0] ? { k: ofKind[0].scope.slice(kind.length + 1), n: count(ofKind[0]) } : undefined;
  };
  const out: LimitCounterDoc[] = [];
  const total = docs.find((d) => d.scope === 'total');
  const [d, w, m] = [latest('day'), latest('week'), latest('month')];
  if (total || d || w || m) {
    out.push({
      _id: campaignCounterId(campaignId),
      ...base,
      kind: 'campaign',
      total: total ? count(total) : 0,
      ...(d ? { d } : {}),
      ...(w ? { w } : {}),
      ...(m ? { m } : {}),
    });
  }
  for (const doc of docs) {
    const id = doc.scope.slice(doc.scope.indexOf(':') + 1);
    if (doc.scope.startsWith('customer:'))
      out.push({ _id: customerCounterId(campaignId, id), ...base, kind: 'customer', total: count(doc) });
    if (doc.scope.startsWith('code:')) out.push({ _id: codeCounterId(campaignId, id), ...base, kind: 'code', total: count(doc) });
  }
  return out;
}
