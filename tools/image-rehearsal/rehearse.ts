/**
 * The closest honest stand-in for `docker build` + `docker compose up` on a machine without a
 * Docker daemon (docs/operations.md, "Rehearsing the image and compose without Docker"):
 *
 * 1. builds the image by executing the Dockerfile's own instructions (./dockerfile.ts), each stage
 *    in a fresh temporary root, this machine's node and npm standing in for node:20-slim;
 * 2. starts the API (the image's CMD) and the worker (compose's `command`) from the runtime
 *    stage's root only, with the environment compose gives them: the image's ENV, `.env` (made from
 *    .env.example with a random ADMIN_TOKEN, as the docs ask), then the x-app `environment` —
 *    MONGODB_URI and REDIS_URL pointed at the given database and Redis instead of `mongo`/`redis`;
 * 3. runs compose's health checks for both, loads the demo data as the README says, and checks the
 *    console, an operator's sign-in, /docs and a client validate and redeem;
 * 4. stops both with SIGTERM (compose's `stop_grace_period`), prints a report with the time of
 *    every step, and exits 1 if anything failed. Whatever it started is ended on any exit.
 *
 * Usage (tools/image-rehearsal/run.sh): MONGODB_URI=… REDIS_URL=… run.sh [--git REF] [--keep]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { parse as parseYaml } from 'yaml';
import { buildImage, hostPath, type Stage, type StepTiming } from './dockerfile.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const args = process.argv.slice(2);
const keep = args.includes('--keep');
/** `--git REF`: the build context is REF's tree (a fresh clone's files) instead of the working tree. */
const gitRef = args.includes('--git') ? args[args.indexOf('--git') + 1] : undefined;
if (args.includes('--git') && !gitRef) {
  process.stderr.write('image-rehearsal: --git needs a commit (or any tree-ish)\n');
  process.exit(2);
}
const MONGODB_URI = process.env.MONGODB_URI;
const REDIS_URL = process.env.REDIS_URL;
if (!MONGODB_URI || !REDIS_URL) {
  process.stderr.write(
    'image-rehearsal: set MONGODB_URI and REDIS_URL (the database and Redis the stack uses instead of compose’s mongo and redis)\n',
  );
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping: steps with their times, and everything started, ended on any exit.

interface Step {
  name: string;
  seconds: number;
  ok: boolean;
  detail: string;
}
const steps: Step[] = [];
const timings: StepTiming[] = []; // the Dockerfile's instructions
const notes: string[] = [];
const started = new Set<number>(); // process group ids (every child is started detached)
const children: ChildProcess[] = [];
const id = randomBytes(4).toString('hex');
const workDir = mkdtempSync(join(tmpdir(), 'coupon-image-rehearsal-'));
const logDir = join(workDir, 'logs');
mkdirSync(logDir);
const say = (line: string) => process.stdout.write(`${line}\n`);

class StepFailed extends Error {}

/** Runs one step, timed; a failed check is recorded and the rehearsal goes on unless `critical`. */
async function step(name: string, run: () => Promise<string>, critical = false): Promise<boolean> {
  const t0 = Date.now();
  say(`▶ ${name}`);
  try {
    const detail = await run();
    steps.push({ name, seconds: (Date.now() - t0) / 1000, ok: true, detail });
    say(`  ok (${((Date.now() - t0) / 1000).toFixed(1)} s) ${detail}`);
    return true;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    steps.push({ name, seconds: (Date.now() - t0) / 1000, ok: false, detail });
    say(`  FAILED (${((Date.now() - t0) / 1000).toFixed(1)} s) ${detail}`);
    if (critical) throw new StepFailed(name);
    return false;
  }
}

function expect(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

let cleaning: Promise<void> | undefined;
/** Ends every process group started, drops the rehearsal's database and Redis keys, removes the stages. Once. */
const cleanup = (failed: boolean): Promise<void> => (cleaning ??= cleanUp(failed));
async function cleanUp(failed: boolean) {
  for (const pgid of started) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  started.clear();
  const dbUri = rehearsalDbUri();
  try {
    const conn = await mongoose.createConnection(dbUri, { serverSelectionTimeoutMS: 5000 }).asPromise();
    await conn.dropDatabase();
    await conn.close();
  } catch (err) {
    say(`cleanup: could not drop the rehearsal database: ${String(err)}`);
  }
  const redis = new Redis(REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let removed = 0;
    for await (const keys of redis.scanStream({ match: `${queuePrefix}*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length) removed += await redis.unlink(...keys);
    }
    say(`cleanup: dropped database ${new URL(dbUri).pathname.slice(1)}, ${removed} Redis keys under ${queuePrefix}`);
  } catch (err) {
    say(`cleanup: could not remove the Redis keys: ${String(err)}`);
  } finally {
    redis.disconnect();
  }
  if (keep) say(`kept: ${workDir}`);
  else if (failed) {
    for (const d of readdirSync(workDir)) if (d !== 'logs') rmSync(join(workDir, d), { recursive: true, force: true });
    say(`logs kept: ${logDir}`);
  } else rmSync(workDir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    say(`\n${signal}: ending what the rehearsal started`);
    void cleanup(true).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

// ---------------------------------------------------------------------------------------------
// Compose: the services' wiring, read from docker-compose.yml (YAML merge keys for the x-app anchor).

interface Service {
  environment: Record<string, string>;
  command?: string[];
  healthcheck: { test: string[]; intervalMs: number; retries: number; startPeriodMs: number; timeoutMs: number };
  stopGraceMs: number;
}

function durationMs(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(text))) {
    total += Number(m[1]) * unit[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed !== text.length) throw new Error(`compose duration not understood: ${text}`);
  return total;
}

function readService(compose: any, name: string): Service {
  const s = compose.services?.[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  const env: Record<string, string> = {};
  if (Array.isArray(s.environment)) {
    for (const kv of s.environment as string[]) {
      const i = kv.indexOf('=');
      if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
    }
  } else for (const [k, v] of Object.entries(s.environment ?? {})) if (v !== null) env[k] = String(v);
  for (const v of Object.values(env)) if (v.includes('$')) throw new Error(`${name}: environment interpolation is not interpreted (${v})`);
  const hc = s.healthcheck ?? {};
  const test: string[] = typeof hc.test === 'string' ? ['CMD-SHELL', hc.test] : hc.test;
  if (!Array.isArray(test) || !['CMD', 'CMD-SHELL'].includes(test[0]!))
    throw new Error(`${name}: a healthcheck test in CMD or CMD-SHELL form is expected`);
  return {
    environment: env,
    ...(s.command ? { command: typeof s.command === 'string' ? ['/bin/sh', '-c', s.command] : (s.command as string[]) } : {}),
    healthcheck: {
      test,
      // Compose's defaults when the file gives none.
      intervalMs: durationMs(hc.interval, 30_000),
      timeoutMs: durationMs(hc.timeout, 30_000),
      retries: Number(hc.retries ?? 3),
      startPeriodMs: durationMs(hc.start_period, 0),
    },
    stopGraceMs: durationMs(s.stop_grace_period, 10_000),
  };
}

/** `.env.example` as compose reads an env_file: KEY=VALUE lines, comments and blanks skipped. */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, '$2');
  }
  return env;
}

const queuePrefix = `rehearsal-${id}`;
/** The given database URI with a database of the rehearsal's own (dropped at the end). */
function rehearsalDbUri(): string {
  const url = new URL(MONGODB_URI!);
  url.pathname = `/coupons_rehearsal_${id}`;
  return url.toString();
}

/** The compose port when free on this machine, else 0 (the OS chooses; the process reports it). */
function bindablePort(port: string): Promise<string> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done('0'));
    probe.listen(Number(port), () => probe.close(() => done(port)));
  });
}

// ---------------------------------------------------------------------------------------------
// Processes of the runtime stage.

interface Running {
  name: string;
  child: ChildProcess;
  port: number;
  log: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startProcess(name: string, runtime: Stage, argv: string[], env: Record<string, string>, readyWithinMs: number): Promise<Running> {
  const log = join(logDir, `${name}.log`);
  const fd = openSync(log, 'a');
  // An IPC channel only to hear the processes' own ready report (shared/process.ts reportReady),
  // which names the port they bound; in a container the report goes nowhere.
  const child = spawn(argv[0]!, argv.slice(1), { cwd: hostPath(runtime, '.'), env, stdio: ['ignore', fd, fd, 'ipc'], detached: true });
  closeSync(fd);
  if (child.pid) started.add(child.pid);
  children.push(child);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => {
      if (child.pid) started.delete(child.pid);
      done({ code, signal });
    }),
  );
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${name}: not ready within ${readyWithinMs / 1000} s (log ${log}):\n${tail(log)}`)),
      readyWithinMs,
    );
    child.on('message', (m: any) => {
      if (m?.ready !== true) return;
      clearTimeout(timer);
      done({ name, child, port: m.port, log, exit });
    });
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${tail(log)}`));
    });
  });
}

function tail(file: string, lines = 20): string {
  return existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '(no output)';
}

/** Runs a command to its end; its exit code and output. */
function run(argv: string[], cwd: string, env: Record<string, string>, opts: { input?: string; timeoutMs?: number } = {}) {
  return new Promise<{ code: number; out: string; err: string }>((done, fail) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    if (child.pid) started.add(child.pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.stdin.end(opts.input ?? '');
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (child.pid) started.delete(child.pid);
      done({ code: code ?? (signal ? 128 : 1), out, err });
    });
  });
}

/** Compose's health check, run like compose does (in the container's directory and environment),
 *  repeated until it passes or compose would call the container unhealthy. */
async function healthy(svc: Service, runtime: Stage, env: Record<string, string>, composePort: string, port: number): Promise<string> {
  let argv = svc.healthcheck.test[0] === 'CMD' ? svc.healthcheck.test.slice(1) : ['/bin/sh', '-c', svc.healthcheck.test[1]!];
  let rewritten = '';
  if (String(port) !== composePort) {
    argv = argv.map((a) => a.replaceAll(`:${composePort}/`, `:${port}/`));
    rewritten = ` (its :${composePort} read as :${port}, the port bound here)`;
  }
  const { startPeriodMs, intervalMs, retries, timeoutMs } = svc.healthcheck;
  const budget = startPeriodMs + intervalMs * retries;
  const t0 = Date.now();
  let attempts = 0;
  let last = '';
  // Polled every second rather than every `interval`: the verdict is the same, found sooner.
  while (Date.now() - t0 < budget) {
    attempts++;
    const r = await run(argv, hostPath(runtime, '.'), env, { timeoutMs });
    if (r.code === 0) return `passed on attempt ${attempts}${rewritten}`;
    last = `exit ${r.code} ${r.err.trim()}`;
    await new Promise((d) => setTimeout(d, 1000));
  }
  throw new Error(`unhealthy after ${budget / 1000} s (start_period + interval × retries): ${last}`);
}

// ---------------------------------------------------------------------------------------------
// HTTP checks.

async function get(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  const body = await res.text();
  return { res, body };
}

/** Every same-origin `src`/`href` of a page answers 200 with a body. */
async function assetsOf(base: string, html: string, prefix: string): Promise<string[]> {
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((r) => r.startsWith(prefix));
  expect(refs.length > 0, `the page references nothing under ${prefix}`);
  const sizes: string[] = [];
  for (const ref of refs) {
    const { res, body } = await get(base + ref);
    expect(res.status === 200 && body.length > 0, `${ref}: ${res.status}, ${body.length} bytes`);
    sizes.push(`${ref.split('/').pop()} ${res.headers.get('content-type')?.split(';')[0]} ${(body.length / 1024).toFixed(0)} KB`);
  }
  return sizes;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  say(`image rehearsal ${id}: ${workDir}`);
  for (let d = dirname(workDir); ; d = dirname(d)) {
    // Node resolves packages from every parent directory: one there would hide a missing dependency.
    expect(!existsSync(join(d, 'node_modules')), `${join(d, 'node_modules')} exists: it would stand in for the image's missing packages`);
    if (d === dirname(d)) break;
  }
  const passThrough = ['PATH', 'http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS'];
  const baseEnv: Record<string, string> = {};
  for (const k of passThrough) if (process.env[k]) baseEnv[k] = process.env[k]!;
  // This machine's npm settings (its registry and CA) stand in for the base image's npm defaults.
  if (process.env.HOME && existsSync(join(process.env.HOME, '.npmrc'))) baseEnv.npm_config_userconfig = join(process.env.HOME, '.npmrc');

  // 1. The image, from the working tree (like `docker build .`) or from a commit's tree.
  let context = repoRoot;
  if (gitRef) {
    context = join(workDir, 'context');
    mkdirSync(context);
    const archive = await run(
      ['/bin/sh', '-c', `git -C "$0" archive --format=tar "$1" | tar -x -C "$2"`, repoRoot, gitRef, context],
      repoRoot,
      baseEnv,
    );
    expect(archive.code === 0, `git archive ${gitRef}: ${archive.err.trim()}`);
    notes.push(`build context: git ${gitRef}'s tree (uncommitted and ignored files left out)`);
  } else notes.push('build context: the working tree, uncommitted and git-ignored files included (as `docker build .` sends them)');
  let stages: Stage[] = [];
  await step(
    'docker build (Dockerfile executed)',
    async () => {
      stages = await buildImage({
        context,
        dockerfile: join(context, 'Dockerfile'),
        workDir,
        logDir,
        baseEnv,
        log: say,
        started,
        timings,
      });
      return `${stages.length} stages, ${timings.length} instructions`;
    },
    true,
  );
  const runtime = stages[stages.length - 1]!;
  expect(runtime.cmd, 'the last stage has no CMD');
  notes.push(
    `base image ${runtime.base}: not fetched; node ${process.version} and npm of this machine ran every RUN (npm cache per stage, empty at start)`,
  );
  if (runtime.user) notes.push(`USER ${runtime.user}: recorded, not switched — the processes ran as ${userInfo().username}`);

  // 2. Compose's wiring.
  const compose = parseYaml(readFileSync(join(context, 'docker-compose.yml'), 'utf8'), { merge: true });
  const api = readService(compose, 'api');
  const worker = readService(compose, 'worker');
  const dotenv = readEnvFile(join(context, '.env.example'));
  // `cp .env.example .env` and set ADMIN_TOKEN (and METRICS_TOKEN), as docs/operations.md says.
  Object.assign(dotenv, {
    ADMIN_TOKEN: randomBytes(32).toString('hex'),
    METRICS_TOKEN: randomBytes(16).toString('hex'),
    QUEUE_PREFIX: queuePrefix,
  });
  notes.push(`.env: .env.example with a random ADMIN_TOKEN and METRICS_TOKEN, QUEUE_PREFIX=${queuePrefix} (the shared dev Redis)`);
  const composePorts = { api: api.environment.PORT ?? '3000', worker: worker.environment.WORKER_PORT ?? '9464' };
  const ports = { api: await bindablePort(composePorts.api), worker: await bindablePort(composePorts.worker) };
  const containerEnv = (svc: Service, home: string): Record<string, string> => ({
    ...baseEnv,
    HOME: home,
    ...runtime.env, // the image's ENV (NODE_ENV=production)
    ...dotenv, // env_file
    ...svc.environment, // compose's environment wins
    MONGODB_URI: rehearsalDbUri(),
    REDIS_URL: REDIS_URL!,
    PORT: ports.api,
    WORKER_PORT: ports.worker,
  });
  notes.push(
    `MONGODB_URI → ${new URL(MONGODB_URI!).host}/coupons_rehearsal_${id} (not mongo:7), REDIS_URL → ${REDIS_URL} (not redis:7 with AOF)`,
  );
  for (const k of ['api', 'worker'] as const)
    notes.push(
      ports[k] === composePorts[k]
        ? `${k} port ${ports[k]} as compose sets it`
        : `${k} port ${composePorts[k]} taken on this machine: bound to a port the OS chose`,
    );
  notes.push(
    'no container network: api and worker listen on this machine (the worker port too, which compose keeps inside its network); mongo and redis health not checked here (/readyz pings both)',
  );
  const home = join(runtime.root, 'home', runtime.user ?? 'root');
  mkdirSync(home, { recursive: true });
  const apiEnv = containerEnv(api, home);
  const workerEnv = containerEnv(worker, home);

  // 3. Up: both containers start together once their dependencies are healthy.
  let apiProc!: Running;
  let workerProc!: Running;
  await step(
    'compose up: api (CMD) and worker (command) ready',
    async () => {
      const within = (s: Service) => s.healthcheck.startPeriodMs + s.healthcheck.intervalMs * s.healthcheck.retries;
      [apiProc, workerProc] = await Promise.all([
        startProcess('api', runtime, api.command ?? runtime.cmd!, apiEnv, within(api)),
        startProcess('worker', runtime, worker.command ?? runtime.cmd!, workerEnv, within(worker)),
      ]);
      return `${(api.command ?? runtime.cmd!).join(' ')} on :${apiProc.port}; ${(worker.command ?? runtime.cmd!).join(' ')} on :${workerProc.port}`;
    },
    true,
  );
  const base = `http://127.0.0.1:${apiProc.port}`;
  await step('api healthcheck (compose test)', () => healthy(api, runtime, apiEnv, composePorts.api, apiProc.port));
  await step('worker healthcheck (compose test)', () => healthy(worker, runtime, workerEnv, composePorts.worker, workerProc.port));

  // 4. Demo data, the README's way: node dist/scripts/seed.js in the api container.
  let creds = { app: '', key: '', secret: '' };
  await step('seed: node dist/scripts/seed.js', async () => {
    const r = await run(['node', 'dist/scripts/seed.js'], hostPath(runtime, '.'), apiEnv, { timeoutMs: 120_000 });
    expect(r.code === 0, `exit ${r.code}: ${r.err.trim().split('\n').slice(-10).join('\n')}`);
    const field = (label: string) => new RegExp(`^${label}:\\s+(\\S+)`, 'm').exec(r.out)?.[1] ?? '';
    creds = { app: field('application'), key: field('API key'), secret: field('secret') };
    expect(creds.app && creds.key && creds.secret, `no credentials in its output:\n${r.out}`);
    return `application ${creds.app}, API key ${creds.key}`;
  });

  // 5. The console.
  await step('GET /console and its assets', async () => {
    const { res, body } = await get(`${base}/console`);
    expect(res.status === 200, `/console: ${res.status} ${body.slice(0, 200)}`);
    expect(res.headers.get('content-type')?.startsWith('text/html'), `/console: ${res.headers.get('content-type')}`);
    expect(res.headers.get('content-security-policy'), '/console: no Content-Security-Policy');
    const assets = await assetsOf(base, body, '/console/assets/');
    expect(
      assets.some((a) => a.includes('javascript')),
      `no JavaScript asset: ${assets.join(', ')}`,
    );
    return assets.join('; ');
  });

  // 6. An operator: the first owner made with the admin token, then a browser's sign-in.
  await step('operator: first owner, sign-in, session, sign-out', async () => {
    const email = `rehearsal-${id}@example.com`;
    const password = randomBytes(18).toString('base64url');
    const json = { 'content-type': 'application/json' };
    const created = await get(`${base}/admin/operators`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${apiEnv.ADMIN_TOKEN}` },
      body: JSON.stringify({ email, name: 'Rehearsal', role: 'owner', password }),
    });
    expect(created.res.status === 201, `POST /admin/operators: ${created.res.status} ${created.body}`);
    const signIn = await get(`${base}/admin/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
    expect(signIn.res.status === 201, `POST /admin/sessions: ${signIn.res.status} ${signIn.body}`);
    const cookie = signIn.res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('coupons_session='));
    expect(cookie, `no coupons_session cookie: ${signIn.res.headers.getSetCookie().join(' | ')}`);
    const csrf = (JSON.parse(signIn.body) as { csrf_token?: string }).csrf_token;
    expect(csrf, 'no csrf_token in the sign-in answer');
    const me = await get(`${base}/admin/operators/me`, { headers: { cookie } });
    const meBody = JSON.parse(me.body) as { kind?: string; email?: string; role?: string };
    expect(
      me.res.status === 200 && meBody.kind === 'operator' && meBody.email === email && meBody.role === 'owner',
      `GET /admin/operators/me: ${me.res.status} ${me.body}`,
    );
    const apps = await get(`${base}/admin/applications`, { headers: { cookie } });
    expect(
      apps.res.status === 200 && apps.body.includes(creds.app),
      `GET /admin/applications lacks the seeded ${creds.app}: ${apps.res.status} ${apps.body.slice(0, 300)}`,
    );
    const out = await get(`${base}/admin/sessions/current`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.res.status === 200, `DELETE /admin/sessions/current: ${out.res.status} ${out.body}`);
    const after = await get(`${base}/admin/operators/me`, { headers: { cookie } });
    expect(after.res.status === 401, `the signed-out cookie still answers: ${after.res.status}`);
    return `owner ${email} signed in (cookie + CSRF), saw the seeded application, signed out (then 401)`;
  });

  // 7. The API description.
  await step('GET /docs, its assets and openapi.json', async () => {
    const { res, body } = await get(`${base}/docs`);
    expect(
      res.status === 200 && res.headers.get('content-type')?.startsWith('text/html'),
      `/docs: ${res.status} ${res.headers.get('content-type')}`,
    );
    const assets = await assetsOf(base, body, '/docs/');
    const spec = await get(`${base}/docs/openapi.json`);
    const paths = Object.keys((JSON.parse(spec.body) as { paths?: object }).paths ?? {});
    expect(spec.res.status === 200 && paths.includes('/coupons/validate'), `/docs/openapi.json: ${spec.res.status}, ${paths.length} paths`);
    return `${assets.length} assets; openapi.json ${paths.length} paths`;
  });

  // 8. A client: validate and redeem with the seeded credentials (the redeem goes through the worker).
  await step('client: validate and redeem WELCOME10', async () => {
    const headers = {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${creds.key}:${creds.secret}`).toString('base64')}`,
    };
    const order = {
      order_id: `rehearsal-${id}`,
      original_price_subtotal: 1200,
      selling_price_subtotal: 1000,
      status: 'completed',
      shipping: 40,
      payment_mode: 'UPI',
      items: [{ product_id: 'p1', sku: 'SKU1', name: 'Shirt', original_price: 1200, selling_price: 1000, quantity: 1, shipping: 0 }],
    };
    const body = { source_id: 'cust_2', coupon_details: [{ coupon_id: 'bulk', coupon_code: 'WELCOME10' }], order };
    const v = await get(`${base}/coupons/validate`, { method: 'POST', headers, body: JSON.stringify(body) });
    const vb = JSON.parse(v.body) as { is_applicable?: boolean; coupon_savings?: { order?: { total_discount?: number } } };
    // 10% of the 1,000 selling price, under the 150 cap (scripts/demo-data.ts).
    expect(
      v.res.status === 200 && vb.is_applicable === true && vb.coupon_savings?.order?.total_discount === 100,
      `validate: ${v.res.status} ${v.body}`,
    );
    const t0 = Date.now();
    const r = await get(`${base}/coupons/apply?type=redeem`, { method: 'POST', headers, body: JSON.stringify(body) });
    const rb = JSON.parse(r.body) as { status?: string; coupon_code?: string };
    expect(r.res.status === 200 && rb.status === 'completed' && rb.coupon_code === 'WELCOME10', `redeem: ${r.res.status} ${r.body}`);
    return `validate: applicable, discount 100; redeem: completed in ${Date.now() - t0} ms (through the worker)`;
  });

  // 9. Down: SIGTERM, and compose's stop_grace_period before it would SIGKILL.
  await step('compose down: SIGTERM, exit 0 within stop_grace_period', async () => {
    const stops = [
      [apiProc, api],
      [workerProc, worker],
    ] as const;
    const results = await Promise.all(
      stops.map(async ([p, svc]) => {
        const t0 = Date.now();
        p.child.kill('SIGTERM');
        const timeout = new Promise<null>((d) => setTimeout(() => d(null), svc.stopGraceMs).unref());
        const ended = await Promise.race([p.exit, timeout]);
        expect(ended, `${p.name} still running after ${svc.stopGraceMs / 1000} s:\n${tail(p.log)}`);
        expect(ended.code === 0, `${p.name} exited ${ended.code ?? ended.signal}:\n${tail(p.log)}`);
        return `${p.name} ${((Date.now() - t0) / 1000).toFixed(1)} s`;
      }),
    );
    return `exit 0: ${results.join(', ')}`;
  });
}

function report() {
  say('\n== Dockerfile, instruction by instruction ==');
  for (const t of timings) {
    const text = t.text.length > 100 ? `${t.text.slice(0, 97)}…` : t.text;
    say(`${t.stage.padEnd(8)} line ${String(t.line).padStart(2)} ${t.seconds.toFixed(1).padStart(6)} s  ${text}`);
  }
  say('\n== Steps ==');
  for (const s of steps)
    say(
      `${s.ok ? 'ok    ' : 'FAILED'} ${s.seconds.toFixed(1).padStart(6)} s  ${s.name}${s.ok ? '' : `\n         ${s.detail.split('\n').join('\n         ')}`}`,
    );
  const total = steps.reduce((sum, s) => sum + s.seconds, 0);
  say(`total ${total.toFixed(1)} s; ${steps.filter((s) => !s.ok).length} failed`);
  say('\n== What differs from docker compose up ==');
  for (const n of notes) say(`- ${n}`);
}

let failed = true;
try {
  await main();
  failed = steps.some((s) => !s.ok);
} catch (err) {
  if (!(err instanceof StepFailed)) say(`rehearsal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
}
report();
await cleanup(failed);
process.exit(failed ? 1 : 0);
