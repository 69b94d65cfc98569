/**
 * The console's build for `npm run dev` and `npm test`: builds console/ into console/dist when its
 * sources (or the typed client's) are newer than the last build, so the server serves what is
 * checked out. console/ is a workspace of the root package: the root's `npm install` installs its
 * build tools (into node_modules/, or console/node_modules/ where a version differs from the
 * root's) and generates the client's src/schema.ts it compiles. Says what is missing instead when
 * that install was not run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..');
const consoleDir = join(repoRoot, 'console');

/** Whether `name` is installed where the console's build finds it (Node's resolution from console/). */
function resolvable(name: string): boolean {
  try {
    createRequire(join(consoleDir, 'package.json')).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path, { recursive: true, encoding: 'utf8' }).reduce(
    (newest, f) => Math.max(newest, statSync(join(path, f)).mtimeMs),
    0,
  );
}

/** 'built' | 'fresh' (nothing to do) | the reason it cannot be served. */
export function buildConsoleIfStale(log: (line: string) => void): { state: 'built' | 'fresh' } | { state: 'missing'; why: string } {
  if (!resolvable('vite') || !existsSync(join(repoRoot, 'client', 'src', 'schema.ts'))) {
    return { state: 'missing', why: 'not installed: run npm install (at the repository root)' };
  }
  const built = join(consoleDir, 'dist', 'index.html');
  const sources = Math.max(
    ...['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => newestMtime(join(consoleDir, p))),
    newestMtime(join(repoRoot, 'client', 'src')),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return { state: 'fresh' };
  log('building the console (console/ → console/dist)');
  // Built beside dist/ and swapped in: a server already serving dist/ (another test's, another
  // `npm run dev`) never meets the empty folder Vite starts a build with — only the instant
  // between the two renames, not the seconds of the build.
  const next = join(consoleDir, `dist.next-${process.pid}`);
  const old = join(consoleDir, `dist.old-${process.pid}`);
  execFileSync('npm', ['run', '--silent', 'build', '--', '--outDir', next, '--emptyOutDir'], {
    cwd: consoleDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const dist = join(consoleDir, 'dist');
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(next, dist);
  rmSync(old, { recursive: true, force: true });
  return { state: 'built' };
}
