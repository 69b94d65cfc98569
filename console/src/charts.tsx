/**
 * The console's charts, drawn by Recharts. Loaded on demand (`lazy(() => import('./charts'))` in
 * results-parts.tsx): the pages that have no chart do not download it. A chart is a picture only:
 * its figures are in the table beside it (the wrapper says so to a screen reader), so Recharts'
 * own keyboard layer is off and nothing in it takes focus.
 */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** One figure drawn over the buckets, as bars (a bucket is a day or an hour: its own figure, not a point on a curve). */
export interface ChartSeries<K extends string> {
  key: K;
  name: string;
  color: string;
}

export interface SeriesChartProps<K extends string> {
  rows: ({ period: string } & Record<K, number | null>)[];
  series: ChartSeries<K>[];
  /** A bucket under the axis ("Dec 3", "14:00") and in the tooltip ("Thu, Dec 3"). */
  axisLabel: (period: string) => string;
  tooltipLabel: (period: string) => string;
  /** A value on the vertical axis (short) and in the tooltip (in full). */
  axisValue: (n: number) => string;
  tooltipValue: (n: number, key: K) => string;
  /** Whole numbers only on the vertical axis (counts). */
  counts: boolean;
  height: number;
}

const INK = '#4a5260';

export default function SeriesChart<K extends string>({
  rows,
  series,
  axisLabel,
  tooltipLabel,
  axisValue,
  tooltipValue,
  counts,
  height,
}: SeriesChartProps<K>) {
  return (
    <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 320, height }}>
      <BarChart data={rows} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="#dde1e7" vertical={false} />
        <XAxis
          dataKey="period"
          tickFormatter={axisLabel}
          tick={{ fill: INK, fontSize: 12 }}
          stroke={INK}
          minTickGap={12}
          interval="preserveStartEnd"
        />
        <YAxis tickFormatter={axisValue} tick={{ fill: INK, fontSize: 12 }} stroke={INK} allowDecimals={!counts} width={56} />
        <Tooltip
          labelFormatter={(period) => tooltipLabel(String(period))}
          formatter={(value, _name, item) => tooltipValue(Number(value), item.dataKey as K)}
          isAnimationActive={false}
        />
        <Legend wrapperStyle={{ color: INK, fontSize: 13 }} />
        {series.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
