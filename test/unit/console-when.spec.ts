/**
 * The console's times in the application's timezone (console/src/when.ts): a time typed in a
 * `datetime-local` field is read on the application's clock, across daylight-saving changes, and
 * shown back the same way.
 */
import { expect } from 'chai';
import { WHEN, formatIn, formatWhen, instantIn, localInputIn } from '../../console/src/when.js';

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

  it("when a page shows a day or a time on the application's clock, then formatIn gives that zone's, and the browser's own for a zone the browser does not know", () => {
    const at = '2026-12-03T23:30:00.000Z';
    const day = { year: 'numeric', month: 'numeric', day: 'numeric' } as const;
    expect(formatIn(at, 'Asia/Kolkata', day)).to.equal(
      new Intl.DateTimeFormat(undefined, { ...day, timeZone: 'Asia/Kolkata' }).format(new Date(at)),
    );
    expect(formatIn(at, 'Asia/Kolkata', day)).to.not.equal(formatIn(at, 'America/New_York', day)); // 4 December there, 3 December here
    expect(formatIn(at, 'Mars/Olympus_Mons', day)).to.equal(new Intl.DateTimeFormat(undefined, day).format(new Date(at)));
    expect(formatWhen(at, 'Mars/Olympus_Mons')).to.equal(new Intl.DateTimeFormat(undefined, WHEN).format(new Date(at)));
  });
});
