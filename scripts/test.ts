/**
 * `npm test`: the whole suite, in parallel lanes.
 *
 * Each lane is one mocha process over a share of the spec files (its own database and queue
 * prefix: test/support/context.ts), so the suites that mostly wait — real outages, SIGKILLed
 * processes, a Redis Cluster failing over — overlap with the ones that compute. The lane plan
 * comes from what the files need (`plan`): the fault scenarios, which time recoveries of real
 * processes, in lanes of their own (at most three at once), every other file in lanes sized to
 * end with them; longest first, by the wall times in test/durations.json (`--save-durations`
 * rewrites it from a run). TEST_LANES sets the total by hand. The servers are started once here
 * when MONGODB_URI / REDIS_URL are unset (scripts/embedded-servers.ts) and handed to every lane;
 * the service is compiled once into tsx's cache, which every lane shares.
 *
 * The offline test database's PostgreSQL can die under concurrent writes (a SIGSEGV in Debian's
 * RUM 1.3.13: docs/testing.md). When its log shows such a crash, every lane is stopped, and the
 * files that had not finished without a failure run once more, in lanes, on a new test database;
 * the run says so. Without that evidence nothing is re-run.
 *
 * With arguments (`npm test -- test/api/list.spec.ts`), it is plain mocha in one process.
 * `--repeat N` runs the suite (or the files given) N times, one line per run and a summary: the
 * proof that it passes every time, not once. `--lanes FILE|FOLDER…` runs only those spec files,
 * in lanes by the same plan. Ends with "N passed, M failed"; exits non-zero on
 * any failure.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { SERVICE_BUILD_ENV, buildServiceForProcesses } from './service-build.js';
import { buildConsoleIfStale } from './console-build.js';
import { lincheckBinary } from './lincheck-build.js';
import { startEmbeddedServers, startTestDatabase, stopTestDatabase } from './embedded-servers.js';

interface FileResult {
  passed: number;
  failed: number;
  failures: { title: string; error: string }[];
  ms: number;
  /** CPU seconds of the lane's mocha process and the processes it started (lane-reporter.cjs). */
  cpu?: number;
}
type Results = Record<string, FileResult>;

const repoRoot = resolve(import.meta.dirname, '..');
const durationsFile = join(repoRoot, 'test', 'durations.json');
const reporter = join(repoRoot, 'test', 'support', 'lane-reporter.cjs');
const mochaBin = join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
/** PostgreSQL's words for a backend that died of a segmentation fault. */
const CRASH = /terminated by signal 11/;

/**
 * Lanes running now. Each has its own process group, which a Ctrl-C at the terminal does not
 * reach: the first SIGINT or SIGTERM stops them and the run ends as usual (cleaning up); a second
 * one exits at once.
 */
const running = new Set<{ results: Promise<Results>; stop(): void }>();
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    for (const lane of running) lane.stop();
  });
}

const { values: options, tokens } = parseArgs({
  options: { 'save-durations': { type: 'boolean' }, repeat: { type: 'string' }, lanes: { type: 'boolean' } },
  strict: false,
  tokens: true,
});
const saveDurations = options['save-durations'] === true;
const repeat = Number(options.repeat ?? 1);
if (!Number.isInteger(repeat) || repeat < 1) {
  process.stderr.write(`npm test: --repeat takes a whole number of runs (got ${String(options.repeat)})\n`);
  process.exit(2);
}
// Everything else is mocha's (files, -g, ...), in the order given: drop our options' words.
const ours = new Set<number>();
for (const t of tokens) {
  if (t.kind !== 'option' || !['repeat', 'save-durations', 'lanes'].includes(t.name)) continue;
  ours.add(t.index);
  if (t.value !== undefined && !t.inlineValue) ours.add(t.index + 1); // `--repeat 3`
}
const mochaArgs = process.argv.slice(2).filter((_, i) => !ours.has(i));
// `--lanes test/chaos test/cluster`: those files or folders, in lanes by the same plan as the whole suite.
const laneSelection = options.lanes === true ? mochaArgs : undefined;

