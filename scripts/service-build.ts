/**
 * The processes the tests start (APIs, workers, the admin command line, the seed) run from
 * JavaScript that `npm test` transpiles once into `.test-build/` — laid out like `npm run build`'s
 * `dist/`, so the service finds openapi.yaml and console/dist the same way — instead of each one
 * starting under tsx. A process started with `--import tsx` spends 0.5–0.7 s more CPU until it is
 * ready (measured: API 1.6 → 0.9 s, worker 1.6 → 1.1 s) and the suite starts a few hundred: on two
 * cores, most of a minute of wall time. The lanes' own mocha processes still load the sources
 * through tsx. Without `npm test` (one file under plain mocha), processes start under tsx.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

/** Set by `npm test` to the transpiled tree's directory. */
export const SERVICE_BUILD_ENV = 'COUPONS_TEST_BUILD';

/**
 * Transpiles (types stripped, nothing bundled) the service, the scripts and the typed client. The
 * transpiled tree lies inside the repository, so its imports of packages resolve up to the root's
 * node_modules/ (the client's one runtime dependency, openapi-fetch, is a dependency of the
 * service too).
 */
export async function buildServiceForProcesses(repoRoot: string): Promise<{ dir: string; seconds: number }> {
  const started = Date.now();
  const dir = join(repoRoot, '.test-build');
  await build({
    entryPoints: ['api/**/*.ts', 'worker/**/*.ts', 'shared/**/*.ts', 'scripts/**/*.ts', 'client/src/**/*.ts'],
    absWorkingDir: repoRoot,
    outdir: dir,
    outbase: repoRoot,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return { dir, seconds: (Date.now() - started) / 1000 };
}

/**
 * The `node` arguments that run `script` (a path under the repository, e.g. `api/server.ts`):
 * its transpiled file when `npm test` made one, else the source under tsx.
 */
export function nodeArgsFor(script: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = env[SERVICE_BUILD_ENV];
  return dir ? [join(dir, script.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', script];
}
