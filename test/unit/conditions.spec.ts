import { expect } from 'chai';
import { firstFailing, holds } from '../../shared/domain/conditions.js';
import type { Condition, Operator, Scalar } from '../../shared/domain/types.js';

const c = (operator: Operator, value: Scalar | Scalar[], field = 'x'): Condition => ({ field, operator, value });

describe('conditions: holds', () => {
  const rows: [string, Condition, Scalar, boolean][] = [
    ['gt above', c('gt', 100), 101, true],
    ['gt exactly at the value', c('gt', 100), 100, false],
    ['gte exactly at the minimum', c('gte', 100), 100, true],
    ['gte one cent below', c('gte', 100), 99, false],
    ['lt below', c('lt', 100), 99, true],
    ['lt exactly at the value', c('lt', 100), 100, false],
    ['lte exactly at the maximum', c('lte', 100), 100, true],
    ['lte one above', c('lte', 100), 101, false],
    ['gt on a string value', c('gt', 1), '5', false],
    ['gt against an array value', c('gt', [1]), 5, false],
    ['eq numbers', c('eq', 5), 5, true],
    ['eq strings, different case', c('eq', 'UPI'), 'upi', true],
    ['eq a number and its string', c('eq', 5), '5', false],
    ['eq booleans', c('eq', true), true, true],
    ['eq against a list', c('eq', ['a', 'b']), 'B', true],
    ['neq equal strings', c('neq', 'CARD'), 'card', false],
    ['neq different numbers', c('neq', 1), 2, true],
    ['in a member', c('in', ['app', 'web']), 'web', true],
    ['in not a member', c('in', ['app', 'web']), 'pos', false],
    ['in a scalar value', c('in', 'app'), 'APP', true],
    ['in an empty list', c('in', []), 'app', false],
    ['nin a member', c('nin', ['COD']), 'cod', false],
    ['nin not a member', c('nin', ['COD']), 'UPI', true],
    ['nin an empty list', c('nin', []), 'x', true],
  ];
  for (const [label, condition, actual, result] of rows) {
    it(`when ${label} (${JSON.stringify(actual)}), then ${result}`, () => expect(holds(condition, actual)).to.equal(result));
  }
});

describe('conditions: firstFailing', () => {
  const values: Record<string, Scalar | undefined> = { a: 10, b: 'x', optional: undefined, mandatory: undefined };
  const mandatory = (f: string) => f === 'mandatory';
  const rows: [string, Condition[], string | undefined][] = [
    ['every condition holds', [c('gte', 10, 'a'), c('eq', 'X', 'b')], undefined],
    ['the second fails', [c('gte', 10, 'a'), c('eq', 'y', 'b')], 'b'],
    ['two fail (configured order decides)', [c('eq', 'y', 'b'), c('gt', 10, 'a')], 'b'],
    ['an optional field was not sent (skipped)', [c('gt', 1, 'optional'), c('gte', 10, 'a')], undefined],
    ['a mandatory field was not sent (fails)', [c('gt', 1, 'mandatory')], 'mandatory'],
    ['no conditions', [], undefined],
  ];
  for (const [label, conditions, field] of rows) {
    it(`when ${label}, then ${field ?? 'none'} fails`, () => {
      expect(firstFailing(conditions, (f) => values[f], mandatory)?.field).to.equal(field);
    });
  }
});
