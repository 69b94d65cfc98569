/**
 * `npm run bench [-- <mode>]` (docs/benchmarks.md). Every mode starts its own stack (MONGODB_URI /
 * REDIS_URL when set, embedded servers otherwise), measures against a baseline measured in the
 * same run, prints progress on stderr and its tables on stdout, and exits.
 *   endpoints (default)  each route vs the baseline and the no-op job, 1 and 2 workers, webhooks
 *   cost                 redeem and wallet credit against the no-op job: CPU per operation @64, p50/p99 @1, beside the figures before issue 45's changes
 *   ratelimit            validate with a rate limit never reached vs without (the endpoints phase alone)
 *   partitions           16 vs 64 partitions, 1 and 2 workers
 *   flash                the flash sale (100,000 redemptions) and a limit-exhaustion run
 *   flash-budget         the flash sale on a money budget vs the count-limited coupon, blocks interleaved
 *   replicas             1 vs 2 workers (1 API) and 1 vs 2 APIs (2 workers) at the same offered rate: CPU per operation of all processes
 *   recording            redeem with one webhook endpoint (events recorded, not delivered) vs without, at the same offered rate
 *   cluster              on a Redis Cluster (3 primaries + 3 replicas): 1, 2, 3 workers, 1 vs 2 APIs
 *   events               the test database's CPU per statement of the event path
 *   audit                a campaign update without and with the audit log (updates/s, CPU per update)
 *   console              the promotions console's pages' server times with 10,000 campaigns
 *   expiry               1,000,000 point buckets falling due at once: time to expire, loads meanwhile (docs/wallets.md)
 *   stacking             validate and redeem of 3 coupons vs 1, the best deal over 20 candidates vs a validate: CPU per request of all processes
 *   tiers                100,000 customers' tier re-assessments falling due at one month end: time, CPU per customer, redeems meanwhile
 *   earning              an order reported completed (points earned by the wallet's rules) vs a plain wallet credit, at the same offered rate
 *   results              a redeem with and without campaign results' counters (same offered rate); the results pages with 1,000,000 redemptions
 *   backtest             a validate with and without its cart recorded (same offered rate); a backtest over 1,000,000 recorded carts
 *   idle                 what an idle API and an idle worker (64 and 16 partitions, owners off and on) cost per second: CPU of all processes, Redis commands
 * BENCH_SECONDS (default 10) sets each timed measurement's length.
 */
import { cpus } from 'node:os';
import { auditBench } from './audit.js';
import { clusterBench } from './cluster.js';
import { consoleBench } from './console.js';
import { costBench } from './cost.js';
import { expiryBench } from './expiry.js';
import { endpointsBench, rateLimitBench } from './endpoints.js';
import { earningBench } from './earning.js';
import { tiersBench } from './tiers.js';
import { eventsBench } from './events.js';
import { flashBench } from './flash.js';
import { flashBudgetBench } from './flash-budget.js';
import { idleBench } from './idle.js';
import { partitionsBench } from './partitions.js';
import { recordingBench } from './recording.js';
import { resultsBench } from './results.js';
import { backtestBench } from './backtest.js';
import { replicasBench } from './replicas.js';
import { stackingBench } from './stacking.js';
import { log, SECONDS } from './stack.js';

const MODES: Record<string, () => Promise<string[]>> = {
  endpoints: endpointsBench,
  ratelimit: rateLimitBench,
  cost: costBench,
  partitions: partitionsBench,
  replicas: replicasBench,
  recording: recordingBench,
  flash: flashBench,
  'flash-budget': flashBudgetBench,
  cluster: clusterBench,
  events: eventsBench,
  audit: auditBench,
  console: consoleBench,
  expiry: expiryBench,
  stacking: stackingBench,
  earning: earningBench,
  tiers: tiersBench,
  idle: idleBench,
  results: resultsBench,
  backtest: backtestBench,
};

async function main() {
  const mode = process.argv[2] ?? 'endpoints';
  const run = MODES[mode];
  if (!run) throw new Error(`unknown mode ${mode}: one of ${Object.keys(MODES).join(', ')}`);
  log(`bench ${mode}: ${cpus().length} cores, ${SECONDS} s per timed measurement`);
  process.stdout.write(`${(await run()).join('\n')}\n`);
}

// No process.exit on success: every mode closes what it opened, so the process ends by itself.
main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
