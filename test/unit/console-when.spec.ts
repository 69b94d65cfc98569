/**
 * The console's times in the application's timezone (console/src/when.ts): a time typed in a
 * `datetime-local` field is read on the application's clock, across daylight-saving changes, and
 * shown back the same way.
 */
import { expect } from 'chai';
import { WHEN, formatWhen, instantIn, localInputIn } from '../../console/src/when.js';

describe("console: times on the application's clock", () => {
  for (const [zone, local, instant] of [
    ['Asia/Kolkata', '2026-11-26T10:00', '2026-11-26T04:30:00.000Z'],
    ['UTC', '2026-01-01T00:00', '2026-01-01T00:00:00.000Z'],
    ['America/New_York', '2026-07-01T12:00', '2026-07-01T16:00:00.000Z'], // summer time: UTC-4
    ['America/New_York', '2026-12-01T12:00', '2026-12-01T17:00:00.000Z'], // winter time: UTC-5
    ['Europe/Berlin', '2026-03-29T01:30', '2026-03-29T00:30:00.000Z'], // before the change at 02:00 (UTC+1)
    ['Europe/Berlin', '2026-03-29T03:30', '2026-03-29T01:30:00.000Z'], // after it (UTC+2)
    ['Australia/Lord_Howe', '2026-01-15T09:00', '2026-01-14T22:00:00.000Z'], // a half-hour summer shift (UTC+11)
  ] as const) {
    it(`when ${local} is typed for ${zone}, then it is the instant ${instant}, shown on that zone's clock`, () => {
      expect(instantIn(local, zone)).to.equal(instant);
      const shown = new Intl.DateTimeFormat(undefined, { ...WHEN, timeZone: zone }).format(new Date(instant));
      expect(formatWhen(instant, zone)).to.equal(shown);
      // And back into the field, as an edit form fills it (a wallet's pending date on the wallet's clock).
      expect(localInputIn(instant, zone)).to.equal(local);
    });
  }

  it('when nothing is typed, or no timezone is known, then nothing, or the browser clock', () => {
    expect(instantIn('', 'Asia/Kolkata')).to.equal(undefined);
    expect(instantIn('2026-11-26T10:00', null)).to.equal(new Date('2026-11-26T10:00').toISOString());
  });
});
