import { expect } from 'chai';
import { encodeSqlState, isTransient } from '../../shared/data/transient.js';

/** A server error as the driver builds it (MongoServerError): its name, code and labels. */
const serverError = (code: number, labels: string[] = []) =>
  Object.assign(new Error('refused'), { name: 'MongoServerError', code, errorLabels: labels });

describe('database errors worth another attempt (isTransient)', () => {
  const rows: [string, unknown, boolean][] = [
    ['a network error class', Object.assign(new Error('x'), { name: 'MongoNetworkError' }), true],
    // In-use connections interrupted when the server monitor's check timed out (a connection that died silently).
    ['a pool cleared by a monitor timeout', Object.assign(new Error('x'), { name: 'PoolClearedOnNetworkError' }), true],
    ['server selection timing out', Object.assign(new Error('x'), { name: 'MongoServerSelectionError' }), true],
    ['a write conflict (112)', serverError(112), true],
    ['a lock timeout (24)', serverError(24), true],
    ['a primary stepping down (189)', serverError(189), true],
    ['an error labelled RetryableWriteError', serverError(2, ['RetryableWriteError']), true],
    ["PostgreSQL's deadlock through FerretDB (40P01)", serverError(encodeSqlState('40P01')), true],
    ["PostgreSQL's serialization failure (40001)", serverError(encodeSqlState('40001')), true],
    ['InternalError (1), as FerretDB reports a deadlocked findAndModify', serverError(1), true],
    ['a duplicate key (11000)', serverError(11000), false],
    ['a validation failure (121)', serverError(121), false],
    ['a bad value (2)', serverError(2), false],
    // The driver passes this one on unwrapped when the database is killed mid-burst (unclassified: a 500).
    [
      'a write to a socket the database had ended (EPIPE)',
      Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }),
      true,
    ],
    ['a connection reset (ECONNRESET)', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), true],
    ['a programming error', new TypeError('x is undefined'), false],
    ['a string', 'boom', false],
  ];
  for (const [what, err, expected] of rows)
    it(`when the error is ${what}, then it is ${expected ? '' : 'not '}transient`, () => {
      expect(isTransient(err)).to.equal(expected);
    });

  it("when PostgreSQL's SQLSTATE is encoded, then it matches the code the test database answers (40P01 is 16908292)", () => {
    expect(encodeSqlState('40P01')).to.equal(16908292);
  });
});
