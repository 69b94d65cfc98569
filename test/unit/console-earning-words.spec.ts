import { expect } from 'chai';
import { periodInWords } from '../../console/src/when.js';

describe('console: the period of an earning cap in words', () => {
  it('when the API names a day, a week, a month or a year, then the page says it as a manager would', () => {
    expect(periodInWords('2026-12-02')).to.equal('on 2 December 2026');
    expect(periodInWords('2026-W49')).to.equal('in week 49 of 2026');
    expect(periodInWords('2027-01')).to.equal('in January 2027');
    expect(periodInWords('2026')).to.equal('in 2026');
  });
});
