import { expect } from 'chai';
import { DISCOUNT_BASES } from '../../shared/domain/types.js';
describe('smoke', () => {
  it('when loaded, then seven bases', () => {
    expect(DISCOUNT_BASES).to.have.length(7);
  });
});
