// A strict reader of the Prometheus text exposition format (version 0.0.4), written from the
// format's description and sharing nothing with prom-client: every line must be a HELP, a TYPE or
// a sample of a family declared before it; names, labels, escapes and values must be well formed;
// no series may appear twice; histogram buckets must be cumulative and end in `+Inf` = `_count`.
// Anything else throws, naming the line.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

const parseValue = (text: string, line: number): number => {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  // Values are read as Go's ParseFloat reads them, which takes any case of NaN; the format's own
  // description spells it `Nan`, and that is what prom-client writes.
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: ${JSON.stringify(text)} is not a sample value`);
  return Number(text);
};

/** Reads `{name="value",...}` starting at `text[0] === '{'`; returns the labels and the rest. */
const parseLabels = (text: string, line: number): { labels: Record<string, string>; rest: string } => {
  const labels: Record<string, string> = {};
  let i = 1;
  while (text[i] !== '}') {
    const eq = text.indexOf('=', i);
    const name = text.slice(i, eq);
    if (eq < 0 || !LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (Object.hasOwn(labels, name)) throw new Error(`line ${line}: label ${name} twice`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label ${name} value is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\n') throw new Error(`line ${line}: raw newline in a label value`);
      if (text[j] !== '\\') {
        value += text[j];
        continue;
      }
      const escaped = text[++j];
      if (escaped === 'n') value += '\n';
      else if (escaped === '\\' || escaped === '"') value += escaped;
      else throw new Error(`line ${line}: bad escape \\${escaped ?? ''} in label ${name}`);
    }
    if (j >= text.length) throw new Error(`line ${line}: unterminated label value`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`line ${line}: expected , or } after label ${name}`);
  }
  return { labels, rest: text.slice(i + 1) };
};

const familyOf = (families: Map<string, Family>, sampleName: string): Family | undefined => {
  const exact = families.get(sampleName);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = families.get(sampleName.slice(0, -suffix.length));
    if (sampleName.endsWith(suffix) && base && (base.type === 'histogram' || base.type === 'summary')) return base;
  }
  return undefined;
};

const seriesKey = (sample: Sample): string =>
  `${sample.name}{${Object.entries(sample.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;

const checkHistogram = (family: Family): void => {
  const groups = new Map<string, Sample[]>();
  for (const s of family.samples.filter((x) => x.name === `${family.name}_bucket`)) {
    const { le, ...rest } = s.labels;
    if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const [key, buckets] of groups) {
    const bounds = buckets.map((b) => parseValue(b.labels['le']!, 0));
    for (let i = 1; i < buckets.length; i++) {
      if (!(bounds[i]! > bounds[i - 1]!)) throw new Error(`${family.name} ${key}: le not increasing`);
      if (buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${family.name} ${key}: buckets not cumulative`);
    }
    if (bounds[bounds.length - 1] !== Infinity) throw new Error(`${family.name} ${key}: no +Inf bucket`);
    const count = family.samples.find((s) => s.name === `${family.name}_count` && JSON.stringify(Object.entries(s.labels).sort()) === key);
    if (count?.value !== buckets[buckets.length - 1]!.value) throw new Error(`${family.name} ${key}: +Inf bucket differs from _count`);
    if (!family.samples.some((s) => s.name === `${family.name}_sum` && JSON.stringify(Object.entries(s.labels).sort()) === key)) {
      throw new Error(`${family.name} ${key}: no _sum`);
    }
  }
};

export const parsePrometheusText = (text: string): Map<string, Family> => {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  const seen = new Set<string>();
  text.slice(0, -1).split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      if (kind === 'HELP') {
        if (helps.has(name)) throw new Error(`line ${line}: second HELP for ${name}`);
        helps.set(name, rest);
      } else {
        if (!TYPES.has(rest as MetricType)) throw new Error(`line ${line}: bad type ${rest}`);
        if (families.has(name)) throw new Error(`line ${line}: second TYPE for ${name}`);
        families.set(name, { name, type: rest as MetricType, help: helps.get(name) ?? '', samples: [] });
      }
      return;
    }
    if (raw.startsWith('#')) return;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw)?.[0];
    if (!name) throw new Error(`line ${line}: not a sample: ${raw}`);
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`line ${line}: expected a value after ${name}`);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new Error(`line ${line}: bad timestamp`);
    const family = familyOf(families, name);
    if (!family) throw new Error(`line ${line}: sample ${name} of no declared family`);
    const sample: Sample = { name, labels, value: parseValue(parts[0]!, line) };
    const key = seriesKey(sample);
    if (seen.has(key)) throw new Error(`line ${line}: series ${key} twice`);
    seen.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
};

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none (a counter not yet moved). */
export const sampleValue = (families: Map<string, Family>, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  const matching = [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matching.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matching.length} series`);
  return matching[0]?.value ?? 0;
};
