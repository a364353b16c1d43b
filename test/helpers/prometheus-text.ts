/** One sample of the Prometheus text exposition format: `name{label="value",…} value`. */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A scrape, parsed: its samples and the families it declares (`# TYPE name type`). */
export interface Scrape {
  readonly samples: readonly PrometheusSample[];
  readonly families: ReadonlyMap<string, string>;
  /**
   * The sum of the samples named `name` whose labels include `labels`; 0 when none matches (a
   * labelled counter that never moved has no sample).
   */
  value(name: string, labels?: Record<string, string>): number;
  /** The samples named `name` whose labels include `labels`. */
  matching(name: string, labels?: Record<string, string>): PrometheusSample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (version 0.0.4) as `/metrics` serves it; throws on a line it cannot read. */
export function parsePrometheusText(text: string): Scrape {
  const samples: PrometheusSample[] = [];
  const families = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type?.[1] !== undefined && type[2] !== undefined) families.set(type[1], type[2]);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const [, name = '', labelText = '', value = ''] = match;
    const labels: Record<string, string> = {};
    for (const [, key = '', raw = ''] of labelText.matchAll(LABEL)) {
      labels[key] = raw.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    }
    samples.push({ name, labels, value: parseValue(value) });
  }
  const matching = (name: string, labels: Record<string, string> = {}) =>
    samples.filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  return {
    samples,
    families,
    matching,
    value: (name, labels) => matching(name, labels).reduce((sum, sample) => sum + sample.value, 0),
  };
}

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (Number.isNaN(value) && text !== 'NaN' && text !== 'Nan') throw new Error(`not a sample value: ${text}`);
  return value;
}
