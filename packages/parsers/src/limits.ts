import { DocumentError, type ParseOptions } from './types.js';

export const DEFAULT_LIMITS: Readonly<Required<ParseOptions>> = Object.freeze({
  maxPages: 5000,
  maxSheetRows: 100_000,
  maxSheetColumns: 1000,
  maxZipEntries: 10_000,
  maxZipUncompressedBytes: 512 * 1024 ** 2,
  maxZipRatio: 200,
});

export function resolveLimits(options: ParseOptions = {}): Required<ParseOptions> {
  const pick = (value: number | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
    return value;
  };
  return {
    maxPages: pick(options.maxPages, DEFAULT_LIMITS.maxPages, 'maxPages'),
    maxSheetRows: pick(options.maxSheetRows, DEFAULT_LIMITS.maxSheetRows, 'maxSheetRows'),
    maxSheetColumns: pick(options.maxSheetColumns, DEFAULT_LIMITS.maxSheetColumns, 'maxSheetColumns'),
    maxZipEntries: pick(options.maxZipEntries, DEFAULT_LIMITS.maxZipEntries, 'maxZipEntries'),
    maxZipUncompressedBytes: pick(options.maxZipUncompressedBytes, DEFAULT_LIMITS.maxZipUncompressedBytes, 'maxZipUncompressedBytes'),
    maxZipRatio: pick(options.maxZipRatio, DEFAULT_LIMITS.maxZipRatio, 'maxZipRatio'),
  };
}

/** Throws `unsupported_content` when a table is larger than the limits allow. */
export function assertTableSize(what: string, rows: number, columns: number, limits: Required<ParseOptions>): void {
  if (rows > limits.maxSheetRows) {
    throw new DocumentError(
      'unsupported_content',
      `${what} has more than ${limits.maxSheetRows} rows (the limit); split it into smaller files`,
    );
  }
  if (columns > limits.maxSheetColumns) {
    throw new DocumentError(
      'unsupported_content',
      `${what} has ${columns} columns, more than the limit of ${limits.maxSheetColumns}`,
    );
  }
}

/** Pads ragged rows with '' to the widest row. */
export function padRows(rows: string[][]): string[][] {
  const width = Math.max(0, ...rows.map((row) => row.length));
  return rows.map((row) => (row.length === width ? row : [...row, ...Array<string>(width - row.length).fill('')]));
}

/** A row as a text line: cells joined by tabs, trailing empty cells dropped. */
export function rowLine(row: readonly string[]): string {
  return row.join('\t').replace(/\t+$/, '');
}
