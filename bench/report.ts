// Prints benchmark figures as a compact table, each beside a reference measured in the same run
// (absolute numbers drift between machines, ratios much less), and as one final JSON line.
import { median, spread } from './stats.js';

/**
 * What the ratio ours/reference must satisfy. Throughputs want `atLeast` (higher is better),
 * latencies `atMost` (lower is better).
 */
export type Target = { readonly atLeast: number } | { readonly atMost: number };

export interface Figure {
  readonly name: string;
  /** Unit of `ours` and `reference`, e.g. `events/s` or `ms`. */
  readonly unit: string;
  /** One sample per round, or a single value. */
  readonly ours: number | readonly number[];
  readonly reference: number | readonly number[];
  readonly target: Target;
  /** Free text shown under the table (what exactly was measured). */
  readonly note?: string;
}

export interface FigureResult {
  readonly name: string;
  readonly unit: string;
  readonly ours: number;
  readonly reference: number;
  readonly ratio: number;
  readonly target: string;
  readonly pass: boolean;
  readonly rounds: number;
  readonly oursSamples: readonly number[];
  readonly referenceSamples: readonly number[];
  /** (max - min) / median of each side's samples. */
  readonly oursSpread: number;
  readonly referenceSpread: number;
  readonly note?: string;
}

const samples = (v: number | readonly number[]): readonly number[] => (typeof v === 'number' ? [v] : v);

const round = (n: number, digits = 3): number => Number(n.toPrecision(digits));

/**
 * With as many samples on each side, round i of ours was measured next to round i of the
 * reference, so the ratio is the median of the per-round ratios: drift during the run cancels
 * within a pair. Otherwise it is the ratio of the medians.
 */
const ratioOf = (ours: readonly number[], reference: readonly number[]): number =>
  ours.length === reference.length && ours.length > 1
    ? median(ours.map((o, i) => o / reference[i]!))
    : median(ours) / median(reference);

const targetText = (t: Target): string => ('atLeast' in t ? `>= ${t.atLeast}` : `<= ${t.atMost}`);

const meets = (t: Target, ratio: number): boolean => ('atLeast' in t ? ratio >= t.atLeast : ratio <= t.atMost);

export const evaluate = (figure: Figure): FigureResult => {
  const ours = samples(figure.ours);
  const reference = samples(figure.reference);
  const ratio = ratioOf(ours, reference);
  return {
    name: figure.name,
    unit: figure.unit,
    ours: round(median(ours), 4),
    reference: round(median(reference), 4),
    ratio: round(ratio),
    target: targetText(figure.target),
    pass: meets(figure.target, ratio),
    rounds: Math.min(ours.length, reference.length),
    oursSamples: ours.map((s) => round(s, 4)),
    referenceSamples: reference.map((s) => round(s, 4)),
    oursSpread: round(spread(ours), 2),
    referenceSpread: round(spread(reference), 2),
    ...(figure.note ? { note: figure.note } : {}),
  };
};

const show = (n: number): string => (Math.abs(n) >= 100 ? String(Math.round(n)) : String(round(n)));

/** The table, for people. Returns the evaluated figures for the JSON line. */
export const printTable = (figures: readonly Figure[], write: (line: string) => void = console.log): FigureResult[] => {
  const results = figures.map(evaluate);
  const header = ['figure', 'ours', 'reference', 'ratio', 'target', ''];
  const rows = results.map((r) => [
    `${r.name} (${r.unit})`,
    show(r.ours),
    show(r.reference),
    r.ratio.toFixed(2),
    r.target,
    r.pass ? 'ok' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : i < 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  write(line(header));
  for (const row of rows) write(line(row));
  write('');
  write('ours/reference: medians of the rounds; ratio: median of the per-round ratios (rounds interleaved).');
  for (const r of results) {
    write(`- ${r.name}: ${r.rounds} rounds, spread ours ${show(r.oursSpread * 100)}% / reference ${show(r.referenceSpread * 100)}%`);
    if (r.note) write(`  ${r.note}`);
  }
  return results;
};

/** The machine-readable results: one JSON object on one line, printed last. */
export const printJson = (results: readonly FigureResult[], extra: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ bench: results, ...extra })}\n`);
};
