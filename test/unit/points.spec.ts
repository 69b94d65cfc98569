import { expect } from 'chai';
import fc from 'fast-check';
import { hasAtMostTwoDecimals } from '../../shared/domain/points.js';

describe('points: at most 2 decimals, exactly (docs/decisions.md#21)', () => {
  const rows: [number, boolean][] = [
    [1, true],
    [0.01, true],
    [0.29, true],
    [1.1, true],
    [123456.78, true],
    [1e9, true],
    [1e-9, false],
    [5e-324, false],
    [0.001, false],
    [0.005, false],
    [1.000000001, false],
    [1.005, false],
    [99.999, false],
    [NaN, false],
    [Infinity, false],
  ];
  for (const [x, ok] of rows)
    it(`when points is ${x}, then ${ok ? 'accepted' : 'refused'}`, () => {
      expect(hasAtMostTwoDecimals(x)).to.equal(ok);
    });

  it('when a number is n hundredths (n up to 10^11), then it is accepted; when it is that plus anything a double can add, then refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e11 }), (n) => {
        const x = Number(`${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`);
        expect(hasAtMostTwoDecimals(x)).to.equal(true);
        const next = x + Math.max(Number.EPSILON * x, Number.MIN_VALUE) * 2;
        if (next !== x) expect(hasAtMostTwoDecimals(next), String(next)).to.equal(false);
      }),
    );
  });
});
