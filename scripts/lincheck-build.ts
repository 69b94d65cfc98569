/**
 * Builds the linearizability checker (tools/lincheck, Go: docs/reliability.md, "Linearizability")
 * once per source version, cached under node_modules/.cache/lincheck; `npm test` builds it before
 * its lanes start, and test/support/linearizability.ts runs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const TOOL = join(ROOT, 'tools', 'lincheck');

/** The Go command: `GO`, else `go` on the PATH, else the toolchain's usual place. */
function goCommand(): string {
  if (process.env.GO) return process.env.GO;
  if (spawnSync('go', ['version']).status === 0) return 'go';
  return '/usr/local/go/bin/go';
}

let built: string | undefined;

/** Builds tools/lincheck once per source version (cached under node_modules/.cache); returns the binary. */
export function lincheckBinary(): string {
  if (built) return built;
  const hash = createHash('sha256');
  for (const f of ['main.go', 'go.mod', 'go.sum']) hash.update(readFileSync(join(TOOL, f)));
  const dir = join(ROOT, 'node_modules', '.cache', 'lincheck');
  const bin = join(dir, `lincheck-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(bin)) {
    // Built beside and renamed: test lanes building at once each rename a whole binary into place.
    mkdirSync(dir, { recursive: true });
    const tmp = `${bin}.${process.pid}`;
    execFileSync(goCommand(), ['build', '-o', tmp, '.'], { cwd: TOOL, stdio: ['ignore', 'inherit', 'inherit'] });
    renameSync(tmp, bin);
  }
  return (built = bin);
}
