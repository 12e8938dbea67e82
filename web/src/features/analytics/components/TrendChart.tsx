import '@mantine/charts/styles.css';
import { AreaChart, BarChart } from '@mantine/charts';

export interface TrendSeries {
  name: string;
  label: string;
  color: string;
}

export interface TrendChartProps {
  kind: 'bar' | 'area';
  points: readonly { at: string; [value: string]: string | number }[];
  series: readonly TrendSeries[];
  /** How a bucket's time reads on the axis (an hour or a day, in the workspace's zone). */
  formatAt: (at: string) => string;
  unit?: string;
  label: string;
  stacked?: boolean;
}

/** Axis ticks and tooltips: at most two decimals, so a scale of tenths of an hour reads 0.09 h, not 0.085h on two lines. */
const figure = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

/** A trend over the window's buckets, with tooltip and legend; loaded on demand so recharts stays out of the shell. */
export function TrendChart({ kind, points, series, formatAt, unit = '', label, stacked }: TrendChartProps) {
  const data = points.map((point) => {
    const row: Record<string, string | number> = { at: formatAt(point.at) };
    for (const entry of series) row[entry.label] = Number(point[entry.name] ?? 0);
    return row;
  });
  const common = {
    h: 240,
    data,
    dataKey: 'at',
    series: series.map((entry) => ({ name: entry.label, color: entry.color })),
    withLegend: true,
    legendProps: { verticalAlign: 'bottom' as const, height: 40 },
    valueFormatter: (value: number) => `${figure.format(value)}${unit}`,
    tickLine: 'y' as const,
    'aria-label': label,
    role: 'img',
  };
  return kind === 'bar' ? (
    <BarChart {...common} {...(stacked ? { type: 'stacked' as const } : {})} maxBarWidth={32} />
  ) : (
    <AreaChart {...common} curveType="monotone" withDots={false} />
  );
}
