/**
 * `prepare`: builds `dist/` (ESM + declarations, typed from ../openapi.yaml) wherever the package
 * is installed from its source — the repository's `npm install` (client/ is a workspace of the
 * root package, and npm runs a workspace's `prepare` at every install there), `npm install <path
 * to client/>` from another project, `npm install <git URL>#client` (the release branch), and
 * `npm pack` (so the tarball carries `dist/`).
 *
 * The build tools are found the way Node finds any package from this folder: in the repository
 * they are the root install's (node_modules/ above, or client/node_modules/ where a version differs
 * from the root's). Where none are found — a checkout nobody ran `npm install` in, linked from
 * another project, which gets only the runtime dependencies installed here — they are installed
 * into client/node_modules first, as a package of its own: `--no-workspaces` keeps npm from
 * installing the whole repository instead, `--no-package-lock` from leaving a lock file here.
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (command) => execSync(command, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
const require = createRequire(join(root, 'package.json'));
const found = (name) => {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
};
if (!['typescript', 'openapi-typescript', 'openapi-fetch'].every(found)) {
  run('npm install --no-workspaces --no-package-lock --include=dev --ignore-scripts --no-audit --no-fund');
}
// In the repository, src/schema.ts is generated from ../openapi.yaml; on the release branch
// (scripts/release-branch.sh: what a git URL installs) there is no ../openapi.yaml and the
// generated schema is committed.
run(existsSync(join(root, '..', 'openapi.yaml')) ? 'npm run build' : 'npx tsc -p tsconfig.build.json');
