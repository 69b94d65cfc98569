/**
 * The exactness verifier's cost (docs/benchmarks.md, "Verifying exactness"):
 *
 *   npx tsx tools/bench/verify-bench.ts [--redemptions 1000000] [--keep]
 *
 * Writes a recorded database straight through bulk inserts — one application, 20 campaigns with
 * total, per-day and per-customer limits, `--redemptions` cycles (5% reverted, one in 50 orders
 * redeemed again after its revert) spread over 60 days and 50,000 customers, the counters they
 * make, and a wallet with one balance per 20 redemptions and four ledger entries each — then runs
 * the verifier (`npm run verify`'s code) in a process of its own, twice: once verifying, once only
 * connecting (the baseline), and prints the time and the peak RSS of each. MONGODB_URI when set,
 * else the offline test database (tools/testdb). `--keep` leaves the database for another run.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Types } from 'mongoose';
import { startEmbeddedServers, withDbName } from '../../scripts/embedded-servers.js';
import { connectDatabase } from '../../shared/data/db.js';
import { orderRef } from '../../shared/data/redemption-journal.repository.js';
import { periodKeys } from '../../shared/domain/periods.js';
import { CAMPAIGN_DEFAULTS } from '../../shared/domain/campaign-defaults.js';
import { createRepositories } from '../../shared/services.js';
import { verifyAllApplications } from '../../shared/usecases/verify-exactness.usecase.js';

const exec = promisify(execFile);
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const DAY_MS = 86_400_000;
const CAMPAIGNS = 20;
const CUSTOMERS = 50_000;
const BATCH = 5000;

/** In a process of its own: verifies (or only connects, `baseline`) and prints time and peak RSS as JSON. */
async function measure(uri: string, baseline: boolean) {
  const db = await connectDatabase(uri);
  const started = Date.now();
  let summary = {};
  if (!baseline) {
    const reports = await verifyAllApplications({ repos: createRepositories(db), now: () => new Date() }, { recheckMs: 0 });
    summary = {
      checked: reports[0]?.checked,
      discrepancies: reports.reduce((n, r) => n + r.discrepancyCount, 0),
      inFlight: reports.reduce((n, r) => n + r.inFlightCount, 0),
    };
  }
  const ms = Date.now() - started;
  await db.close();
  const cpu = process.cpuUsage();
  const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  process.stdout.write(`${JSON.stringify({ ms, cpuMs, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), ...summary })}\n`);
}

