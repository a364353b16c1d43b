/**
 * The Grafana dashboard (`infra/grafana/gateway-dashboard.json`) against the metrics the code
 * defines: every query names families this registry really has (a histogram's `_bucket`, `_count`,
 * `_sum` included) and groups by labels they really carry, and every `gateway_*` family is shown.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '../../../shared/src/observability/admission-metrics.ts';
import '../../../shared/src/observability/charge-observation.ts';
import '../../../shared/src/observability/http-metrics.ts';
import '../../../shared/src/observability/job-observation.ts';
import '../../../shared/src/observability/queue-metrics.ts';
import '../../../shared/src/observability/settlement-observation.ts';
import '../../../shared/src/observability/upstream-observation.ts';
import { metricsRegistry } from '../../../shared/src/observability/registry.ts';

interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly uid: string };
  readonly targets?: ReadonlyArray<{ readonly expr: string; readonly datasource: { readonly uid: string } }>;
}

const dashboard = JSON.parse(
  readFileSync(new URL('../../../infra/grafana/gateway-dashboard.json', import.meta.url), 'utf8'),
) as { panels: Panel[]; uid: string; title: string };

/** Families by name, with their label names (prom-client keeps them on the metric). */
const families = new Map(
  metricsRegistry.getMetricsAsArray().map((metric) => [
    metric.name,
    {
      type: (metric as unknown as { type: string }).type,
      labels: (metric as unknown as { labelNames: string[] }).labelNames ?? [],
    },
  ]),
);
/** Grafana's reference to the dashboard's data source variable. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a JavaScript template.
const DATASOURCE_VARIABLE = '${datasource}';
/** Labels Prometheus adds to every series it scrapes, and the bucket bound of histograms. */
const SCRAPE_LABELS = ['instance', 'job', 'le'];

function familyOf(series: string): string | undefined {
  if (families.has(series)) return series;
  const base = series.replace(/_(bucket|count|sum)$/, '');
  return families.get(base)?.type === 'histogram' ? base : undefined;
}

const queries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((target) => ({ panel, ...target })),
);

describe('the Grafana dashboard', () => {
  it('queries only the families the code defines', () => {
    for (const { panel, expr } of queries) {
      const names = expr.match(/\b(?:gateway|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
      expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(familyOf(name), `${panel.title}: ${name}`).toBeDefined();
    }
  });

  it('groups and filters by labels those families carry', () => {
    for (const { panel, expr } of queries) {
      const names = (expr.match(/\b(?:gateway|nodejs|process)_[a-z0-9_]+\b/g) ?? []).map(familyOf);
      const known = new Set([
        ...SCRAPE_LABELS,
        ...names.flatMap((name) => families.get(name ?? '')?.labels ?? []),
      ]);
      const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((match) =>
        (match[1] ?? '').split(',').map((label) => label.trim()),
      );
      const filtered = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((match) =>
        [...(match[1] ?? '').matchAll(/([a-z_]+)=~?"/g)].map((label) => label[1] ?? ''),
      );
      for (const label of [...grouped, ...filtered])
        expect(known.has(label), `${panel.title}: ${label}`).toBe(true);
    }
  });

  it('shows every gateway family', () => {
    const shown = new Set(
      queries.flatMap(({ expr }) => (expr.match(/\bgateway_[a-z0-9_]+\b/g) ?? []).map(familyOf)),
    );
    const defined = [...families.keys()].filter((name) => name.startsWith('gateway_'));
    expect(defined.length).toBeGreaterThanOrEqual(17);
    for (const name of defined) expect(shown.has(name), name).toBe(true);
  });

  it('has unique panel ids and takes its data source from the dashboard variable', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { panel, datasource } of queries) {
      expect(datasource.uid, panel.title).toBe(DATASOURCE_VARIABLE);
      expect(panel.datasource?.uid, panel.title).toBe(DATASOURCE_VARIABLE);
    }
  });
});
