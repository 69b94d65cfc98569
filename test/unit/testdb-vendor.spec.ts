/**
 * The offline test database builds from the repository alone: its vendored sources, their checksum
 * and licences are inside it, and nothing in the build looks outside it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const testdb = join(import.meta.dirname, '..', '..', 'tools', 'testdb');
const vendor = join(testdb, 'vendor');

describe('the offline test database: vendored sources inside the repository', () => {
  it('when the vendor folder is read, then its tarball matches SHA256SUMS and its licences and README are beside it', () => {
    const files = readdirSync(vendor);
    expect(files).to.include.members(['SHA256SUMS', 'README.md', 'LICENSE.documentdb', 'LICENSE.pgvector', 'LICENSE.pg_cron']);
    const [sum, name] = readFileSync(join(vendor, 'SHA256SUMS'), 'utf8').trim().split(/\s+/);
    expect(files).to.include(name);
    expect(
      createHash('sha256')
        .update(readFileSync(join(vendor, name!)))
        .digest('hex'),
    ).to.equal(sum);
  });

  it('when the build and start scripts are read, then no path leaves the repository', () => {
    for (const script of ['build.sh', 'start.sh', 'stop.sh']) {
      const text = readFileSync(join(testdb, script), 'utf8');
      expect(text, script).to.not.match(/\.\.\/shared|\.\.\/\.\.\/\.\./);
    }
  });
});
