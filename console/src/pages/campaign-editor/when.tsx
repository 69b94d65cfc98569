import { describedBy, Labelled, Rows, type SectionProps } from './controls';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The validity period and the schedule: days of the week and hour ranges. */
export function WhenSection({ draft: d, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>When</legend>
      <Labelled label="Valid from (e.g. 2026-12-01T00:00; empty: now)" path="valid_from" err={err}>
        <input value={d.valid_from} onChange={(e) => set({ valid_from: e.target.value })} {...describedBy(err, 'valid_from')} />
      </Labelled>
      <Labelled label="Valid until (inclusive; empty: no end)" path="valid_until" err={err}>
        <input value={d.valid_until} onChange={(e) => set({ valid_until: e.target.value })} {...describedBy(err, 'valid_until')} />
      </Labelled>
      <fieldset>
        <legend>Days of the week (none: every day)</legend>
        {DAYS.map((name, i) => (
          <label key={name} className="inline">
            <input
              type="checkbox"
              checked={d.days.includes(i + 1)}
              onChange={(e) => set({ days: e.target.checked ? [...d.days, i + 1] : d.days.filter((x) => x !== i + 1) })}
            />{' '}
            {name}
          </label>
        ))}
      </fieldset>
      <Rows
        legend="Hours (none: all day; an end before the start wraps past midnight)"
        add="Add hours"
        rows={d.hours}
        onChange={(hours) => set({ hours })}
        fresh={() => ({ from: '09:00', to: '17:00' })}
        render={(h, i, change) => (
          <>
            <Labelled label={`Hours ${i + 1} from`} path={`schedule.hours.${i}.from`} err={err}>
              <input
                value={h.from}
                onChange={(e) => change({ ...h, from: e.target.value })}
                {...describedBy(err, `schedule.hours.${i}.from`)}
              />
            </Labelled>
            <Labelled label={`Hours ${i + 1} to`} path={`schedule.hours.${i}.to`} err={err}>
              <input value={h.to} onChange={(e) => change({ ...h, to: e.target.value })} {...describedBy(err, `schedule.hours.${i}.to`)} />
            </Labelled>
          </>
        )}
      />
    </fieldset>
  );
}
