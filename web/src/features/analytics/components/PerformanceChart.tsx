import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';

export interface PerformanceChartProps {
  data: readonly { name: string; successRate: number }[];
  label: string;
}

/** Success rate per entry as bars; loaded on demand so recharts stays out of the shell's bundle. */
export function PerformanceChart({ data, label }: PerformanceChartProps) {
  return (
    <BarChart
      h={200}
      data={data.map((entry) => ({ name: entry.name, 'Success rate': entry.successRate }))}
      dataKey="name"
      series={[{ name: 'Success rate', color: 'blue.6' }]}
      yAxisProps={{ domain: [0, 100] }}
      valueFormatter={(value) => `${value}%`}
      tickLine="y"
      maxBarWidth={56}
      aria-label={label}
      role="img"
    />
  );
}
