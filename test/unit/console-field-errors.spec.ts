/**
 * The admin API's refusals said in the console's words (console/src/field-errors.ts): the field
 * by its label, the rule as a sentence, the service's own sentences kept.
 */
import { expect } from 'chai';
import { sentenceOf } from '../../console/src/field-errors.js';

describe("console: a refused input said in the manager's words", () => {
  for (const [message, label, said] of [
    ['"points_expiry.amount" must be greater than or equal to 1', 'Number of months (1–3650)', 'Number of months must be at least 1.'],
    ['"pending.days" must be less than or equal to 3650', 'Pending days (1–3650)', 'Pending days must be at most 3650.'],
    [
      '"wallet_name" length must be less than or equal to 200 characters long',
      'Wallet name',
      'Wallet name must be at most 200 characters.',
    ],
    [
      '"wallet_id" with value "a b" fails to match the required pattern: /^[A-Za-z0-9_-]{1,64}$/',
      'Wallet id',
      'Wallet id may use only letters, digits, “-” and “_”.',
    ],
    [
      '"currency" with value "eur" fails to match the ISO 4217 code pattern',
      'Currency',
      'Currency must be three capital letters, like EUR.',
    ],
    ['"url" must be a valid uri', 'Address', 'Address must be a web address (https://…).'],
    ['"email" must be a valid email', 'Email', 'Email must be an email address.'],
    ['"amount" must be a number', 'Amount', 'Amount must be a number.'],
    ['"name" is not allowed to be empty', 'Name', 'Name cannot be empty.'],
    ['"kind" must be one of [discount, cashback]', 'Kind', 'Kind must be one of: discount, cashback.'],
    ['a wallet with this id exists', 'Wallet id', 'a wallet with this id exists'],
    ['Enter a whole number from -1000 to 1000.', 'Priority', 'Enter a whole number from -1000 to 1000.'],
    ['"x" does something new', 'X', 'X does something new.'],
  ] as const) {
    it(`when the API says ${JSON.stringify(message)}, then the form says ${JSON.stringify(said)}`, () => {
      expect(sentenceOf(message, label)).to.equal(said);
    });
  }
});
