/**
 * Mocha reporter for the lanes of `npm test` (scripts/test.ts): mocha's spec output on stdout,
 * and, rewritten as each spec file ends, a JSON file (path in LANE_RESULTS) with each file's
 * passes, failures (title and first error line) and wall time, so the runner can add the lanes
 * up and re-run files precisely.
 * CommonJS because mocha loads reporters with require().
 */
const { readFileSync, writeFileSync } = require('node:fs');
const Mocha = require('mocha');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_RUN_END } = Mocha.Runner.constants;

/**
 * CPU seconds of this lane's mocha process and of the children it has waited for (the API and
 * worker processes a spec file starts and stops), from /proc: what a file costs the machine, which
 * its wall time in a loaded run does not tell. 0 where /proc is absent.
 */
function cpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17 of proc(5), here 11-14 after the name.
    return fields.slice(11, 15).reduce((n, v) => n + Number(v), 0) / 100;
  } catch {
    return 0;
  }
}

/** The spec file a runnable or suite belongs to (hooks of the root suite have none). */
function fileOf(runnable) {
  for (let node = runnable; node; node = node.parent) if (node.file) return node.file;
  return '(root hooks)';
}

class LaneReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const files = {};
    const entry = (file) => (files[file] ??= { passed: 0, failed: 0, failures: [], ms: 0, cpu: 0, started: 0, cpuStarted: 0 });
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (!(suite.file && suite.parent && suite.parent.root)) return;
      entry(suite.file).started = Date.now();
      entry(suite.file).cpuStarted = cpuSeconds();
    });
    const write = () => {
      if (process.env.LANE_RESULTS)
        writeFileSync(
          process.env.LANE_RESULTS,
          JSON.stringify(files, (k, v) => (k === 'started' || k === 'cpuStarted' ? undefined : v), 1),
        );
    };
    // Written as each spec file ends, so a lane stopped midway still tells what finished.
    runner.on(EVENT_SUITE_END, (suite) => {
      if (!(suite.file && suite.parent && suite.parent.root)) return;
      entry(suite.file).ms += Date.now() - entry(suite.file).started;
      entry(suite.file).cpu = Math.round((entry(suite.file).cpu + cpuSeconds() - entry(suite.file).cpuStarted) * 10) / 10;
      write();
    });
    runner.on(EVENT_TEST_PASS, (test) => void entry(fileOf(test)).passed++);
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      const e = entry(fileOf(test));
      e.failed++;
      e.failures.push({ title: test.fullTitle(), error: String((err && err.message) || err).split('\n')[0] });
    });
    runner.once(EVENT_RUN_END, write);
  }
}

module.exports = LaneReporter;
