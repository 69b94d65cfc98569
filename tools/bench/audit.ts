/**
 * `npm run bench -- audit`: what the audit log costs a campaign update (docs/benchmarks.md). The
 * same update use case, called as the admin router calls it, without the audit and with it
 * (`auditedChange`: the before read, the pending entry, the stamp, the after read, the commit), in
 * alternating rounds against the same database: updates per second with 4 at once, and the CPU per
 * update of this process and of the test database (the embedded one, or BENCH_DB_DIR's; otherwise only ours).
 * The HTTP layer is the same with and without, so it is left out: the ratio is the audit's own.
 */
import { ADMIN_TOKEN_ACTOR } from '../../shared/domain/roles.js';
import { auditedChange } from '../../shared/usecases/admin/audit.usecase.js';
import { createApplicationFromAdmin } from '../../shared/usecases/admin/applications.usecase.js';
import { createCampaign, updateCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import { withCpu } from './cpu.js';
import { log, median, pct, ROUNDS, SECONDS, startStack } from './stack.js';

const CONCURRENCY = 4;

export async function auditBench(): Promise<string[]> {
  const stack = await startStack({});
  try {
    const { services } = stack;
    const app = (await createApplicationFromAdmin(services, { name: 'Audit bench' })) as { id: string };
    const campaigns = (await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        createCampaign(services, app.id, { name: `c${i}`, code: `AUDIT${i}`, discount: { kind: 'discount', type: 'flat', value: 1 } }),
      ),
    )) as { id: string }[];
    let n = 0;
    const update = (campaignId: string) => updateCampaign(services, app.id, campaignId, { name: `renamed ${n++}` });
    const audited = (campaignId: string) =>
      auditedChange(services, ADMIN_TOKEN_ACTOR, { type: 'campaign', verb: 'update', id: campaignId, application: app.id }, () =>
        update(campaignId),
      );
    const database = stack.databaseCpu;
    /** Updates for SECONDS with CONCURRENCY at once (one campaign each, as operators at work). */
    const timed = async (run: (campaignId: string) => Promise<unknown>) => {
      let done = 0;
      const until = Date.now() + SECONDS * 1000;
      const { cpu } = await withCpu(database ? { database } : {}, () =>
        Promise.all(
          campaigns.map(async (c) => {
            while (Date.now() < until) {
              await run(c.id);
              done++;
            }
          }),
        ),
      );
      const perSecond = done / SECONDS;
      const cpuMs = Object.fromEntries(Object.entries(cpu.groups).map(([g, cores]) => [g, (cores * 1000) / perSecond]));
      return { perSecond, cpuMs };
    };
    await timed(audited); // warm-up: indexes, caches, JIT
    const plain: Awaited<ReturnType<typeof timed>>[] = [];
    const withAudit: typeof plain = [];
    for (let r = 0; r < ROUNDS; r++) {
      plain.push(await timed(update));
      withAudit.push(await timed(audited));
      log(`round ${r + 1}/${ROUNDS}: ${plain.at(-1)!.perSecond.toFixed(0)} vs ${withAudit.at(-1)!.perSecond.toFixed(0)} updates/s`);
    }
    const summary = (rs: typeof plain) => {
      const groups = Object.keys(rs[0]!.cpuMs);
      const cpu = Object.fromEntries(groups.map((g) => [g, median(rs.map((x) => x.cpuMs[g]!))]));
      return { perSecond: median(rs.map((x) => x.perSecond)), cpu, total: Object.values(cpu).reduce((a, b) => a + b, 0) };
    };
    const [a, b] = [summary(plain), summary(withAudit)];
    const fmt = (s: typeof a) =>
      `${Object.entries(s.cpu)
        .map(([g, ms]) => `${g} ${ms.toFixed(2)}`)
        .join(', ')}; total ${s.total.toFixed(2)} ms`;
    return [
      '',
      `| campaign update (${CONCURRENCY} at once, median of ${ROUNDS} rounds of ${SECONDS} s) | updates/s | CPU per update |`,
      '|---|---|---|',
      `| without the audit log | ${a.perSecond.toFixed(0)} | ${fmt(a)} |`,
      `| with the audit log | ${b.perSecond.toFixed(0)} | ${fmt(b)} |`,
      '',
      `with / without: throughput ${pct(b.perSecond / a.perSecond)}, CPU per update ${pct(b.total / a.total)}` +
        (database ? '' : ' (this process only: no database processes found)'),
    ];
  } finally {
    await stack.stop();
  }
}
