/**
 * Executes a Dockerfile's instructions without Docker, for the subset this repository's Dockerfile
 * uses: FROM … AS stage, WORKDIR, COPY [--from=stage] src… dst (plain COPY honouring
 * .dockerignore), RUN (`/bin/sh -c`), ENV, USER (recorded, not switched), EXPOSE, CMD. Any other
 * instruction or flag stops the build: the rehearsal never guesses.
 *
 * Each stage gets a fresh, empty directory standing in for the image's `/` (so WORKDIR /app is
 * `<stage root>/app`); the base image is not fetched — RUN uses this machine's node and npm in its
 * place. COPY follows Docker's rules: sources relative to the build context (or, with --from, to
 * the other stage's `/`), a directory's contents (not the directory) copied, a destination ending
 * in `/` (or several sources) a directory, a source .dockerignore excludes "not found".
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, openSync, closeSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, posix, relative, sep } from 'node:path';
import { isIgnored, parseDockerignore, type IgnoreRule } from './dockerignore.js';

export interface Instruction {
  /** The line the instruction starts on. */
  line: number;
  keyword: string;
  args: string;
}

export interface Stage {
  name: string;
  /** The FROM image, not fetched. */
  base: string;
  /** Host directory standing in for the image's `/`. */
  root: string;
  /** Container path. */
  workdir: string;
  /** ENV of this stage (the base image's own environment is not known: PATH and HOME come from the rehearsal). */
  env: Record<string, string>;
  user?: string;
  expose: string[];
  cmd?: string[];
}

export interface StepTiming {
  stage: string;
  line: number;
  text: string;
  seconds: number;
  /** What the rehearsal did differently from Docker for this step, if anything. */
  note?: string;
}

export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i]!.trim();
    if (!first || first.startsWith('#')) continue;
    const line = i + 1;
    let body = first;
    // Continuation lines; comment lines inside a continued instruction are dropped, as Docker does.
    while (body.endsWith('\\') && i + 1 < lines.length) {
      body = body.slice(0, -1);
      const next = lines[++i]!.trim();
      if (next.startsWith('#')) continue;
      body += ` ${next}`;
    }
    const m = /^(\S+)\s*(.*)$/.exec(body)!;
    out.push({ line, keyword: m[1]!.toUpperCase(), args: m[2]!.trim() });
  }
  return out;
}

/** `["a", "b"]` (exec form) or words. */
function words(args: string): string[] {
  if (args.startsWith('[')) {
    const parsed: unknown = JSON.parse(args);
    if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string')) throw new Error(`not a JSON array of strings: ${args}`);
    return parsed as string[];
  }
  return args.split(/\s+/).filter(Boolean);
}

/** `ENV a=1 b="two words"` or the legacy `ENV a 1`. */
function parseEnv(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const m = /^(\S+)\s+(.*)$/.exec(args);
    if (!m) throw new Error(`ENV without a value: ${args}`);
    out[m[1]!] = m[2]!;
    return out;
  }
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("((?:[^"\\]|\\.)*)"|'([^']*)'|(\S*))\s*/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(args))) {
    out[m[1]!] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : (m[4] ?? m[5] ?? '');
    end = re.lastIndex;
  }
  if (end !== args.length) throw new Error(`ENV not understood: ${args}`);
  for (const v of Object.values(out)) if (v.includes('$')) throw new Error(`ENV with a $ substitution is not interpreted: ${args}`);
  return out;
}

export interface BuildOptions {
  context: string;
  dockerfile: string;
  /** Where the stages' roots are made. */
  workDir: string;
  /** Where each RUN's output is written (line-<n>.log). */
  logDir: string;
  /** The rehearsal's stand-in for the base image's environment (PATH to node and npm, proxies). */
  baseEnv: Record<string, string>;
  log: (line: string) => void;
  /** Processes started here, so the caller can end them (process groups). */
  started: Set<number>;
  /** Filled as the instructions run (so a failed build still shows what it took). */
  timings: StepTiming[];
}

/** Host path of a container path of `stage` (relative paths from its WORKDIR). */
export function hostPath(stage: Stage, containerPath: string): string {
  const abs = posix.resolve(stage.workdir, containerPath);
  return join(stage.root, ...abs.split('/').filter(Boolean));
}

