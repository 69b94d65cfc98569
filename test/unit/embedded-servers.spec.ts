import { expect } from 'chai';
import { errors } from 'mongodb-memory-server';
import { shortReason } from '../../scripts/embedded-servers.js';

describe('the embedded servers: why mongodb-memory-server could not start, in one line', () => {
  const cases: [string, unknown, string][] = [
    [
      'a failed download (its message spans lines: the URL, then the cause)',
      new errors.DownloadError('https://example.invalid/mongodb.tgz', 'getaddrinfo ENOTFOUND example.invalid', 'ENOTFOUND'),
      'its download failed: getaddrinfo ENOTFOUND example.invalid',
    ],
    ['any other error: its first line', new Error('spawn mongod EACCES\nmore detail'), 'spawn mongod EACCES'],
    ['a thrown string', 'no binary', 'no binary'],
  ];
  for (const [when, err, line] of cases) {
    it(`when ${when}, then it reads "${line}"`, () => {
      expect(shortReason(err)).to.equal(line);
    });
  }
});