/** Plain mocha in one process (files and options as given), output as it comes. */
function runMochaInherited(argv: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [mochaBin, ...argv], { stdio: 'inherit', cwd: repoRoot });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function runLanes(selection?: string[]): Promise<number> {
  const files = specFiles().filter((f) => !selection?.length || selection.some((s) => f.startsWith(resolve(repoRoot, s))));
  const laneCount = Number(process.env.TEST_LANES) || undefined;
  const servers = await startEmbeddedServers({ mongodbUri: process.env.MONGODB_URI, redisUrl: process.env.REDIS_URL });
  const databaseLog = process.env.TESTDB_LOG ?? servers.databaseLog;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URI: servers.mongodbUri,
    REDIS_URL: servers.redisUrl,
    ...(databaseLog ? { TESTDB_LOG: databaseLog } : {}),
  };
  const work = mkdtempSync(join(tmpdir(), 'coupons-test-lanes-'));
  chmodSync(work, 0o755); // the lanes' temporary directories hold test databases run as `postgres`
  const started = Date.now();
  try {
    await warmCompileCache(env);
    const build = await buildServiceForProcesses(repoRoot);
    env[SERVICE_BUILD_ENV] = build.dir;
    say(`transpiled the service for the processes the tests start (.test-build/) in ${build.seconds.toFixed(1)} s`);
    // Once, before the lanes: the browser test and the dev server's test would otherwise both
    // build it into the same folder at the same time.
    const consoleBuild = buildConsoleIfStale(say);
    if (consoleBuild.state === 'missing') say(`the console is ${consoleBuild.why} (its tests will fail)`);
    // The linearizability checker (tools/lincheck), once: the fault lanes would each build it at their first scenario.
    try {
      const t0 = Date.now();
      lincheckBinary();
      say(`built the linearizability checker (tools/lincheck) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } catch (err) {
      say(`the linearizability checker could not be built: ${(err as Error).message.split('\n')[0]} (the fault tests will fail)`);
    }
    const first = await runRound('lane', files, laneCount, env, databaseLog, work);
    const results = first.results;
    if (first.crash && !interrupted) {
      // What ran to the end without a failure stands; the rest runs again on a new database.
      for (const key of Object.keys(results)) if (!key.endsWith('.spec.ts')) delete results[key];
      const again = files.filter((f) => !(results[f] && results[f].failed === 0));
      say(`the test database crashed (docs/testing.md, "The stand-in's crash"):\n  ${first.crash.join('\n  ')}`);
      say(
        `${files.length - again.length} file(s) had finished without a failure; re-running the other ${again.length} on a new test database`,
      );
      const fresh = await startTestDatabase();
      try {
        const second = await runRound(
          're-run lane',
          again,
          laneCount,
          { ...env, MONGODB_URI: fresh.url, TESTDB_LOG: fresh.log },
          fresh.log,
          work,
        );
        Object.assign(results, second.results);
        if (second.crash) say(`the new test database crashed too; its failures stand:\n  ${second.crash.join('\n  ')}`);
      } finally {
        await fresh.stop();
      }
    }
    if (interrupted) {
      say('interrupted');
      return 130;
    }
    if (saveDurations) saveDurationsOf(results);
    return summarise(results, (Date.now() - started) / 1000);
  } finally {
    rmSync(work, { recursive: true, force: true });
    await servers.stop();
  }
}

/**
 * Runs `files` in lanes. When `crashLog` (the test database's PostgreSQL log) shows a backend
 * killed by SIGSEGV, every lane is stopped at once: after that crash the recovered database can
 * spin on its indexes, and every later test would only wait out its timeout.
 */
async function runRound(
  name: string,
  files: string[],
  laneCount: number | undefined,
  env: NodeJS.ProcessEnv,
  crashLog: string | undefined,
  work: string,
): Promise<{ results: Results; crash?: string[] }> {
  const alone = files.filter((f) => needsOf(f) === 'alone');
  const lanes = plan(
    files.filter((f) => !alone.includes(f)),
    laneCount,
  );
  say(
    `${files.length} spec files in ${lanes.length} lanes: fault scenarios apart, at most ${FAULT_LANES} at once (test/durations.json)` +
      (alone.length ? `; then ${alone.length} that start a Redis Cluster, on their own` : ''),
  );
  const runs = lanes.map((lane, i) => runMocha(`${name} ${i + 1}`, lane, env, work));
  const logOffset = crashLog && existsSync(crashLog) ? statSync(crashLog).size : 0;
  const crashLines = () => (crashLog ? crashLinesSince(crashLog, logOffset) : []);
  const watch = setInterval(() => {
    if (crashLines().length > 0) for (const run of runs) run.stop();
  }, 1000);
  const results: Results = Object.assign({}, ...(await Promise.all(runs.map((r) => r.results))));
  if (alone.length && crashLines().length === 0 && !interrupted) {
    const last = runMocha(`${name} ${runs.length + 1} (Redis Cluster)`, alone, env, work);
    runs.push(last);
    Object.assign(results, await last.results);
  }
  clearInterval(watch);
  const lines = crashLines();
  return { results, crash: lines.length > 0 ? lines : undefined };
}

/** Every `*.spec.ts` under test/, sorted (absolute paths, as mocha reports them). */
function specFiles(): string[] {
  return readdirSync(join(repoRoot, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => join(repoRoot, 'test', f))
    .sort();
}

/** tsx's cache of compiled files on this machine (node_modules/tsx: `$TMPDIR/tsx-<uid>`). */
const sharedTsxCache = join(tmpdir(), `tsx-${process.getuid?.() ?? 0}`);

/**
 * Compiles the service and the test support once, into tsx's cache, before the lanes start: on a
 * fresh machine every lane and every process they start would otherwise compile the same files at
 * the same moment, on two cores, while the first fault scenarios time their recoveries.
 */
async function warmCompileCache(env: NodeJS.ProcessEnv): Promise<void> {
  mkdirSync(sharedTsxCache, { recursive: true });
  const modules = ['api/app.ts', 'worker/processors/index.ts', 'worker/worker-pool.ts', 'worker/webhook-worker.ts', 'worker/ops-server.ts'];
  const started = Date.now();
  await new Promise<void>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', modules.map((m) => `await import(${JSON.stringify(join(repoRoot, m))});`).join('')],
      { cwd: repoRoot, env: { ...env, TMPDIR: tmpdir() }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.once('exit', () => resolve());
  });
  say(`compiled the service into tsx's cache in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * What a spec file needs, read from what it imports: `alone` — it starts a Redis Cluster (six
 * nodes, two APIs, three workers) and times its failovers and bursts: it runs after every lane has
 * finished, with the machine to itself — beside seven lanes on two cores its processes could take
 * two minutes to start and its bursts of 200 forty times their time alone (CI runs of 2026-11-28,
 * docs/testing.md); `faults` — it times faults and recoveries of real processes (the chaos
 * scenarios), so it must not share the machine with many others like it; `other` — everything
 * else (in-process tests, and service processes that are not timed against a fault).
 */
function needsOf(file: string): 'alone' | 'faults' | 'other' {
  const text = readFileSync(file, 'utf8');
  if (/cluster-topology\.js'/.test(text)) return 'alone';
  return /from '\.\/support\/(scenario|run)\.js'/.test(text) ? 'faults' : 'other';
}

/**
 * At most this many fault scenarios run at once. Each starts its own Redis, database and service
 * processes and bounds its recovery by what it measured before the fault; three at a time beside
 * the rest of the suite held on two cores with two busy loops running too (docs/testing.md).
 */
const FAULT_LANES = 3;

/**
 * The lane plan: fault scenarios in lanes of their own (at most {@link FAULT_LANES} at once: dealt
 * in order, longest first, never two of them in one lane at the same time as elsewhere), then every
 * other file onto the least loaded lane of those and of as many more as make the whole end together
 * (at most 4 more).
 * `laneCount` (TEST_LANES) overrides the total for a run by hand. Durations come from
 * test/durations.json (a new file counts as the median).
 */
function plan(files: string[], laneCount: number | undefined): string[][] {
  const known: Record<string, number> = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
  const values = Object.values(known).sort((a, b) => a - b);
  const median = values[Math.floor(values.length / 2)] ?? 1;
  const weight = (f: string) => known[rel(f)] ?? median;
  const faults = files.filter((f) => needsOf(f) === 'faults');
  const others = files.filter((f) => needsOf(f) === 'other');
  const sum = (list: string[]) => list.reduce((n, f) => n + weight(f), 0);
  let faultLanes = Math.min(FAULT_LANES, faults.length);
  let otherLanes = Math.min(4, Math.max(1, Math.round(sum(others) / Math.max(1, sum(faults) / Math.max(1, faultLanes)))));
  if (laneCount) {
    faultLanes = Math.min(faultLanes, Math.max(1, Math.floor(laneCount / 2)));
    otherLanes = Math.max(1, laneCount - faultLanes);
  }
  // The fault lanes first, then every other file onto whichever lane, fault lanes included, has the
  // least work so far: a fault lane takes light files after its fault files instead of ending early
  // while the other lanes still queue for both cores (measured: all lanes busy the whole run).
  const faultLaneList = deal(faults, newLanes(faultLanes));
  const all = deal(others, [...faultLaneList, ...newLanes(otherLanes)]);
  return all.map((lane) => lane.files).filter((files) => files.length > 0);

  function newLanes(count: number): Lane[] {
    return Array.from({ length: Math.max(0, count) }, () => ({ files: [], load: 0 }));
  }
  /** Longest first onto the least loaded lane; each lane runs its files in the order dealt. */
  function deal(dealt: string[], lanes: Lane[]): Lane[] {
    if (lanes.length === 0 && dealt.length > 0) lanes = newLanes(1);
    for (const file of [...dealt].sort((a, b) => weight(b) - weight(a))) {
      const lane = lanes.reduce((a, b) => (b.load < a.load ? b : a));
      lane.files.push(file);
      lane.load += weight(file);
    }
    return lanes;
  }
}

interface Lane {
  files: string[];
  load: number;
}

/**
 * One mocha process over `files`, in a process group of its own and with its own TMPDIR, so that
 * `stop()` ends it with everything it started (test databases included). Its spec output is
 * printed whole when it ends.
 */
function runMocha(name: string, files: string[], env: NodeJS.ProcessEnv, work: string): { results: Promise<Results>; stop(): void } {
  const slug = name.replace(/\W+/g, '-');
  const resultsPath = join(work, `${slug}.json`);
  const tmp = join(work, slug);
  mkdirSync(tmp, { mode: 0o755 });
  // tsx keeps its compiled files in $TMPDIR/tsx-<uid>: every lane, and every process a lane
  // starts, shares the machine's one (warmed before the lanes start) instead of compiling the
  // whole service again in each lane.
  symlinkSync(sharedTsxCache, join(tmp, basename(sharedTsxCache)));
  const child = spawn(process.execPath, [mochaBin, '--reporter', reporter, ...files], {
    cwd: repoRoot,
    env: { ...env, LANE_RESULTS: resultsPath, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => output.push(c));
  child.stderr!.on('data', (c: Buffer) => output.push(c));
  const started = Date.now();
  let stopped = false;
  const results = new Promise<Results>((done) => {
    child.once('close', async (code, signal) => {
      if (stopped) await stopTestDatabasesUnder(tmp);
      const seconds = Math.round((Date.now() - started) / 1000);
      const how = stopped ? 'stopped' : `exit ${code ?? signal}`;
      process.stdout.write(`\n===== ${name}: ${files.length} file(s), ${seconds} s, ${how} =====\n`);
      process.stdout.write(Buffer.concat(output));
      // What a failing lane's tests kept (a failed chaos scenario keeps its processes' logs and
      // every exchange) outlives the run's temporary directory.
      if (code !== 0) {
        const kept = join(tmpdir(), 'coupons-test-kept', `${new Date().toISOString().replace(/[:.]/g, '-')}-${slug}`);
        mkdirSync(dirname(kept), { recursive: true });
        renameSync(tmp, kept);
        process.stdout.write(`(this lane's temporary files are kept in ${kept})\n`);
      }
      // The reporter rewrites the file as each spec file ends: a stopped lane keeps what finished.
      const results: Results = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {};
      for (const file of files) results[file] ??= lost(file);
      if (code !== 0 && !Object.values(results).some((r) => r.failed > 0)) {
        results[`(${name}: mocha exited ${code ?? signal})`] = {
          passed: 0,
          failed: 1,
          failures: [{ title: name, error: `mocha ${how}` }],
          ms: 0,
        };
      }
      done(results);
    });
  });
  const stop = () => {
    if (stopped || child.exitCode !== null || child.signalCode !== null) return;
    stopped = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const lane = { results, stop };
  running.add(lane);
  void results.then(() => running.delete(lane));
  return lane;
}

/** Stops every tools/testdb cluster a stopped lane left under its TMPDIR (they run as `postgres`). */
async function stopTestDatabasesUnder(tmp: string): Promise<void> {
  const dirs = readdirSync(tmp, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(join('pgdata', 'postmaster.pid')))
    .map((f) => join(tmp, f, '..', '..'));
  for (const dir of dirs) await stopTestDatabase(dir).catch(() => undefined);
}

function lost(file: string): FileResult {
  return { passed: 0, failed: 1, failures: [{ title: rel(file), error: 'reported no results (its mocha process ended first)' }], ms: 0 };
}

/** The PostgreSQL log's crash lines written after `offset`. */
function crashLinesSince(log: string, offset: number): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log)
    .subarray(offset)
    .toString('utf8')
    .split('\n')
    .filter((line) => CRASH.test(line));
}

function saveDurationsOf(results: Results): void {
  const durations: Record<string, number> = {};
  for (const [file, r] of Object.entries(results).sort(([a], [b]) => a.localeCompare(b))) {
    if (file.endsWith('.spec.ts')) durations[rel(file)] = Math.round(r.ms / 100) / 10;
  }
  writeFileSync(durationsFile, `${JSON.stringify(durations, null, 2)}\n`);
  say(`wrote ${relative(process.cwd(), durationsFile)}`);
}

function summarise(results: Results, seconds: number): number {
  const all = Object.entries(results);
  const passed = all.reduce((n, [, r]) => n + r.passed, 0);
  const failed = all.reduce((n, [, r]) => n + r.failed, 0);
  const failures = all.flatMap(([file, r]) => r.failures.map((f) => `  ${rel(file)}: ${f.title}\n      ${f.error}`));
  if (failures.length > 0) process.stdout.write(`\nFailed:\n${failures.join('\n')}\n`);
  // What the files cost the machine (the lanes' processes and what they started; not the shared
  // database and Redis): on two cores the suite's wall time follows this sum more than the plan.
  const cpu = all.reduce((n, [, r]) => n + (r.cpu ?? 0), 0);
  const dearest = all
    .filter(([, r]) => r.cpu !== undefined)
    .sort(([, a], [, b]) => b.cpu! - a.cpu!)
    .slice(0, 6)
    .map(([file, r]) => `${rel(file)} ${r.cpu!.toFixed(0)} s`);
  process.stdout.write(`\n${all.length} files, ${Math.round(seconds)} s; CPU ${Math.round(cpu)} s, most: ${dearest.join(', ')}\n`);
  writeCostsOf(results);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

/** Every file's wall and CPU seconds, dearest first, in test-results/cost.json (not committed). */
function writeCostsOf(results: Results): void {
  const costs = Object.entries(results)
    .map(([file, r]) => ({
      file: rel(file),
      seconds: Math.round(r.ms / 100) / 10,
      cpu: r.cpu === undefined ? null : Math.round(r.cpu * 10) / 10,
    }))
    .sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0));
  mkdirSync(join(repoRoot, 'test-results'), { recursive: true });
  writeFileSync(join(repoRoot, 'test-results', 'cost.json'), `${JSON.stringify(costs, null, 2)}\n`);
}

function rel(file: string): string {
  return file.startsWith(repoRoot) ? relative(repoRoot, file) : file;
}

function say(line: string): void {
  process.stdout.write(`npm test: ${line}\n`);
}

// Last: everything above is declared by now.
const runs: { exit: number; seconds: number }[] = [];
for (let i = 1; i <= repeat && !interrupted; i++) {
  const started = Date.now();
  const exit = laneSelection || mochaArgs.length === 0 ? await runLanes(laneSelection) : await runMochaInherited(mochaArgs);
  runs.push({ exit, seconds: (Date.now() - started) / 1000 });
  if (repeat > 1) say(`run ${i}/${repeat}: ${exit === 0 ? 'green' : `red (exit ${exit})`}, ${Math.round(runs.at(-1)!.seconds)} s`);
}
if (repeat > 1) {
  const green = runs.filter((r) => r.exit === 0).length;
  say(
    `${runs.length} run(s): ${green} green, ${runs.length - green} red; wall ${runs.map((r) => `${Math.round(r.seconds)} s`).join(', ')}`,
  );
}
process.exitCode = runs.every((r) => r.exit === 0) && runs.length === repeat ? 0 : 1;
