import { expect } from 'chai';
import { fromCents, percentOf, roundHalfAway, roundMoney, spreadLargestRemainder, toCents } from '../../shared/domain/money.js';

describe('money: toCents', () => {
  const rows: [number, number][] = [
    [0, 0],
    [1, 100],
    [1.005, 101], // 100.49999999999999 in binary: float noise must not round it down
    [1.015, 102],
    [0.285, 29],
    [2.675, 268],
    [1.004, 100],
    [0.005, 1],
    [-0.005, -1], // half away from zero, not towards +Infinity
    [-1.005, -101],
    [123456789.995, 12345679000],
    [-0, 0],
  ];
  for (const [amount, cents] of rows) {
    it(`when ${amount} is converted, then ${cents} cents`, () => {
      expect(Object.is(toCents(amount), cents)).to.equal(true, `got ${toCents(amount)}`);
    });
  }
  it('when the amount is not finite, then the result is not finite (callers check)', () => {
    expect(Number.isFinite(toCents(Infinity))).to.equal(false);
    expect(Number.isNaN(toCents(NaN))).to.equal(true);
    expect(Number.isSafeInteger(toCents(1e308))).to.equal(false);
  });
});

describe('money: fromCents, roundMoney, roundHalfAway', () => {
  const fromRows: [number, number][] = [
    [12345, 123.45],
    [1, 0.01],
    [-150, -1.5],
    [100.5, 1.01], // non-integer cents are rounded half away from zero first
  ];
  for (const [cents, amount] of fromRows) {
    it(`when ${cents} cents are presented, then ${amount}`, () => expect(fromCents(cents)).to.equal(amount));
  }
  const roundRows: [number, number][] = [
    [2.675, 2.68],
    [1.005, 1.01],
    [-1.005, -1.01],
    [0.1 + 0.2, 0.3],
    [9.994, 9.99],
  ];
  for (const [x, y] of roundRows) {
    it(`when ${x} is rounded to money, then ${y}`, () => expect(roundMoney(x)).to.equal(y));
  }
  const halfRows: [number, number][] = [
    [2.5, 3],
    [-2.5, -3],
    [2.4999, 2],
    [-0.4, 0],
  ];
  for (const [x, y] of halfRows) {
    it(`when ${x} is rounded half away from zero, then ${y}`, () => expect(Object.is(roundHalfAway(x), y)).to.equal(true));
  }
});

describe('money: percentOf', () => {
  const rows: [number, number, number][] = [
    [100000, 10, 10000],
    [5, 10, 1], // 0.5 cent rounds up
    [4, 10, 0], // 0.4 cent rounds down
    [15, 10, 2], // 1.5 → 2
    [33333, 15, 5000], // 4999.95 → 5000
    [999, 100, 999],
    [0, 50, 0],
  ];
  for (const [cents, percent, result] of rows) {
    it(`when ${percent}% of ${cents} cents is taken, then ${result} cents`, () => expect(percentOf(cents, percent)).to.equal(result));
  }
});

describe('money: spreadLargestRemainder', () => {
  const rows: [string, number, number[], number[]][] = [
    ['three equal items splitting 100 cents', 100, [1, 1, 1], [34, 33, 33]],
    ['two equal items splitting 1 cent (tie to the lower index)', 1, [5, 5], [1, 0]],
    ['a 10% discount of three items (1999, 2999, 3999)', 900, [1999, 2999, 3999], [200, 300, 400]],
    ['proportional weights', 1000, [1, 3], [250, 750]],
    ['a zero weight among others', 100, [0, 1, 1], [0, 50, 50]],
    ['all-zero weights (spread evenly)', 10, [0, 0, 0], [4, 3, 3]],
    ['negative and NaN weights (count as zero)', 10, [-5, Number.NaN, 2], [0, 0, 10]],
    ['a zero total', 0, [3, 4], [0, 0]],
    ['a negative total (spread as magnitude)', -100, [1, 1, 1], [-34, -33, -33]],
    ['no weights', 100, [], []],
    ['non-integer weights (float fallback)', 100, [0.5, 0.5, 1], [25, 25, 50]],
    ['remainders that tie only in exact arithmetic', 10, [3, 3, 3], [4, 3, 3]],
    ['weights beyond 2^53 in their products', 9_000_000_000_000_000, [1_000_000_001, 1_000_000_002], [4499999997750000, 4500000002250000]],
  ];
  for (const [label, total, weights, parts] of rows) {
    it(`when ${label}, then ${JSON.stringify(parts)}`, () => {
      const got = spreadLargestRemainder(total, weights);
      expect(got).to.deep.equal(parts);
      if (weights.length > 0) expect(got.reduce((a, b) => a + b, 0)).to.equal(total);
    });
  }
  it('when a 10% discount is spread over three items of a cart, then the parts sum exactly to the discount', () => {
    const lines = [3333, 3333, 3334];
    const discount = percentOf(
      lines.reduce((a, b) => a + b, 0),
      10,
    );
    const parts = spreadLargestRemainder(discount, lines);
    expect(discount).to.equal(1000);
    expect(parts.reduce((a, b) => a + b, 0)).to.equal(1000);
    expect(parts).to.deep.equal([333, 333, 334]);
  });
});