/** Writes the recorded database; returns its URI. */
async function generate(uri: string, redemptions: number) {
  const db = await connectDatabase(uri);
  const m = db.models;
  const app = new Types.ObjectId();
  const started = Date.now();
  await m.Application.collection.insertOne({
    _id: app,
    name: 'verify bench',
    timezone: 'UTC',
    currency: 'INR',
    apiKey: `bench-${app}`,
    secretHash: 'x',
    status: 'active',
  });
  const campaigns = Array.from({ length: CAMPAIGNS }, () => new Types.ObjectId());
  await m.Campaign.collection.insertMany(
    campaigns.map((id, i) => ({
      ...CAMPAIGN_DEFAULTS,
      _id: id,
      application: app,
      name: `bench ${i}`,
      codeType: 'fixed',
      code: `VB${i}`,
      validFrom: new Date('2020-01-01T00:00:00Z'),
      limits: { total: redemptions, perDay: redemptions, perCustomer: 1000 },
      discount: { kind: 'discount', type: 'flat', value: 100, maxCents: null, walletId: null },
    })),
  );
  const customers = Array.from({ length: CUSTOMERS }, () => new Types.ObjectId());
  const now = Date.now();
  const today = periodKeys(new Date(now), 'UTC');
  const campaignCounts = campaigns.map(() => ({ total: 0, d: 0, w: 0, m: 0 }));
  const customerCounts = new Map<string, number>();
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length) await m.Redemption.collection.insertMany(batch as never[], { ordered: false });
    batch = [];
  };
  for (let i = 0; i < redemptions;) {
    const c = i % CAMPAIGNS;
    const campaign = String(campaigns[c]);
    const customer = customers[Math.floor(Math.random() * CUSTOMERS)]!;
    const orderId = `order-${i}`;
    const at = new Date(now - Math.floor(Math.random() * 60 * DAY_MS));
    const periods = periodKeys(at, 'UTC');
    const counters = [campaign, `${campaign}:u:${customer}`];
    const reverted = i % 20 === 0;
    const again = reverted && i % 1000 === 0; // redeemed again after its revert: a second cycle
    for (let cycle = 1; cycle <= (again ? 2 : 1) && i < redemptions; cycle++, i++) {
      const key = `${campaign}:${orderRef(orderId)}:${cycle}`;
      const state = reverted && cycle === 1 ? 'reverted' : 'completed';
      batch.push({
        _id: key,
        application: app,
        campaign: campaigns[c],
        couponCode: null,
        customer,
        orderId,
        cycle,
        key,
        state,
        couponId: campaign,
        code: `VB${c}`,
        discountCents: 100,
        cashbackCents: 0,
        cashbackWallet: null,
        periods,
        counters,
        refusal: null,
        redeemJobId: `job-${i}`,
        revertJobId: state === 'reverted' ? `revert-${i}` : null,
        stack: null,
        att: { [randomBytes(6).toString('base64url')]: 'c' },
        createdAt: at,
        updatedAt: at,
      });
      if (state === 'completed') {
        const cc = campaignCounts[c]!;
        cc.total++;
        if (periods.day === today.day) cc.d++;
        if (periods.week === today.week) cc.w++;
        if (periods.month === today.month) cc.m++;
        customerCounts.set(counters[1]!, (customerCounts.get(counters[1]!) ?? 0) + 1);
      }
      if (batch.length >= BATCH) await flush();
    }
  }
  await flush();
  const cyclesDone = Date.now();
  const counterDocs: Record<string, unknown>[] = campaigns.map((id, c) => ({
    _id: String(id),
    application: app,
    campaign: id,
    kind: 'campaign',
    total: campaignCounts[c]!.total,
    d: { k: today.day, n: campaignCounts[c]!.d },
    w: { k: today.week, n: campaignCounts[c]!.w },
    m: { k: today.month, n: campaignCounts[c]!.m },
  }));
  for (const [id, n] of customerCounts)
    counterDocs.push({ _id: id, application: app, campaign: new Types.ObjectId(id.slice(0, 24)), kind: 'customer', total: n });
  for (let k = 0; k < counterDocs.length; k += BATCH)
    await m.LimitCounter.collection.insertMany(counterDocs.slice(k, k + BATCH) as never[], { ordered: false });
  // A wallet: one balance per 20 redemptions, each with four entries (credits 500, 300, debit 200, credit 100).
  const wallet = new Types.ObjectId();
  const balances = Math.ceil(redemptions / 20);
  const moves = [500, 300, -200, 100];
  let entries: Record<string, unknown>[] = [];
  let docs: Record<string, unknown>[] = [];
  for (let b = 0; b < balances; b++) {
    const customer = new Types.ObjectId();
    const id = `${app}:${customer}:${wallet}`;
    let points = 0;
    moves.forEach((move, v) => {
      entries.push({
        _id: `${id}:${v}`,
        application: app,
        wallet,
        customer,
        txnId: `txn-${b}-${v}`,
        type: move > 0 ? 'credit' : 'debit',
        points: Math.abs(move),
        seq: v,
        before: points,
        after: points + move,
        description: '',
        state: 'posted',
        origin: 'api',
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      points += move;
    });
    docs.push({ _id: id, application: app, wallet, customer, points, version: moves.length, updatedAt: new Date() });
    if (docs.length >= BATCH / 4) {
      await m.WalletBalance.collection.insertMany(docs as never[], { ordered: false });
      await m.WalletTransaction.collection.insertMany(entries as never[], { ordered: false });
      [docs, entries] = [[], []];
    }
  }
  if (docs.length) {
    await m.WalletBalance.collection.insertMany(docs as never[], { ordered: false });
    await m.WalletTransaction.collection.insertMany(entries as never[], { ordered: false });
  }
  await db.close();
  process.stderr.write(
    `verify-bench: wrote ${redemptions} cycles in ${((cyclesDone - started) / 1000).toFixed(0)} s, ` +
      `${counterDocs.length} counters, ${balances} balances with ${balances * moves.length} entries; ${((Date.now() - started) / 1000).toFixed(0)} s in all\n`,
  );
}

async function main() {
  if (process.argv[2] === 'measure') return measure(arg('mongodb-uri', ''), process.argv.includes('--baseline'));
  const redemptions = Number(arg('redemptions', '1000000'));
  const servers = await startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL ?? 'redis://unused' });
  const uri = withDbName(servers.mongodbUri, `verify_bench_${redemptions}`);
  try {
    const probe = await connectDatabase(uri);
    const existing = await probe.models.Redemption.collection.estimatedDocumentCount();
    await probe.close();
    if (existing < redemptions) await generate(uri, redemptions);
    const run = async (baseline: boolean) => {
      const { stdout } = await exec(
        'node',
        ['--import', 'tsx', 'tools/bench/verify-bench.ts', 'measure', '--mongodb-uri', uri, ...(baseline ? ['--baseline'] : [])],
        {
          maxBuffer: 1 << 20,
        },
      );
      return JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number; maxRssMb: number };
    };
    const base = await run(true);
    const verified = await run(false);
    process.stdout.write(`${JSON.stringify({ redemptions, baseline: base, verify: verified })}\n`);
  } finally {
    if (!process.argv.includes('--keep')) {
      const db = await connectDatabase(uri);
      await db.connection.dropDatabase();
      await db.close();
    }
    await servers.stop();
  }
}

await main();
