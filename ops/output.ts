// What the commands print on stdout: aligned columns or labelled lines for a person, and with
// `--json` JSON Lines (one object per line; a listing of nothing prints nothing), for scripts.

export interface JsonOption {
  readonly json?: boolean;
}

export const JSON_OPTION = ['--json', 'print JSON Lines: one object per line'] as const;

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Cells padded to their column's widest; the last column is not padded. */
const aligned = (rows: readonly (readonly string[])[]): string[] => {
  const widths = rows[0]?.map((_, column) => rows.reduce((widest, row) => Math.max(widest, row[column]?.length ?? 0), 0)) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
};

export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T) => string;
}

/** A listing: a table under a header, or each row as JSON. */
export const printListing = <T extends object>(options: JsonOption, rows: readonly T[], columns: readonly Column<T>[]): void => {
  if (options.json) {
    for (const row of rows) print(JSON.stringify(row));
    return;
  }
  for (const line of aligned([columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => c.cell(row)))])) print(line);
};

/** One result: `label  value` lines, or the object as JSON. */
export const printRecord = (options: JsonOption, record: object, lines: readonly (readonly [string, string])[]): void => {
  if (options.json) print(JSON.stringify(record));
  else for (const line of aligned(lines)) print(line);
};

/** A line for a person only (a note under a record); nothing with `--json`. */
export const printNote = (options: JsonOption, note: string): void => {
  if (!options.json) print(note);
};
