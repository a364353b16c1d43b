/** Daily cost by model: a stacked bar chart (Chart.js), with the same numbers as a table for screen readers. */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { DailyCost } from '../api/types.ts';
import { billingToday } from '../billing-calendar.ts';
import { useI18n } from '../i18n/i18n.tsx';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const PALETTE = [
  '#2563eb',
  '#16a34a',
  '#ea580c',
  '#9333ea',
  '#0891b2',
  '#dc2626',
  '#ca8a04',
  '#db2777',
  '#4f46e5',
  '#059669',
];
const OTHERS_COLOR = '#94a3b8';
/** More models than this are summed as "other models", so the legend stays readable. */
const MAX_SERIES = 8;

export interface ChartSeries {
  readonly days: readonly string[];
  readonly models: readonly string[];
  /** cost[modelIndex][dayIndex] */
  readonly cost: readonly (readonly number[])[];
}

/** The last `days` billing days ending at `lastDay` (YYYY-MM-DD), oldest first. */
export function dayRange(lastDay: string, days: number): string[] {
  const [y, m, d] = lastDay.split('-').map(Number) as [number, number, number];
  const end = Date.UTC(y, m - 1, d);
  const out: string[] = [];
  for (let i = days - 1; i >= 0; i -= 1) out.push(new Date(end - i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

/** Rows → one series per model over every day of the range (missing days are 0). */
export function toSeries(
  rows: readonly DailyCost[],
  days: number,
  otherLabel: string,
  lastDay?: string,
): ChartSeries {
  // The range ends on the API's today (its billing zone), or a newer row's day.
  let newest = lastDay ?? billingToday();
  for (const row of rows) if (row.date > newest) newest = row.date;
  const range = dayRange(newest, days);
  const index = new Map(range.map((day, i) => [day, i]));
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.model, (totals.get(row.model) ?? 0) + row.cost);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([model]) => model);
  const kept = ranked.length > MAX_SERIES ? ranked.slice(0, MAX_SERIES - 1) : ranked;
  const models = ranked.length > kept.length ? [...kept, otherLabel] : kept;
  const cost = models.map(() => range.map(() => 0));
  for (const row of rows) {
    const day = index.get(row.date);
    if (day === undefined) continue;
    const series = kept.indexOf(row.model);
    const target = cost[series === -1 ? models.length - 1 : series];
    if (target) target[day] = (target[day] ?? 0) + row.cost;
  }
  return { days: range, models, cost };
}

export function CostChart({
  rows,
  days,
  lastDay,
}: {
  rows: readonly DailyCost[];
  days: number;
  lastDay?: string;
}) {
  const i18n = useI18n();
  const { t, format, locale, dir } = i18n;
  const canvas = useRef<HTMLCanvasElement>(null);
  const series = useMemo(
    () => toSeries(rows, days, t('overview.other_models'), lastDay),
    [rows, days, t, lastDay],
  );

  useEffect(() => {
    if (!canvas.current) return;
    const rtl = dir === 'rtl';
    const font = { family: getComputedStyle(document.body).fontFamily };
    const config: ChartConfiguration<'bar'> = {
      type: 'bar',
      data: {
        labels: series.days.map((day) => format.day(day, 'short')),
        datasets: series.models.map((model, i) => ({
          label: model,
          data: [...(series.cost[i] ?? [])],
          backgroundColor:
            model === t('overview.other_models')
              ? OTHERS_COLOR
              : (PALETTE[i % PALETTE.length] ?? OTHERS_COLOR),
          borderWidth: 0,
          maxBarThickness: 28,
        })),
      },
      options: {
        locale: locale === 'fa' ? 'fa-IR' : 'en-US',
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: {
            stacked: true,
            reverse: rtl,
            grid: { display: false },
            ticks: { font, maxRotation: 0, autoSkip: true, autoSkipPadding: 12 },
          },
          y: {
            stacked: true,
            beginAtZero: true,
            position: rtl ? 'right' : 'left',
            ticks: { font, callback: (value) => format.amount(Number(value)) },
          },
        },
        plugins: {
          legend: { position: 'bottom', rtl, labels: { font, boxWidth: 12 } },
          tooltip: {
            rtl,
            bodyFont: font,
            titleFont: font,
            filter: (item) => Number(item.raw) > 0,
            callbacks: {
              label: (item) => `${item.dataset.label}: ${format.money(Number(item.raw))}`,
            },
          },
        },
      },
    };
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [series, format, locale, dir, t]);

  const totalByDay = series.days.map((_, day) =>
    series.cost.reduce((sum, model) => sum + (model[day] ?? 0), 0),
  );
  return (
    <figure class="chart">
      <div class="chart-canvas">
        <canvas ref={canvas} role="img" aria-label={t('overview.chart_label', { n: format.number(days) })} />
      </div>
      <figcaption class="visually-hidden">{t('overview.chart_label', { n: format.number(days) })}</figcaption>
      <details class="chart-table">
        <summary>{t('overview.chart_as_table')}</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('common.day')}</th>
                <th scope="col">{t('common.cost_toman')}</th>
              </tr>
            </thead>
            <tbody>
              {series.days.map((day, i) => (
                <tr key={day}>
                  <td>{format.day(day)}</td>
                  <td class="num">{format.amount(totalByDay[i] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
