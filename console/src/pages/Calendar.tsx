import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { admin, everyPage, must, type Campaign } from '../api';
import { AppCrumbs, ErrorLine } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { calendarDayIn, instantIn } from '../when';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const pad = (n: number) => String(n).padStart(2, '0');

/** Today's year and month on the clock of `timeZone` (the browser's for a zone it does not know). */
function thisMonth(timeZone: string | null): { y: number; m: number } {
  const today = calendarDayIn(new Date(), timeZone);
  return { y: today.year, m: today.month };
}

/** 1 (Monday) to 7 (Sunday) for a calendar date: a date's weekday is the same on every clock. */
const isoWeekday = (y: number, m: number, d: number) => ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) + 1;

interface Day {
  d: number;
  weekday: number;
  campaigns: Campaign[];
}

/**
 * Which campaigns can apply on each day of a month: valid at some moment of that day on the
 * application's clock, on one of its scheduled weekdays, not archived. Paused ones are shown as
 * such (they apply once resumed). Hours of a schedule are not drawn: the day counts.
 */
export function daysOf(y: number, m: number, timeZone: string | null, campaigns: Campaign[]): Day[] {
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const days: Day[] = [];
  for (let d = 1; d <= count; d++) {
    const start = instantIn(`${y}-${pad(m)}-${pad(d)}T00:00`, timeZone)!;
    const next = d < count ? { y, m, d: d + 1 } : m < 12 ? { y, m: m + 1, d: 1 } : { y: y + 1, m: 1, d: 1 };
    const end = instantIn(`${next.y}-${pad(next.m)}-${pad(next.d)}T00:00`, timeZone)!;
    const weekday = isoWeekday(y, m, d);
    days.push({
      d,
      weekday,
      campaigns: campaigns.filter(
        (c) =>
          !c.archived_at &&
          c.valid_from < end &&
          (c.valid_until === null || c.valid_until === undefined || c.valid_until > start) &&
          (!c.schedule?.days_of_week?.length || c.schedule.days_of_week.includes(weekday)),
      ),
    });
  }
  return days;
}

/** A month of the application's campaigns, on its clock: which can apply each day. */
export function CalendarPage({ app }: { app: string }) {
  const application = useApplication(app);
  const timeZone = application.data?.timezone ?? null;
  const [month, setMonth] = useState<{ y: number; m: number } | null>(null);
  const shown = month ?? thisMonth(timeZone);
  const campaigns = useQuery({
    queryKey: ['campaigns-all', app],
    queryFn: async () => {
      const all = await everyPage(
        (cursor) => must(admin.GET('/admin/applications/{app}/campaigns', { params: { path: { app }, query: { cursor, limit: 1000 } } })),
        (page) => page.campaigns,
      );
      // ISO instants sort as text: compare them so.
      return all.map((c) => ({
        ...c,
        valid_from: new Date(c.valid_from).toISOString(),
        valid_until: c.valid_until ? new Date(c.valid_until).toISOString() : null,
      }));
    },
  });
  const days = daysOf(shown.y, shown.m, timeZone, campaigns.data ?? []);
  const title = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(shown.y, shown.m - 1, 1)),
  );
  const move = (by: number) => {
    const i = shown.y * 12 + (shown.m - 1) + by;
    setMonth({ y: Math.floor(i / 12), m: (i % 12) + 1 });
  };
  // Weeks from Monday: blanks before the 1st.
  const cells: (Day | null)[] = [...Array<null>(days[0]!.weekday - 1).fill(null), ...days];
  while (cells.length % 7) cells.push(null);
  const weeks = Array.from({ length: cells.length / 7 }, (_, w) => cells.slice(w * 7, w * 7 + 7));
  return (
    <>
      <AppCrumbs app={app}>calendar</AppCrumbs>
      <h1>Calendar</h1>
      <p className="hint">
        Which campaigns can apply on each day, on the application&apos;s clock ({timeZone ?? 'your browser’s timezone'}). Scheduled hours
        are not drawn.
      </p>
      <div className="row">
        <button type="button" onClick={() => move(-1)}>
          Previous month
        </button>
        <button type="button" onClick={() => move(1)}>
          Next month
        </button>
      </div>
      <ErrorLine error={campaigns.error} />
      <table className="calendar">
        <caption>{title}</caption>
        <thead>
          <tr>
            {WEEKDAYS.map((w) => (
              <th key={w} scope="col">
                {w}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week, w) => (
            <tr key={w}>
              {week.map((day, i) =>
                day ? (
                  <td key={i} data-day={day.d}>
                    <span className="day">
                      <span className="weekday">{WEEKDAYS[day.weekday - 1]} </span>
                      {day.d}
                    </span>
                    {day.campaigns.length > 0 && (
                      <ul>
                        {day.campaigns.map((c) => (
                          <li key={c.id}>
                            <a href={hrefOf({ page: 'campaign', app, campaign: c.id })}>{c.name}</a>
                            {c.status === 'disabled' && ' (paused)'}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                ) : (
                  <td key={i} className="blank" aria-hidden="true" />
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
