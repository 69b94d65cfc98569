/**
 * A chart with its table beside it (docs/console.md): the same figures twice — drawn for the eye,
 * and as a table for a screen reader, a keyboard, a copy and paste. The chart is a picture named
 * for what it shows; the table has a caption and one row per bucket. On a wide screen they sit
 * side by side, on a phone the table under the chart; a long table scrolls in its own box.
 * `compact`: the table is shown on demand ("Show as table") and is read by screen readers either way.
 */
import { lazy, Suspense, useId, useState } from 'react';
import type { ChartSeries } from './charts';
import { bucketInWords } from './when';

const SeriesChart = lazy(() => import('./charts'));

/** One figure of the rows: drawn in `color`, written in the table with `format`. */
export interface Figure<K extends string> extends ChartSeries<K> {
  format: (n: number | null) => string;
}

export function ChartAndTable<K extends string>({
  title,
  rows,
  figures,
  axisValue,
  counts,
  compact = false,
  height = 220,
}: {
  /** What the chart shows, e.g. "Redemptions and reverts by day": its name and its table's caption. */
  title: string;
  rows: ({ period: string } & Record<K, number | null>)[];
  figures: Figure<K>[];
  /** A value on the chart's vertical axis, short. */
  axisValue: (n: number) => string;
  counts: boolean;
  compact?: boolean;
  height?: number;
}) {
  const id = useId();
  const [tableShown, setTableShown] = useState(!compact);
  const byHour = rows[0]?.period.includes('T') ?? false;
  // A range of hours on one day: the hour alone says which row it is.
  const oneDay = byHour && rows[0]!.period.slice(0, 10) === rows.at(-1)!.period.slice(0, 10);
  const rowLabel = (period: string) => bucketInWords(period, oneDay);
  return (
    <div className={compact ? 'chart-pair compact' : 'chart-pair'}>
      <div className="chart" role="img" aria-label={`Chart: ${title}. The same figures are in the table “${title}”.`}>
        <Suspense fallback={<p className="loading">Drawing the chart…</p>}>
          <SeriesChart
            rows={rows}
            series={figures}
            axisLabel={(p) => bucketInWords(p, true)}
            tooltipLabel={rowLabel}
            axisValue={axisValue}
            tooltipValue={(n, key) => (figures.find((f) => f.key === key) ?? figures[0]!).format(n)}
            counts={counts}
            height={height}
          />
        </Suspense>
      </div>
      <div className="chart-table">
        {compact && (
          <button type="button" className="link" aria-expanded={tableShown} aria-controls={id} onClick={() => setTableShown(!tableShown)}>
            {tableShown ? 'Hide the table' : 'Show as table'}
          </button>
        )}
        <div
          id={id}
          className={tableShown ? 'scroll table-box' : 'visually-hidden'}
          tabIndex={tableShown ? 0 : undefined}
          role="region"
          aria-labelledby={`${id}-caption`}
        >
          <table>
            <caption id={`${id}-caption`}>{title}</caption>
            <thead>
              <tr>
                <th scope="col">{byHour ? 'Hour' : 'Day'}</th>
                {figures.map((f) => (
                  <th scope="col" key={f.key}>
                    {f.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.period}>
                  <th scope="row">{rowLabel(r.period)}</th>
                  {figures.map((f) => (
                    <td key={f.key}>{f.format(r[f.key])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
}
