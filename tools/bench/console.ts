/**
 * `npm run bench -- console`: what the promotions console's pages cost the server with an
 * application of 10,000 campaigns (docs/console.md, docs/benchmarks.md). Each page view is the
 * admin API calls the page makes — a campaigns page is its list call and one usage call per row
 * shown — timed from this process over loopback against an API process, one request at a time
 * (a person's browser, not a load test): p50 and p95 of each call over BENCH_CONSOLE_VIEWS views
 * (default 30), and the page view's total. The first page and a page 9,950 rows deep (cursor
 * paging: the same cost), codes of a campaign with 10,000 codes, the redemption search, the audit log.
 */
import { randomBytes } from 'node:crypto';
import { createApplicationFromAdmin } from '../../shared/usecases/admin/applications.usecase.js';
import { addBulkCodes, createCampaign } from '../../shared/usecases/admin/campaigns.usecase.js';
import { log, startStack } from './stack.js';

const CAMPAIGNS = Number(process.env.BENCH_CONSOLE_CAMPAIGNS ?? 10_000);
const VIEWS = Number(process.env.BENCH_CONSOLE_VIEWS ?? 30);
const PAGE = 50; // what the console's pages ask for

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

export async function consoleBench(): Promise<string[]> {
  const adminToken = randomBytes(24).toString('hex');
  const stack = await startStack({ ADMIN_TOKEN: adminToken });
  try {
    const { services } = stack;
    const app = (await createApplicationFromAdmin(services, { name: 'Console bench' })) as { id: string };
    log(`creating ${CAMPAIGNS} campaigns…`);
    const started = Date.now();
    for (let i = 0; i < CAMPAIGNS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, CAMPAIGNS - i) }, (_, j) =>
          createCampaign(services, app.id, {
            name: `Campaign ${i + j}`,
            code: `C${i + j}`,
            limits: { total: 1000, per_day: 100 },
            discount: { kind: 'discount', type: 'percentage', value: 10 },
          }),
        ),
      );
    }
    const bulk = (await createCampaign(services, app.id, {
      name: 'Bulk',
      code_type: 'bulk',
      discount: { kind: 'discount', type: 'flat', value: 5 },
    })) as { id: string };
    await addBulkCodes(services, app.id, bulk.id, { generate: { count: 10_000 } });
    log(`  data in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const { url } = await stack.startApi({ ADMIN_TOKEN: adminToken });
    const headers = { authorization: `Bearer ${adminToken}` };
    const get = async (path: string) => {
      const t = performance.now();
      const res = await fetch(`${url}/admin${path}`, { headers });
      const body = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - t, body };
    };
    const base = `/applications/${app.id}`;
    // The cursor of a page 9,950 rows in: followed once, as "Load more" would.
    let deepCursor: string | null = null;
    for (let seen = 0; seen < CAMPAIGNS - PAGE;) {
      const limit = Math.min(500, CAMPAIGNS - PAGE - seen);
      const { body } = await get(`${base}/campaigns?limit=${limit}${deepCursor ? `&cursor=${deepCursor}` : ''}`);
      deepCursor = body.next_cursor as string;
      seen += limit;
    }

    /** A page view: its list call, then (for campaigns) one usage call per row, as the page makes them (6 at once: a browser's per-host limit). */
    const views: Record<string, { calls: Record<string, number[]>; totals: number[] }> = {};
    const view = async (name: string, list: string, rowCalls?: (body: Record<string, unknown>) => string[]) => {
      const v = (views[name] ??= { calls: {}, totals: [] });
      const t = performance.now();
      const first = await get(list);
      (v.calls['list'] ??= []).push(first.ms);
      const rows = rowCalls?.(first.body) ?? [];
      for (let i = 0; i < rows.length; i += 6) {
        const done = await Promise.all(rows.slice(i, i + 6).map(get));
        (v.calls['usage (each row)'] ??= []).push(...done.map((d) => d.ms));
      }
      v.totals.push(performance.now() - t);
    };
    const usageOf = (body: Record<string, unknown>) => (body.campaigns as { id: string }[]).map((c) => `${base}/campaigns/${c.id}/usage`);
    for (let i = 0; i < 3; i++) await view('warm-up', `${base}/campaigns?limit=${PAGE}`, usageOf);
    delete views['warm-up'];
    for (let i = 0; i < VIEWS; i++) {
      await view('applications', `/applications?limit=${PAGE}`);
      await view('campaigns, first page (1 + 50 usage calls)', `${base}/campaigns?limit=${PAGE}`, usageOf);
      await view('campaigns, a page 9,950 rows deep', `${base}/campaigns?limit=${PAGE}&cursor=${deepCursor}`, usageOf);
      await view('codes (10,000 in the campaign)', `${base}/campaigns/${bulk.id}/codes?limit=${PAGE}`);
      await view('redemptions search', `${base}/redemptions?limit=${PAGE}`);
      await view('audit log of the application', `/audit?application=${app.id}&limit=${PAGE}`);
    }
    const lines = [
      '',
      `Console pages with ${CAMPAIGNS} campaigns (${VIEWS} views each, one at a time):`,
      '',
      '| page view | call | p50 ms | p95 ms | page total p50 ms | p95 ms |',
      '|---|---|---|---|---|---|',
    ];
    for (const [name, v] of Object.entries(views)) {
      Object.entries(v.calls).forEach(([call, ms], i) => {
        const total = i === 0 ? `${quantile(v.totals, 0.5).toFixed(1)} | ${quantile(v.totals, 0.95).toFixed(1)}` : ' | ';
        lines.push(`| ${i === 0 ? name : ''} | ${call} | ${quantile(ms, 0.5).toFixed(1)} | ${quantile(ms, 0.95).toFixed(1)} | ${total} |`);
      });
    }
    return lines;
  } finally {
    await stack.stop();
  }
}