function runShell(command: string, cwd: string, env: Record<string, string>, logFile: string, started: Set<number>): Promise<number> {
  return new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    if (child.pid) started.add(child.pid);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (child.pid) started.delete(child.pid);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function tail(file: string, lines: number): string {
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

export async function buildImage(opts: BuildOptions): Promise<Stage[]> {
  const instructions = parseDockerfile(readFileSync(opts.dockerfile, 'utf8'));
  const ignoreFile = join(opts.context, '.dockerignore');
  const rules: IgnoreRule[] = existsSync(ignoreFile) ? parseDockerignore(readFileSync(ignoreFile, 'utf8')) : [];
  const hasExceptions = rules.some((r) => r.exclusion);
  const stages: Stage[] = [];
  const timings = opts.timings;
  let stage: Stage | undefined;

  const contextRel = (p: string) => relative(opts.context, p).split(sep).join('/');
  const copyFromContext = (src: string, dst: string, asDir: boolean) => {
    const rel = posix.normalize(src).replace(/^\/+/, '').replace(/\/+$/, '') || '.';
    if (rel === '..' || rel.startsWith('../')) throw new Error(`COPY ${src}: outside the build context`);
    const from = join(opts.context, rel);
    if (!existsSync(from) || (rel !== '.' && isIgnored(rules, rel)))
      throw new Error(`COPY ${src}: not found in the build context (or excluded by .dockerignore)`);
    copyPath(from, dst, asDir, (p) => {
      const r = contextRel(p);
      if (r === '') return true;
      if (!isIgnored(rules, r)) return true;
      // An excluded directory is still entered when a later `!pattern` may re-include something in it.
      return hasExceptions && lstatSync(p).isDirectory();
    });
  };
  const copyPath = (from: string, dst: string, asDir: boolean, filter: (p: string) => boolean) => {
    if (lstatSync(from).isDirectory()) {
      mkdirSync(dst, { recursive: true });
      cpSync(from, dst, { recursive: true, filter, verbatimSymlinks: true, preserveTimestamps: true });
      return;
    }
    const target = asDir || (existsSync(dst) && statSync(dst).isDirectory()) ? join(dst, basename(from)) : dst;
    mkdirSync(dirname(target), { recursive: true });
    cpSync(from, target, { verbatimSymlinks: true, preserveTimestamps: true });
  };

  for (const ins of instructions) {
    const text = `${ins.keyword} ${ins.args}`;
    const started = Date.now();
    let note: string | undefined;
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`line ${ins.line}: FROM not understood: ${ins.args}`);
      if (stages.some((s) => s.name === m[1])) throw new Error(`line ${ins.line}: FROM an earlier stage is not interpreted`);
      const name = m[2] ?? String(stages.length);
      const root = join(opts.workDir, `stage-${stages.length}-${name}`);
      mkdirSync(root, { recursive: true });
      stage = { name, base: m[1]!, root, workdir: '/', env: {}, expose: [] };
      stages.push(stage);
      note = `fresh empty root ${root}; ${m[1]} not fetched: this machine's node ${process.version} and npm stand in`;
    } else {
      if (!stage) throw new Error(`line ${ins.line}: ${ins.keyword} before FROM`);
      const st: Stage = stage;
      switch (ins.keyword) {
        case 'WORKDIR':
          st.workdir = posix.resolve(st.workdir, ins.args);
          mkdirSync(hostPath(st, '.'), { recursive: true });
          break;
        case 'ENV':
          Object.assign(st.env, parseEnv(ins.args));
          break;
        case 'COPY': {
          const all = words(ins.args);
          const flags = all.filter((w) => w.startsWith('--'));
          const paths = all.filter((w) => !w.startsWith('--'));
          let from: Stage | undefined;
          for (const flag of flags) {
            const m = /^--from=(.+)$/.exec(flag);
            if (!m) throw new Error(`line ${ins.line}: COPY ${flag} is not interpreted`);
            from = stages.find((s) => s.name === m[1] && s !== st);
            if (!from) throw new Error(`line ${ins.line}: COPY --from=${m[1]}: no earlier stage of that name (images are not fetched)`);
          }
          if (paths.length < 2) throw new Error(`line ${ins.line}: COPY needs a source and a destination`);
          const dst = paths.pop()!;
          const asDir = dst.endsWith('/') || paths.length > 1;
          const dstHost = hostPath(st, dst);
          for (const src of paths) {
            if (/[*?[]/.test(src)) throw new Error(`line ${ins.line}: COPY with a wildcard is not interpreted`);
            if (from) {
              // --from sources are paths of the other stage's filesystem, from its `/`.
              const fromHost = hostPath({ ...from, workdir: '/' }, src);
              if (!existsSync(fromHost)) throw new Error(`line ${ins.line}: COPY --from=${from.name} ${src}: not found in that stage`);
              copyPath(fromHost, dstHost, asDir, () => true);
            } else {
              copyFromContext(src, dstHost, asDir);
            }
          }
          break;
        }
        case 'RUN': {
          if (ins.args.startsWith('[')) throw new Error(`line ${ins.line}: RUN in exec form is not interpreted`);
          const logFile = join(opts.logDir, `line-${ins.line}.log`);
          const env = { ...opts.baseEnv, ...st.env, HOME: join(st.root, 'root'), npm_config_cache: join(st.root, 'root', '.npm') };
          mkdirSync(env.HOME, { recursive: true });
          opts.log(`  RUN (line ${ins.line}) … log: ${logFile}`);
          const code = await runShell(ins.args, hostPath(st, '.'), env, logFile, opts.started);
          if (code !== 0) throw new Error(`line ${ins.line}: RUN exited ${code}:\n${tail(logFile, 25)}`);
          break;
        }
        case 'USER':
          st.user = ins.args;
          note = 'recorded, not switched: the processes run as this machine’s user';
          break;
        case 'EXPOSE':
          st.expose.push(...words(ins.args));
          break;
        case 'CMD':
          st.cmd = ins.args.startsWith('[') ? words(ins.args) : ['/bin/sh', '-c', ins.args];
          break;
        default:
          throw new Error(`line ${ins.line}: ${ins.keyword} is not interpreted by the rehearsal`);
      }
    }
    const seconds = (Date.now() - started) / 1000;
    timings.push({ stage: stage!.name, line: ins.line, text, seconds, ...(note ? { note } : {}) });
    opts.log(`${stage!.name.padEnd(8)} ${seconds.toFixed(1).padStart(6)} s  ${text.length > 110 ? `${text.slice(0, 107)}…` : text}`);
  }
  return stages;
}
