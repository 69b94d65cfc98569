/**
 * `prepare`: builds `dist/` (ESM + declarations, typed from ../openapi.yaml) wherever the package
 * is installed from its source — `npm install` inside client/, `npm install <path to client/>`
 * from another project, `npm install <git URL>#client` (the release branch), and `npm pack` (so
 * the tarball carries `dist/`). A project that links
 * this folder gets only its runtime dependencies installed here, not the build tools: they are
 * installed first, from the lock file, without running scripts.
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (command) => execSync(command, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
const tools = ['typescript', 'openapi-typescript', 'openapi-fetch'];
if (!tools.every((t) => existsSync(join(root, 'node_modules', t, 'package.json')))) {
  run('npm install --include=dev --ignore-scripts --no-audit --no-fund');
}
// In the repository, src/schema.ts is generated from ../openapi.yaml; on the release branch
// (scripts/release-branch.sh: what a git URL installs) there is no ../openapi.yaml and the
// generated schema is committed.
run(existsSync(join(root, '..', 'openapi.yaml')) ? 'npm run build' : 'npx tsc -p tsconfig.build.json');
