import { limitKeyValues } from '@coupons/client';
import { describedBy, Labelled, type SectionProps } from './controls';

/** One input per limit of the campaign format; an empty one is no limit. */
export function LimitsSection({ draft: d, set, err }: SectionProps) {
  return (
    <fieldset>
      <legend>Limits (empty: unlimited)</legend>
      {limitKeyValues.map((k) => (
        <Labelled key={k} label={`Limit ${k.replace('_', ' ')}`} path={`limits.${k}`} err={err}>
          <input
            inputMode="numeric"
            value={d.limits[k] ?? ''}
            onChange={(e) => set({ limits: { ...d.limits, [k]: e.target.value } })}
            {...describedBy(err, `limits.${k}`)}
          />
        </Labelled>
      ))}
    </fieldset>
  );
}
